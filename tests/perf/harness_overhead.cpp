// SPDX-License-Identifier: MIT
// What the harness itself costs: the clock's read cost and resolution, and the time per op
// of `syscall` and `vdso` through the runner (auto K, and K = 1) against a bare loop with no
// harness on the same pinned CPU. Prints figures; asserts nothing (speed depends on the machine).
#include "ctxscope/clock.h"
#include "ctxscope/placement.h"
#include "ctxscope/runner.h"

#include <fmt/core.h>

#include <algorithm>
#include <ctime>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ctxscope;

namespace {

constexpr std::uint64_t kOps = 2'000'000;
constexpr int kRepetitions = 7;

double nowNs()
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

template <typename Op> double bareLoopNsPerOp(const Topology& topology, int cpu, Op op)
{
    std::vector<double> perOp;
    std::thread([&] {
        if (Status s = pinCurrentThread(topology, cpu); !s) {
            fmt::print(stderr, "{}\n", s.error().message);
            return;
        }
        for (int rep = 0; rep < kRepetitions; ++rep) {
            const double start = nowNs();
            for (std::uint64_t i = 0; i < kOps; ++i)
                op();
            perOp.push_back((nowNs() - start) / static_cast<double>(kOps));
        }
    }).join();
    std::sort(perOp.begin(), perOp.end());
    return perOp.empty() ? 0 : perOp[perOp.size() / 2];
}

Expected<RunResult> harness(const Topology& topology, const std::string& bench, int cpu, std::uint64_t k)
{
    BenchSpec spec;
    spec.bench = bench;
    spec.cpus = { cpu };
    spec.iterations = kOps;
    spec.repetitions = kRepetitions;
    spec.opsPerSample = k;
    return runBenchmark(spec, topology);
}

void printClock(const char* label, const ClockInfo& c)
{
    fmt::print("  {:<22} read {:6.2f} ns, resolution {:6.2f} ns{}\n", label, c.readCostNs, c.resolutionNs,
        c.tscGhz > 0 ? fmt::format(", {:.4f} GHz", c.tscGhz) : "");
}

} // namespace

int main()
{
    auto topology = Topology::loadLive();
    if (!topology) {
        fmt::print(stderr, "{}\n", topology.error().message);
        return 1;
    }
    const int cpu = topology->allowedPus().front();

    fmt::print("Clock (measured now):\n");
    printClock("clock_monotonic", measureClock(ClockSource::Monotonic));
    if (tscInvariant())
        printClock("tsc", measureClock(ClockSource::Tsc));
    const ClockInfo& used = measurementClock();
    fmt::print("  the runner uses {}\n\n", toString(used.source));

    fmt::print("Time per op on CPU {}, median of {} x {} ops (bare loop: one clock read per repetition):\n", cpu,
        kRepetitions, kOps);
    fmt::print("  {:<8} {:>10} {:>16} {:>16} {:>12} {:>20}\n", "bench", "bare loop", "runner (auto K)",
        "runner (K = 1)", "auto K", "per-sample cost");
    struct Row {
        const char* bench;
        double bare;
    };
    const Row rows[] = {
        { "syscall", bareLoopNsPerOp(*topology, cpu, [] { ::syscall(SYS_getppid); }) },
        { "vdso",
            bareLoopNsPerOp(*topology, cpu,
                [] {
                    timespec ts {};
                    ::clock_gettime(CLOCK_MONOTONIC, &ts);
                    asm volatile("" : : "r"(&ts) : "memory");
                }) },
    };
    for (const Row& row : rows) {
        auto autoK = harness(*topology, row.bench, cpu, 0);
        auto oneK = harness(*topology, row.bench, cpu, 1);
        if (!autoK || !oneK) {
            fmt::print(stderr, "{}\n", (!autoK ? autoK : oneK).error().message);
            return 1;
        }
        // Means, since the bare loop can only give a mean.
        const double overheadPct = (autoK->stats.mean / row.bare - 1) * 100;
        const double perSample = oneK->stats.mean - row.bare;
        fmt::print("  {:<8} {:>7.2f} ns {:>8.2f} ns {:+5.1f}% {:>8.2f} ns {:+5.0f}% {:>12} {:>17.2f} ns\n", row.bench,
            row.bare, autoK->stats.mean, overheadPct, oneK->stats.mean, (oneK->stats.mean / row.bare - 1) * 100,
            autoK->opsPerSample, perSample);
    }
    fmt::print(
        "\nper-sample cost = runner mean at K = 1 minus the bare loop: one clock read, one store of the sample,\n"
        "the stop check and the call into the kernel, per sample. Auto K spreads it over K ops.\n");
    return 0;
}
