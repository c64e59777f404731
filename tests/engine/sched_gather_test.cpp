// SPDX-License-Identifier: MIT
// watch --trace's bookkeeping on hand-made event sequences: a wait runs from sched_waking, or
// from the switch-out of a preempted thread, to the switch-in; a wake-up seen while the thread
// still ran leaves no stale start behind; a window started after a wake-up still counts the
// run's whole wait; a run whose switch-in the kernel did not record is counted apart.
#include "trace/sched_gather.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using ctxscope::trace::SchedGatherer;

namespace {

constexpr std::int64_t kSleeping = 1; // TASK_INTERRUPTIBLE as prev_state reports it
constexpr std::int64_t kPreempted = 0x100; // R+: TASK_REPORT_MAX, runnable
const std::map<int, std::string> kComms { { 10, "sleeper" }, { 20, "waker" }, { 30, "busy" } };

// TraceEvent's fields in order: ns, cpu, pid, other, aux, value, kind.
TraceEvent waking(std::uint64_t ns, std::int32_t wakee, std::int32_t by, std::int32_t cpu = 0)
{
    return { ns, cpu, by, wakee, -1, 0, TraceEventKind::Waking };
}

TraceEvent switching(
    std::uint64_t ns, std::int32_t prev, std::int64_t prevState, std::int32_t next, std::int32_t cpu = 0)
{
    return { ns, cpu, prev, next, -1, prevState, TraceEventKind::Switch };
}

void feed(SchedGatherer& g, const std::vector<TraceEvent>& events)
{
    for (const auto& e : events)
        g.add(e);
}

// The sleeper's figures since the last take(): one wait, of `ns`.
ThreadSched oneWait(SchedGatherer& g, double ns)
{
    auto out = g.take(0, kComms);
    const ThreadSched s = out.at(10);
    EXPECT_EQ(s.wake.count, 1U);
    EXPECT_DOUBLE_EQ(s.wake.meanNs, ns);
    return s;
}

} // namespace

TEST(SchedGatherer, WaitFromWakingToSwitchIn)
{
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10), // sleeper runs
            switching(2000, 10, kSleeping, 30), // and sleeps
            waking(5000, 10, 20), switching(5700, 30, kPreempted, 10), // runs 700 ns after its wake-up
        });
    const ThreadSched s = oneWait(g, 700);
    EXPECT_EQ(s.switchIns, 2U);
    ASSERT_EQ(s.wakers.size(), 1U);
    EXPECT_EQ(s.wakers[0].name, "waker");
}

TEST(SchedGatherer, PreemptedWaitsFromItsSwitchOut)
{
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10),
            switching(2000, 10, kPreempted, 30), // preempted by busy, still runnable
            switching(2500, 30, kPreempted, 10),
        });
    const ThreadSched s = oneWait(g, 500);
    ASSERT_EQ(s.preemptors.size(), 1U);
    EXPECT_EQ(s.preemptors[0].tid, 30);
}

TEST(SchedGatherer, WakeUpWhileRunningLeavesNoStaleStart)
{
    // Woken while it still ran (the wake-up came before it slept), then it slept again later:
    // its next wait runs from the next wake-up, not from the old one.
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10),
            waking(1500, 10, 20, 1),
            switching(2000, 10, kSleeping, 30),
            waking(90'000, 10, 20, 1),
            switching(90'400, 30, kPreempted, 10),
        });
    oneWait(g, 400);
}

TEST(SchedGatherer, WakeUpRacingTheSwitchOutCountsFromIt)
{
    // Woken on another CPU while still leaving this one, and no wake-up after: runnable from
    // the switch-out on.
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10),
            waking(1990, 10, 20, 1),
            switching(2000, 10, kSleeping, 30),
            switching(2300, 30, kPreempted, 10),
        });
    oneWait(g, 300);
}

TEST(SchedGatherer, WindowStartedAfterTheWakeUpCountsTheWholeWait)
{
    // The watch starts counting at its first reading: a wake-up before it is pending, the
    // switch-in after it is counted with its whole wait; a run before it is not counted.
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10),
            switching(2000, 10, kSleeping, 30),
            waking(5000, 10, 20),
        });
    g.forget(6000);
    feed(g, { switching(8000, 30, kPreempted, 10) });
    const ThreadSched s = oneWait(g, 3000);
    EXPECT_EQ(s.switchIns, 1U);
    EXPECT_TRUE(s.wakers.empty()); // the wake-up was before the window
}

TEST(SchedGatherer, UnrecordedSwitchInIsCountedApart)
{
    // Woken, then seen leaving a CPU it was never seen entering (the kernel dropped the
    // switch-in): one unrecorded run, no wait.
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10), switching(2000, 10, kSleeping, 30), waking(5000, 10, 20),
            switching(6000, 10, kSleeping, 30), // its switch-in was not recorded
        });
    auto out = g.take(0, kComms);
    EXPECT_EQ(out.at(10).switchIns, 1U);
    EXPECT_EQ(out.at(10).unrecordedSwitchIns, 1U);
    EXPECT_EQ(out.at(10).wake.count, 0U);
}

