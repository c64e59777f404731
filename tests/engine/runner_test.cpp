// SPDX-License-Identifier: MIT
// Each benchmark, run briefly on this machine, checked for what must hold on any machine:
// only CPUs the live topology reports as allowed are used.
#include "ctxscope/runner.h"
#include "live_topology_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

using namespace ctxscope;

namespace {

class Runner : public test::LiveTopologyTest {
protected:
    static int firstCpu() { return s_topology->allowedPus().front(); }

    static BenchSpec spec(std::string bench, BenchMode mode, std::vector<int> cpus, std::uint64_t iterations)
    {
        BenchSpec s;
        s.bench = std::move(bench);
        s.mode = mode;
        s.cpus = std::move(cpus);
        s.iterations = iterations;
        s.repetitions = 2;
        return s;
    }

    static RunResult run(const BenchSpec& s)
    {
        auto r = runBenchmark(s, *s_topology);
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        if (!r.ok())
            return {};
        return std::move(*r);
    }
};

// The facts every result must carry whatever the benchmark.
void expectWellFormed(const RunResult& r)
{
    EXPECT_GT(r.stats.p50, 0);
    EXPECT_GT(r.stats.min, 0);
    EXPECT_LE(r.stats.min, r.stats.p50);
    EXPECT_LE(r.stats.p50, r.stats.p99);
    EXPECT_LE(r.stats.p99, r.stats.max);
    EXPECT_GE(r.opsPerSample, 1U);
    EXPECT_EQ(r.totalSamples,
        static_cast<std::uint64_t>(r.repetitions) * ((r.iterations + r.opsPerSample - 1) / r.opsPerSample));
    EXPECT_EQ(r.samples.size(), r.totalSamples); // under the raw cap
    EXPECT_EQ(r.repetitionMedians.size(), static_cast<std::size_t>(r.repetitions));
    const auto histogramTotal = std::accumulate(
        r.histogram.begin(), r.histogram.end(), std::uint64_t { 0 }, [](auto a, const auto& b) { return a + b.count; });
    EXPECT_EQ(histogramTotal, r.totalSamples);
    EXPECT_GT(r.clock.readCostNs, 0);
    EXPECT_GT(r.clock.nsPerTick, 0);
    EXPECT_FALSE(r.op.empty());
    EXPECT_EQ(r.observed.tasks.size(), static_cast<std::size_t>(r.placement.tasks));
    if (r.switchesPerOp > 0) {
        ASSERT_TRUE(r.perSwitchNs.has_value());
        EXPECT_DOUBLE_EQ(*r.perSwitchNs, r.stats.p50 / r.switchesPerOp);
    } else {
        EXPECT_FALSE(r.perSwitchNs.has_value());
    }
    for (const auto& t : r.observed.tasks) {
        if (t.pinnedCpu >= 0) {
            EXPECT_EQ(t.cpusSeen, std::vector<int> { t.pinnedCpu });
        }
    }
}

void expectSwitchesNear(const RunResult& r, double want)
{
    EXPECT_DOUBLE_EQ(r.switchesPerOp, want);
    EXPECT_NEAR(r.observed.switchesPerOp(), want, want * 0.1)
        << r.bench << " " << toString(r.mode) << ": voluntary " << r.observed.voluntaryPerOp << " involuntary "
        << r.observed.involuntaryPerOp;
    std::printf("%s %s: %.3f voluntary + %.3f involuntary switches per op\n", r.bench.c_str(),
        std::string(toString(r.mode)).c_str(), r.observed.voluntaryPerOp, r.observed.involuntaryPerOp);
    if (r.observed.perfSwitchesPerOp) {
        EXPECT_NEAR(*r.observed.perfSwitchesPerOp, want, want * 0.1);
    } else {
        EXPECT_NE(r.observed.perfStatus.find("not"), std::string::npos);
    }
}

} // namespace

