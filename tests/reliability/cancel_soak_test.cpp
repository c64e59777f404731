// SPDX-License-Identifier: MIT
// 200 start -> cancel cycles at a random 0-20 ms for futex and pipe in thread and process
// modes and for a working-set sweep: every cycle ends with "cancelled", and threads,
// descriptors and children are back to where they were. Prints the cancel latencies.
#include "ctxscope/sweep.h"

#include "background_run.h"
#include "cancel_after.h"
#include "proc_helpers.h"
#include "seed.h"

#include <gtest/gtest.h>

#include <random>

using namespace ctxscope;
using namespace std::chrono_literals;

namespace {

constexpr int kCycles = 200;

struct SoakCase {
    const char* name;
    std::function<std::string(std::stop_token)> job;
    const char* cancelled; // the error a cancelled job returns
};

std::string runUntilStopped(const BenchSpec& spec, std::stop_token stop)
{
    auto r = runBenchmark(spec, test::liveTopology(), {}, std::move(stop));
    return r ? std::string() : r.error().message;
}

SoakCase benchCase(const char* name, const char* bench, BenchMode mode)
{
    BenchSpec spec = test::longRun(bench, mode);
    return { name, [spec](std::stop_token stop) { return runUntilStopped(spec, std::move(stop)); },
        "the run was cancelled" };
}

SoakCase sweepCase()
{
    SweepSpec spec;
    spec.base = test::longRun("futex", BenchMode::Thread);
    spec.base.iterations.reset();
    spec.base.minTimeSeconds = 60; // per point: far longer than the cycle
    spec.toBytes = 64 << 10;
    spec.availableBytes = 64 << 20;
    return { "sweep futex thread",
        [spec](std::stop_token stop) {
            auto r = runSweep(spec, test::liveTopology(), {}, std::move(stop));
            return r ? std::string() : r.error().message;
        },
        "the sweep was cancelled" };
}

class CancelSoak : public ::testing::TestWithParam<int> { };

SoakCase soakCase(int index)
{
    switch (index) {
    case 0:
        return benchCase("futex thread", "futex", BenchMode::Thread);
    case 1:
        return benchCase("futex process", "futex", BenchMode::Process);
    case 2:
        return benchCase("pipe thread", "pipe", BenchMode::Thread);
    case 3:
        return benchCase("pipe process", "pipe", BenchMode::Process);
    default:
        return sweepCase();
    }
}

} // namespace

TEST_P(CancelSoak, TwoHundredCyclesLeaveNothingBehind)
{
    const SoakCase c = soakCase(GetParam());
    std::mt19937 random(test::seed());
    std::uniform_int_distribution<int> delayUs(0, 20'000);
    // One cycle first: the clock is calibrated once per process, and a sanitizer runtime may
    // start a helper thread at the first thread creation. Counting starts after it.
    test::cancelAfter(5ms, c.job);
    const int threads = test::threadCount();
    const int fds = test::fdCount();
    ASSERT_TRUE(test::childPids().empty());

    std::vector<std::chrono::microseconds> latencies;
    for (int cycle = 0; cycle < kCycles; ++cycle) {
        const auto result = test::cancelAfter(std::chrono::microseconds(delayUs(random)), c.job);
        latencies.push_back(result.latency);
        ASSERT_EQ(result.error, c.cancelled) << "cycle " << cycle;
        // A hang catcher, not a speed goal: loaded CI machines under ASan are slow.
        ASSERT_LT(result.latency, 2s) << "cycle " << cycle;
        ASSERT_EQ(test::settledThreadCount(threads), threads) << "cycle " << cycle;
        ASSERT_EQ(test::fdCount(), fds) << "cycle " << cycle;
        ASSERT_TRUE(test::childPids().empty()) << "cycle " << cycle;
    }
    const auto s = test::summarize(latencies);
    std::printf("cancel latency, %s, %d cycles: p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 < 50 ms: %s)\n",
        c.name, kCycles, s.p50Ms, s.p99Ms, s.maxMs, s.p99Ms < 50 ? "met" : "MISSED");
    RecordProperty("p50_ms", std::to_string(s.p50Ms));
    RecordProperty("p99_ms", std::to_string(s.p99Ms));
    RecordProperty("max_ms", std::to_string(s.maxMs));
}

namespace {

std::string caseName(const ::testing::TestParamInfo<int>& info)
{
    static const char* const names[] = { "FutexThread", "FutexProcess", "PipeThread", "PipeProcess", "Sweep" };
    return names[info.param];
}

} // namespace

INSTANTIATE_TEST_SUITE_P(Reliability, CancelSoak, ::testing::Range(0, 5), caseName);
