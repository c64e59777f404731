// SPDX-License-Identifier: MIT
// spin and spin-futex: the hand-over benchmarks. What must hold on any machine with two
// allowed CPUs: one op is two one-way hand-overs and no context switch, one PU is refused,
// and spin-futex counts every hand-over it made and those that slept.
#include "ctxscope/runner.h"
#include "ctxscope/value_json.h"
#include "live_topology_test.h"

#include <gtest/gtest.h>

using namespace ctxscope;

namespace {

class Spin : public test::LiveTopologyTest {
protected:
    static BenchSpec spec(std::string bench, BenchMode mode, std::vector<int> cpus)
    {
        BenchSpec s;
        s.bench = std::move(bench);
        s.mode = mode;
        s.cpus = std::move(cpus);
        s.iterations = 2000;
        s.repetitions = 2;
        return s;
    }
    // The first two allowed CPUs, or none (the test skips).
    static std::optional<std::vector<int>> twoCpus()
    {
        const std::vector<int> allowed = s_topology->allowedPus();
        if (allowed.size() < 2)
            return std::nullopt;
        return std::vector<int> { allowed[0], allowed[1] };
    }
};

constexpr const char* kOnePuSentence
    = "two spinning tasks on one PU hand over only when the scheduler preempts one; use futex or yield";

} // namespace

TEST_F(Spin, ARoundTripIsTwoOneWayHandOversAndNoSwitchInThreadsAndProcesses)
{
    const auto cpus = twoCpus();
    if (!cpus)
        GTEST_SKIP() << "spin needs two allowed CPUs; this process has one";
    for (BenchMode mode : { BenchMode::Thread, BenchMode::Process }) {
        SCOPED_TRACE(std::string(toString(mode)));
        auto r = runBenchmark(spec("spin", mode, *cpus), *s_topology);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->switchesPerOp, 0);
        EXPECT_FALSE(r->perSwitchNs.has_value()); // a hand-over is not a context switch
        EXPECT_EQ(r->handoffsPerOp, 2);
        ASSERT_TRUE(r->perHandoffNs.has_value());
        EXPECT_DOUBLE_EQ(*r->perHandoffNs, r->stats.p50 / 2);
        EXPECT_FALSE(r->handoffs.has_value()); // spin never sleeps, so it counts nothing
        ASSERT_EQ(r->observed.tasks.size(), 2U);
        EXPECT_EQ(r->observed.tasks[1].pinnedCpu, (*cpus)[1]);
        // A busy-wait makes no system call: the tasks never sleep by themselves.
        EXPECT_LT(r->observed.voluntaryPerOp, 0.01);
    }
}

TEST_F(Spin, OnOnePuItIsRefusedWithTheReason)
{
    const int cpu = s_topology->allowedPus().front();
    for (const char* bench : { "spin" }) {
        auto checked = checkSpec(spec(bench, BenchMode::Thread, { cpu, cpu }), *s_topology);
        ASSERT_FALSE(checked.ok());
        EXPECT_NE(checked.error().message.find(kOnePuSentence), std::string::npos) << checked.error().message;
    }
    BenchSpec sameClass = spec("spin", BenchMode::Process, {});
    sameClass.relation = Relation::SamePu;
    EXPECT_FALSE(checkSpec(sameClass, *s_topology).ok());
}

TEST_F(Spin, ASpinTimeIsOnlyForSpinFutexAndBounded)
{
    const int cpu = s_topology->allowedPus().front();
    BenchSpec futex = spec("futex", BenchMode::Thread, { cpu, cpu });
    futex.spinNs = 1000;
    auto refused = checkSpec(futex, *s_topology);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("only applies to spin-futex"), std::string::npos);
    BenchSpec tooLong = spec("spin-futex", BenchMode::Thread, { cpu, cpu });
    tooLong.spinNs = kMaxSpinNs + 1;
    EXPECT_FALSE(checkSpec(tooLong, *s_topology).ok());
    tooLong.spinNs = 0;
    EXPECT_TRUE(checkSpec(tooLong, *s_topology).ok());
}

TEST_F(Spin, SpinFutexCountsEveryHandOverAndThoseThatSlept)
{
    const int cpu = s_topology->allowedPus().front();
    // On one PU the partner cannot answer while the waiter spins, so hand-overs sleep.
    BenchSpec s = spec("spin-futex", BenchMode::Thread, { cpu, cpu });
    s.spinNs = 0;
    auto r = runBenchmark(s, *s_topology);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r->handoffs.has_value());
    // Each op hands the token over twice; only the measured repetitions are counted.
    EXPECT_EQ(r->handoffs->total, 2 * r->iterations * static_cast<std::uint64_t>(r->repetitions));
    EXPECT_GT(r->handoffs->slept, 0U);
    EXPECT_LE(r->handoffs->slept, r->handoffs->total);
    EXPECT_EQ(r->switchesPerOp, 2); // one PU: every hand-over is a switch
    // The count travels through a results file.
    auto back = resultFromJson(resultToJson(*r, false));
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back->handoffs.has_value());
    EXPECT_EQ(back->handoffs->slept, r->handoffs->slept);
    EXPECT_EQ(back->handoffs->total, r->handoffs->total);
    EXPECT_EQ(back->spec.spinNs, 0U);
    EXPECT_EQ(back->handoffsPerOp, 2);
}
