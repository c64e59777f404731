// SPDX-License-Identifier: MIT
// What the harness itself costs: the clock's read cost and resolution, and the time per op
// of `syscall` and `vdso` through the runner against a bare loop with no harness on the same
// pinned CPU. Everything runs at SCHED_FIFO when permitted, so other work on the machine does
// not preempt it. Prints figures; asserts nothing (speed depends on the machine).
#include "ctxscope/clock.h"
#include "ctxscope/placement.h"
#include "ctxscope/runner.h"

#include <fmt/core.h>

#include <algorithm>
#include <ctime>
#include <pthread.h>
#include <sched.h>
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
        const sched_param param { 1 };
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &param); // best effort, like the runner's
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
    spec.policy = SchedPolicy::Fifo;
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

    fmt::print("Time per op on CPU {}, {} x {} ops. Bare loop: mean (one clock read per repetition, median of the\n"
               "repetitions). Runner: mean and p50 per op; per-sample cost = p50 at K = 1 minus p50 at K = 1000.\n",
        cpu, kRepetitions, kOps);
    fmt::print("  {:<8} {:>10} {:>22} {:>10} {:>10} {:>10} {:>14}\n", "bench", "bare mean", "runner mean (auto K)",
        "auto K", "p50 K=1", "p50 K=1000", "per sample");
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
        auto bigK = harness(*topology, row.bench, cpu, 1000);
        for (const auto* r : { &autoK, &oneK, &bigK })
            if (!*r) {
                fmt::print(stderr, "{}\n", r->error().message);
                return 1;
            }
        fmt::print("  {:<8} {:>7.2f} ns {:>10.2f} ns ({:+5.1f}%) {:>10} {:>7.2f} ns {:>7.2f} ns {:>11.2f} ns{}\n",
            row.bench, row.bare, autoK->stats.mean, (autoK->stats.mean / row.bare - 1) * 100, autoK->opsPerSample,
            oneK->stats.p50, bigK->stats.p50, oneK->stats.p50 - bigK->stats.p50,
            autoK->policy == SchedPolicy::Fifo ? "" : " (SCHED_OTHER)");
    }
    fmt::print("\nThe per-sample cost is one clock read, one store of the sample, the stop check and the call\n"
               "into the kernel; auto K spreads it over K ops so that it stays near 1% of a sample.\n");
    return 0;
}
