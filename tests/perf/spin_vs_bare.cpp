// SPDX-License-Identifier: MIT
// spin through the runner against a bare two-thread loop with the same body (one cache line,
// release store, acquire loads, the same pause) on the same two CPUs. Both sides give a median
// round trip (the runner: of its samples of K ops; the bare loop: of batches of ~1 ms timed
// by the first thread), in alternating rounds so a change in machine load hits both alike.
// Goal: ours / bare within 0.9-1.1. Prints a table, and with `--json FILE` writes the figures.
// Exit 0 when the goal holds, 1 when not, 2 when it could not run (fewer than two CPUs).
#include "bench/spin_wait.h"
#include "ctxscope/placement.h"
#include "ctxscope/runner.h"
#include "perf_util.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

using namespace ctxscope;

namespace {

constexpr int kRounds = 5;
constexpr int kBatches = 200;
constexpr double kBatchNs = 1e6;

using perf::median;
using perf::nowNs;

struct alignas(64) Line {
    std::atomic<std::uint32_t> token { 0 };
};
struct alignas(64) Quit {
    std::atomic<bool> quit { false };
};

// The spin kernel's loop, written out without the runner: task 0 stores 1 and waits for 0.
void ping(Line& line, std::uint64_t n)
{
    for (std::uint64_t i = 0; i < n; ++i) {
        line.token.store(1, std::memory_order_release);
        while (line.token.load(std::memory_order_acquire) != 0)
            bench::cpuRelax();
    }
}

// Task 1 waits for 1 and stores 0, until told to quit.
void pong(Line& line, const Quit& quit)
{
    for (;;) {
        unsigned turns = 0;
        while (line.token.load(std::memory_order_acquire) != 1) {
            bench::cpuRelax();
            if (++turns == bench::kStopCheckTurns) {
                turns = 0;
                if (quit.quit.load(std::memory_order_relaxed))
                    return;
            }
        }
        line.token.store(0, std::memory_order_release);
    }
}

// Median ns per round trip of batches of about a millisecond, the threads pinned to a and b.
double bareNsPerOp(const Topology& topology, int a, int b)
{
    Line line;
    Quit quit;
    double result = 0;
    std::thread partner([&] {
        if (pinCurrentThread(topology, b))
            pong(line, quit);
    });
    std::thread([&] {
        if (!pinCurrentThread(topology, a))
            return;
        std::uint64_t n = 1000;
        for (int i = 0; i < 5; ++i) { // warm up and size the batches
            const double start = nowNs();
            ping(line, n);
            n = std::max<std::uint64_t>(
                100, static_cast<std::uint64_t>(kBatchNs / ((nowNs() - start) / static_cast<double>(n))));
        }
        std::vector<double> batches;
        for (int i = 0; i < kBatches; ++i) {
            const double start = nowNs();
            ping(line, n);
            batches.push_back((nowNs() - start) / static_cast<double>(n));
        }
        result = median(batches);
    }).join();
    quit.quit.store(true, std::memory_order_relaxed);
    partner.join();
    return result;
}

} // namespace

int main(int argc, char** argv)
{
    std::optional<std::string> jsonPath;
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--json" && i + 1 < argc) {
            jsonPath = argv[++i];
        } else {
            fmt::print(stderr, "usage: perf_spin [--json FILE]\n");
            return 2;
        }
    }
    auto topology = Topology::loadLive();
    if (!topology || topology->allowedPus().size() < 2) {
        fmt::print(stderr, "perf_spin: needs two allowed CPUs\n");
        return 2;
    }
    const int a = topology->allowedPus()[0];
    const int b = topology->allowedPus()[1];
    std::vector<double> bare, ours;
    for (int round = 0; round < kRounds; ++round) {
        bare.push_back(bareNsPerOp(*topology, a, b));
        BenchSpec spec;
        spec.bench = "spin";
        spec.cpus = { a, b };
        auto r = runBenchmark(spec, *topology);
        if (!r) {
            fmt::print(stderr, "perf_spin: {}\n", r.error().message);
            return 2;
        }
        ours.push_back(r->stats.p50);
    }
    const double b50 = median(bare);
    const double o50 = median(ours);
    const double ratio = o50 / b50;
    const bool met = ratio >= 0.9 && ratio <= 1.1;
    fmt::print("spin round trip on CPUs {},{} ({}), median of {} alternating rounds:\n"
               "  bare loop {:.1f} ns, runner p50 {:.1f} ns, ours / bare {:.3f} (goal 0.9-1.1: {})\n",
        a, b, toString(*relationOf(*topology, a, b)), kRounds, b50, o50, ratio, met ? "met" : "NOT met");
#ifndef NDEBUG
    fmt::print("note: not a release build; run it from the release preset for a meaningful figure\n");
#endif
    if (jsonPath) {
        const nlohmann::json report { { "cpus", { a, b } }, { "bare_ns", b50 }, { "runner_p50_ns", o50 },
            { "ratio", ratio }, { "goal", { 0.9, 1.1 } }, { "bare_rounds_ns", bare }, { "runner_rounds_ns", ours } };
        std::ofstream out(*jsonPath);
        if (!(out << report.dump(2) << '\n')) {
            fmt::print(stderr, "perf_spin: could not write {}\n", *jsonPath);
            return 2;
        }
    }
    return met ? 0 : 1;
}