TEST_F(Runner, SyscallAndVdsoHoldNoSwitch)
{
    for (const char* bench : { "syscall", "vdso" }) {
        const RunResult r = run(spec(bench, BenchMode::Thread, { firstCpu() }, 200'000));
        expectWellFormed(r);
        EXPECT_EQ(r.switchesPerOp, 0);
        EXPECT_LT(r.observed.voluntaryPerOp, 0.001) << bench;
        EXPECT_EQ(r.placement.relation, Relation::SamePu);
    }
}

TEST_F(Runner, NanosecondOpsUseManyOpsPerSample)
{
    const RunResult r = run(spec("vdso", BenchMode::Thread, { firstCpu() }, 200'000));
    // The clock read must be under 1% of a sample: K * time per op >= 100 * read cost,
    // judged on the run's own figures with a factor 4 of slack for their noise (K is
    // calibrated before the samples are taken; on a loaded machine, or under TSan beside
    // another test, the calibration saw slower ops than the samples did: 24 reads seen once).
    // K = 1 for a ~30 ns op still fails by far.
    EXPECT_GE(static_cast<double>(r.opsPerSample) * r.stats.p50, 25 * r.clock.readCostNs);
}

TEST_F(Runner, FutexAndPipeRoundTripsHoldTwoSwitchesOnOnePu)
{
    const int cpu = firstCpu();
    for (const char* bench : { "futex", "pipe" })
        for (BenchMode mode : { BenchMode::Thread, BenchMode::Process }) {
            SCOPED_TRACE(std::string(bench) + " " + std::string(toString(mode)));
            const RunResult r = run(spec(bench, mode, { cpu, cpu }, 5000));
            expectWellFormed(r);
            expectSwitchesNear(r, 2);
            EXPECT_EQ(r.opsPerSample, 1U); // an op with switches is timed alone
        }
}

TEST_F(Runner, RingOfNOnOnePuHoldsNSwitchesPerLap)
{
    for (BenchMode mode : { BenchMode::Thread, BenchMode::Process }) {
        BenchSpec s = spec("ring", mode, { firstCpu() }, 2000);
        s.tasks = 5;
        const RunResult r = run(s);
        expectWellFormed(r);
        EXPECT_EQ(r.placement.tasks, 5);
        EXPECT_EQ(r.placement.cpus, std::vector<int>(5, firstCpu()));
        // Every task sleeps once per lap: 5 voluntary switches. A wake-up may also preempt the
        // waker, which then runs once more just to sleep: extra involuntary switches on top.
        EXPECT_EQ(r.switchesPerOp, 5);
        EXPECT_NEAR(r.observed.voluntaryPerOp, 5, 0.5) << toString(mode);
        EXPECT_GE(r.observed.switchesPerOp(), 4.5);
        if (r.observed.perfSwitchesPerOp) {
            EXPECT_GE(*r.observed.perfSwitchesPerOp, 4.5); // counted in the check phase
        }
    }
}

TEST_F(Runner, YieldIsASwitchOnlyOnOnePu)
{
    const int cpu = firstCpu();
    const RunResult r = run(spec("yield", BenchMode::Thread, { cpu, cpu }, 5000));
    expectWellFormed(r);
    expectSwitchesNear(r, 2);
    const auto allowed = s_topology->allowedPus();
    if (allowed.size() >= 2) {
        // On two PUs the benchmark claims no switch (what it observes depends on other load).
        const RunResult apart = run(spec("yield", BenchMode::Thread, { allowed[0], allowed[1] }, 5000));
        EXPECT_EQ(apart.switchesPerOp, 0);
        EXPECT_FALSE(apart.perSwitchNs.has_value());
    }
}

TEST_F(Runner, SyscallIsCheaperThanAFutexRoundTrip)
{
    const int cpu = firstCpu();
    const RunResult sys = run(spec("syscall", BenchMode::Thread, { cpu }, 100'000));
    const RunResult futex = run(spec("futex", BenchMode::Thread, { cpu, cpu }, 5000));
    EXPECT_LT(sys.stats.p50, futex.stats.p50);
}

TEST_F(Runner, CalibratesToTheMinimumTime)
{
    BenchSpec s = spec("syscall", BenchMode::Thread, { firstCpu() }, 1);
    s.iterations.reset();
    s.minTimeSeconds = 0.02;
    s.repetitions = 1;
    const RunResult r = run(s);
    expectWellFormed(r);
    // iterations * time per op reaches the minimum time (mean, since the sum is what counts).
    EXPECT_GE(static_cast<double>(r.iterations) * r.stats.mean, 0.02e9 * 0.5);
    EXPECT_GT(r.iterations, 1U);
}

TEST_F(Runner, UnpinnedRecordsWhereTasksRan)
{
    BenchSpec s = spec("futex", BenchMode::Thread, {}, 2000);
    s.relation = Relation::Unpinned;
    const RunResult r = run(s);
    expectWellFormed(r);
    EXPECT_TRUE(r.placement.cpus.empty());
    EXPECT_EQ(r.placement.relation, Relation::Unpinned);
    ASSERT_FALSE(r.observed.cpusSeen.empty());
    const auto allowed = s_topology->affinityPus();
    for (int cpu : r.observed.cpusSeen)
        EXPECT_TRUE(std::find(allowed.begin(), allowed.end(), cpu) != allowed.end()) << cpu;
    for (const auto& t : r.observed.tasks) {
        EXPECT_EQ(t.pinnedCpu, -1);
        EXPECT_FALSE(t.cpusSeen.empty());
    }
}

TEST_F(Runner, DefaultPlacementIsSamePuOnTheFirstAllowedCpu)
{
    BenchSpec s = spec("futex", BenchMode::Thread, {}, 1000);
    const RunResult r = run(s);
    EXPECT_EQ(r.placement.cpus, (std::vector<int> { firstCpu(), firstCpu() }));
    EXPECT_EQ(r.placement.relation, Relation::SamePu);
}

TEST_F(Runner, FifoRunsOrSaysWhyNot)
{
    BenchSpec s = spec("futex", BenchMode::Process, { firstCpu(), firstCpu() }, 1000);
    s.policy = SchedPolicy::Fifo;
    const RunResult r = run(s);
    expectWellFormed(r);
    if (r.policy == SchedPolicy::Other) {
        const bool said = std::any_of(r.warnings.begin(), r.warnings.end(),
            [](const std::string& w) { return w.find("SCHED_FIFO was not permitted") != std::string::npos; });
        EXPECT_TRUE(said);
    }
}

TEST_F(Runner, SamplesStreamToTheSinkInOrder)
{
    std::vector<double> streamed;
    int progressCalls = 0;
    RunCallbacks callbacks;
    int lastRep = 0;
    std::uint64_t expectedIndex = 0;
    callbacks.samples = [&](const SampleBatch& b) {
        if (b.repetition != lastRep) {
            lastRep = b.repetition;
            expectedIndex = 0;
        }
        EXPECT_EQ(b.firstIndex, expectedIndex);
        expectedIndex += b.nsPerOp.size();
        streamed.insert(streamed.end(), b.nsPerOp.begin(), b.nsPerOp.end());
    };
    callbacks.progress = [&](const Progress& p) {
        ++progressCalls;
        EXPECT_GE(p.fraction, 0);
        EXPECT_LE(p.fraction, 1);
    };
    BenchSpec s = spec("pipe", BenchMode::Thread, { firstCpu(), firstCpu() }, 3000);
    auto r = runBenchmark(s, *s_topology, callbacks);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(streamed, r->samples);
    EXPECT_GT(progressCalls, 0);
}

TEST_F(Runner, ASinkThatThrowsEndsTheRunWithAnError)
{
    RunCallbacks callbacks;
    callbacks.samples = [](const SampleBatch&) { throw std::runtime_error("disk full"); };
    BenchSpec s = spec("futex", BenchMode::Process, { firstCpu(), firstCpu() }, 200'000);
    auto r = runBenchmark(s, *s_topology, callbacks);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("disk full"), std::string::npos) << r.error().message;
}