TEST(SchedGatherer, TakeEmptiesTheFiguresAndKeepsWhatIsPending)
{
    SchedGatherer g;
    feed(g, { switching(1000, 30, 0, 10), switching(2000, 10, kSleeping, 30), waking(5000, 10, 20) });
    auto first = g.take(3, kComms);
    EXPECT_EQ(first.at(10).lostEvents, 3U);
    EXPECT_EQ(first.at(10).wake.count, 0U);
    feed(g, { switching(5100, 30, kPreempted, 10, 1) });
    const ThreadSched second = oneWait(g, 100);
    ASSERT_EQ(second.migrations.size(), 1U); // from CPU 0 to CPU 1
    EXPECT_EQ(second.migrations[0].to, 1);
}

// What watch --trace reads instead of /proc: the switches a thread asked for and those forced
// on it, its time on a CPU and waiting for one, its runs, its moves, its state and last CPU.
TEST(SchedGatherer, CountsAddUpWhatProcWouldCount)
{
    SchedGatherer g;
    feed(g,
        {
            switching(1000, 30, 0, 10), // runs 1000..2000 on CPU 0
            switching(2000, 10, kSleeping, 30), // sleeps: voluntary
            waking(5000, 10, 20), switching(5700, 30, kPreempted, 10, 1), // waits 700, runs on CPU 1: a move
            switching(6000, 10, kPreempted, 30, 1), // preempted: involuntary, runnable
            switching(6500, 30, kSleeping, 10, 1), // waits 500, runs again from 6500
        });
    const auto counts = g.counts(7000);
    const SchedCounts& c = counts.at(10);
    EXPECT_EQ(c.voluntary, 1U);
    EXPECT_EQ(c.involuntary, 1U);
    EXPECT_EQ(c.switchIns, 3U);
    EXPECT_EQ(c.runNs, 1000U + 300U + 500U); // the run still going counts up to 7000
    EXPECT_EQ(c.waitNs, 700U + 500U);
    EXPECT_EQ(c.migrations, 1U);
    EXPECT_EQ(c.cpu, 1);
    EXPECT_EQ(c.state, 'R');
    EXPECT_EQ(counts.at(30).state, 'S'); // left CPU 1 to sleep
}

TEST(SchedGatherer, ForgetStartsTheCountsAndARunGoingOnCountsFromThen)
{
    SchedGatherer g;
    feed(g, { switching(1000, 30, 0, 10), switching(2000, 10, kSleeping, 30), switching(3000, 30, kSleeping, 10) });
    g.forget(3500);
    EXPECT_EQ(g.counts(4000).at(10).runNs, 500U); // running since 3000, counted from 3500
    EXPECT_EQ(g.counts(4000).at(10).switchIns, 0U);
    feed(g, { switching(4200, 10, 0x2, 30) }); // leaves in D (uninterruptible)
    const SchedCounts c = g.counts(5000).at(10);
    EXPECT_EQ(c.runNs, 700U);
    EXPECT_EQ(c.voluntary, 1U);
    EXPECT_EQ(c.state, 'D');
}

TEST(SchedGatherer, OnlyFollowedTasksGatherFiguresAndEveryTaskKeepsItsCounts)
{
    // A watch follows its program (10); a busy task of another program (30) is preempted by
    // each of its threads in turn. Its figures are nobody's: none are gathered for it.
    SchedGatherer g;
    g.follow({ 10 });
    feed(g,
        {
            switching(1000, 30, kPreempted, 10), // the sleeper preempts busy
            switching(2000, 10, kSleeping, 30), // busy runs again after 1000 ns runnable
            waking(3000, 10, 20),
            switching(3400, 30, kPreempted, 10),
        });
    const auto out = g.take(0, kComms);
    EXPECT_EQ(out.count(30), 0U);
    ASSERT_EQ(out.count(10), 1U);
    EXPECT_EQ(out.at(10).wake.count, 1U);
    EXPECT_DOUBLE_EQ(out.at(10).wake.meanNs, 400);
    const auto counts = g.counts(4000);
    EXPECT_EQ(counts.at(30).involuntary, 2U);
    EXPECT_EQ(counts.at(30).waitNs, 1000U);
    // Following more later adds to what is gathered.
    g.follow({ 30 });
    feed(g, { switching(5000, 10, kSleeping, 30) }); // busy runs, 1600 ns after its preemption
    EXPECT_DOUBLE_EQ(g.take(0, kComms).at(30).wake.meanNs, 1600);
}
