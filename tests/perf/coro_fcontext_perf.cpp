// SPDX-License-Identifier: MIT
// Harness overhead on the cheapest op we have: coro-fcontext through the runner (pinning,
// samples of K ops, statistics) against a bare Boost.Context loop with the same body on the
// same CPU, in this process. Goal: the harness adds at most 10% to the time per op.
// Exit status 0 when the goal holds, 1 when not, 2 when it could not run.
#include "ctxscope/runner.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <sched.h>
#include <vector>

namespace ctx = boost::context;
using namespace ctxscope;

namespace {

constexpr double kGoal = 0.10;
constexpr int kRounds = 5;
constexpr std::uint64_t kBatchOps = 20'000; // one clock read per batch: negligible
constexpr int kBatches = 200;

template <typename T> void doNotOptimize(T& value) { asm volatile("" : "+r,m"(value) : : "memory"); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The same fiber and body as the coro-fcontext kernel, timed in batches; the median batch
// (ns per op) is as robust to preemption as the runner's median sample.
double bareNsPerOp()
{
    bool quit = false;
    std::uint64_t count = 0;
    ctx::fiber fiber(std::allocator_arg, ctx::protected_fixedsize_stack(64 * 1024), [&](ctx::fiber&& caller) {
        while (!quit) {
            ++count;
            doNotOptimize(count);
            caller = std::move(caller).resume();
        }
        return std::move(caller);
    });
    std::vector<double> batches;
    for (int b = 0; b < kBatches + 10; ++b) {
        const auto start = std::chrono::steady_clock::now();
        for (std::uint64_t i = 0; i < kBatchOps; ++i)
            fiber = std::move(fiber).resume();
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
        if (b >= 10) // the first batches are the warm-up
            batches.push_back(ns / static_cast<double>(kBatchOps));
    }
    quit = true;
    fiber = std::move(fiber).resume();
    return median(batches);
}

} // namespace

int main()
{
    auto topology = Topology::loadLive();
    if (!topology) {
        fmt::print(stderr, "perf_coro_fcontext: {}\n", topology.error().message);
        return 2;
    }
    const int cpu = topology->allowedPus().front();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<unsigned>(cpu), &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0) {
        fmt::print(stderr, "perf_coro_fcontext: could not pin to CPU {}\n", cpu);
        return 2;
    }
    BenchSpec spec;
    spec.bench = "coro-fcontext";
    spec.cpus = { cpu };
    spec.minTimeSeconds = 0.2;
    spec.repetitions = 5;

    // Interleaved rounds so a change in machine load hits both sides alike.
    std::vector<double> bare;
    std::vector<double> harness;
    std::uint64_t k = 0;
    for (int round = 0; round < kRounds; ++round) {
        bare.push_back(bareNsPerOp());
        auto r = runBenchmark(spec, *topology);
        if (!r) {
            fmt::print(stderr, "perf_coro_fcontext: {}\n", r.error().message);
            return 2;
        }
        harness.push_back(r->stats.p50);
        k = r->opsPerSample;
        fmt::print("round {}: bare {:.2f} ns per op, harness {:.2f} ns per op (K = {})\n", round + 1, bare.back(),
            harness.back(), k);
    }
    const double b = median(bare);
    const double h = median(harness);
    const double overhead = h / b - 1;
    fmt::print("coro-fcontext on CPU {}: bare Boost.Context loop {:.2f} ns per op, through the runner {:.2f} ns per "
               "op: harness overhead {:+.1f}% (goal <= {:.0f}%)\n",
        cpu, b, h, overhead * 100, kGoal * 100);
#ifndef NDEBUG
    fmt::print("note: this is not a release build; run it from the release preset for a meaningful figure\n");
#endif
    return overhead <= kGoal ? 0 : 1;
}
