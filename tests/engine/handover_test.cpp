// SPDX-License-Identifier: MIT
// The hand-over cutter on made-up event sequences whose steps are known to the nanosecond.
#include "ctxscope/handover.h"

#include <gtest/gtest.h>

#include <sys/syscall.h>

namespace ctxscope {
namespace {

constexpr int kA = 101;
constexpr int kB = 102;
constexpr int kCompiler = 500;

TraceEvent ev(
    std::uint64_t ns, int cpu, TraceEventKind kind, int pid, int other = -1, int aux = -1, std::int64_t value = 0)
{
    TraceEvent e;
    e.ns = ns;
    e.cpu = cpu;
    e.kind = kind;
    e.pid = pid;
    e.other = other;
    e.aux = aux;
    e.value = value;
    return e;
}

const TraceSegment* segment(const TraceSummary& s, const std::string& name, bool cross)
{
    for (const auto& seg : s.segments)
        if (seg.name == name && seg.crossCpu == cross)
            return &seg;
    return nullptr;
}

// A on CPU 0 wakes B, asleep on CPU 1 which is idle: the IPI, the idle exit, the switch.
std::vector<TraceEvent> crossCpuHandover(std::uint64_t t0)
{
    using K = TraceEventKind;
    return {
        ev(t0 + 0, 0, K::SysEnter, kA, -1, -1, SYS_futex),
        ev(t0 + 300, 0, K::Waking, kA, kB, 1),
        ev(t0 + 2300, 0, K::IpiSend, kA, -1, 1),
        ev(t0 + 5000, 1, K::IdleExit, 0, -1, 1, -1),
        ev(t0 + 8000, 1, K::Wakeup, 0, kB, 1),
        ev(t0 + 9000, 1, K::Switch, 0, kB),
        ev(t0 + 9500, 1, K::SysExit, kB, -1, -1, SYS_futex),
        ev(t0 + 9700, 1, K::SysEnter, kB, -1, -1, SYS_futex),
    };
}

TEST(Handover, ACrossCpuWakeUpIsCutAtEachEvent)
{
    Trace trace;
    trace.events = crossCpuHandover(1000);
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.handovers, 1U);
    const struct {
        const char* name;
        double ns;
        const char* from;
        const char* to;
    } expected[] = {
        { "wake call", 300, "sys_enter", "sched_waking" },
        { "IPI sent", 2000, "sched_waking", "ipi_send_cpu" },
        { "idle exit", 2700, "ipi_send_cpu", "cpu_idle" },
        { "switch-in", 4000, "cpu_idle", "sched_switch" },
        { "return to user", 500, "sched_switch", "sys_exit" },
        { "in user space", 200, "sys_exit", "sys_enter" },
    };
    ASSERT_EQ(s.segments.size(), std::size(expected));
    for (std::size_t i = 0; i < std::size(expected); ++i) {
        SCOPED_TRACE(expected[i].name);
        EXPECT_EQ(s.segments[i].name, expected[i].name); // in the order a hand-over takes them
        EXPECT_TRUE(s.segments[i].crossCpu);
        EXPECT_EQ(s.segments[i].p50Ns, expected[i].ns);
        EXPECT_EQ(s.segments[i].fromEvent, expected[i].from);
        EXPECT_EQ(s.segments[i].toEvent, expected[i].to);
        EXPECT_EQ(s.segments[i].count, 1U);
    }
    // The steps chain: their sum is the hand-over from the wake call to the wakee's next call.
    finishTraceSummary(s, 1, 9700, 9000, std::nullopt);
    EXPECT_DOUBLE_EQ(s.segmentNsPerOp, 9700);
    EXPECT_TRUE(s.notes.empty()) << s.notes.front();
}

TEST(Handover, ABusyTargetIsPreemptedWithoutAnIdleExit)
{
    using K = TraceEventKind;
    Trace trace;
    trace.events = {
        ev(0, 0, K::SysEnter, kA, -1, -1, SYS_futex),
        ev(100, 0, K::Waking, kA, kB, 1),
        ev(150, 1, K::SysEnter, kCompiler, -1, -1, SYS_read), // another task's call: not measured
        ev(400, 0, K::IpiSend, kA, -1, 1),
        ev(1400, 1, K::Switch, kCompiler, kB, -1, 0), // the compiler preempted (prev_state R)
        ev(1600, 1, K::SysExit, kB, -1, -1, SYS_futex),
    };
    TraceSummary s = cutHandovers(trace, { kA, kB });
    EXPECT_EQ(s.handovers, 1U);
    EXPECT_EQ(segment(s, "idle exit", true), nullptr);
    ASSERT_NE(segment(s, "switch-in", true), nullptr);
    EXPECT_EQ(segment(s, "switch-in", true)->fromEvent, "ipi_send_cpu");
    EXPECT_EQ(segment(s, "switch-in", true)->p50Ns, 1000);
    EXPECT_EQ(s.switchOuts, 0U); // the compiler's switch is not a measured task's
}

TEST(Handover, OnOnePuTheWakerRunsOnUntilItSleeps)
{
    using K = TraceEventKind;
    Trace trace;
    trace.events = {
        ev(0, 0, K::SysEnter, kA, -1, -1, SYS_futex), // A's FUTEX_WAKE
        ev(200, 0, K::Waking, kA, kB, 0),
        ev(500, 0, K::SysExit, kA, -1, -1, SYS_futex),
        ev(600, 0, K::SysEnter, kA, -1, -1, SYS_futex), // A's FUTEX_WAIT
        ev(1100, 0, K::Switch, kA, kB, -1, 1), // A sleeps (S): B runs
        ev(1400, 0, K::SysExit, kB, -1, -1, SYS_futex),
    };
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.handovers, 1U);
    ASSERT_NE(segment(s, "waker runs on", false), nullptr);
    // The wake call is the waker's open call when it woke B: its FUTEX_WAKE, not its wait.
    EXPECT_EQ(segment(s, "wake call", false)->p50Ns, 200);
    EXPECT_EQ(segment(s, "waker runs on", false)->p50Ns, 900);
    EXPECT_EQ(segment(s, "return to user", false)->p50Ns, 300);
    EXPECT_EQ(s.switchOuts, 1U);
}

TEST(Handover, AYieldHandsOverBySwitching)
{
    using K = TraceEventKind;
    Trace trace;
    trace.events = {
        ev(0, 0, K::SysEnter, kA, -1, -1, SYS_sched_yield),
        ev(700, 0, K::Switch, kA, kB, -1, 0),
        ev(900, 0, K::SysExit, kB, -1, -1, SYS_sched_yield),
    };
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.handovers, 1U);
    ASSERT_NE(segment(s, "yield call", false), nullptr);
    EXPECT_EQ(segment(s, "yield call", false)->p50Ns, 700);
}

TEST(Handover, APreemptedTaskThatRunsAgainIsNoHandover)
{
    using K = TraceEventKind;
    Trace trace;
    trace.events = {
        ev(0, 1, K::Switch, kB, kCompiler, -1, 0), // B preempted, still runnable
        ev(4000, 1, K::Switch, kCompiler, kB, -1, 0), // and back: nobody woke it
    };
    TraceSummary s = cutHandovers(trace, { kA, kB });
    EXPECT_EQ(s.handovers, 0U);
    EXPECT_TRUE(s.segments.empty());
    EXPECT_EQ(s.switchOuts, 1U);
}

TEST(Handover, TheChecksSayWhatDisagrees)
{
    Trace trace;
    trace.events = crossCpuHandover(0);
    // The counters say 3 overwritten and 2 refused; the pages flag 4 of the same: 5 lost, not 9.
    trace.losses = { TraceCpuLoss { 1, 3, 2, 4 } };
    TraceSummary s = cutHandovers(trace, { kA, kB });
    // The run took twice what the steps hold, and getrusage counted a switch the trace lacks.
    finishTraceSummary(s, 1, 2 * 9700, 9000, 1.0);
    ASSERT_EQ(s.notes.size(), 3U);
    EXPECT_NE(s.notes[0].find("lost 5 events"), std::string::npos) << s.notes[0];
    EXPECT_NE(s.notes[1].find("50% of the time"), std::string::npos) << s.notes[1];
    EXPECT_NE(s.notes[2].find("getrusage counted 1.000"), std::string::npos) << s.notes[2];
}

// Steps that add up to more than the round trip overlap: the note says so, never "-22% of the
// time is not in a hand-over".
TEST(Handover, StepsLongerThanTheRoundTripAreSaidToOverlap)
{
    Trace trace;
    trace.events = crossCpuHandover(0);
    TraceSummary s = cutHandovers(trace, { kA, kB });
    finishTraceSummary(s, 1, 9700 / 1.25, 9000, std::nullopt);
    ASSERT_EQ(s.notes.size(), 1U);
    EXPECT_NE(s.notes[0].find("25% more than the traced run's 7760 ns: some steps overlap"), std::string::npos)
        << s.notes[0];
    EXPECT_EQ(s.notes[0].find('-'), std::string::npos) << s.notes[0];
}

// The breakdown's "show me one": the hand-over whose step took the median time, where it sits.
TEST(Handover, AStepsExampleIsTheHandoverNearestItsMedian)
{
    Trace trace;
    // Three cross-CPU hand-overs whose IPI takes 2,000, 2,500 and 800 ns: the median is the first.
    for (std::uint64_t t0 : { 1000U, 100000U, 200000U })
        for (TraceEvent e : crossCpuHandover(t0))
            trace.events.push_back(e);
    trace.events[2].ns = 1000 + 300 + 2000; // already: IPI 2,000 ns after sched_waking
    trace.events[8 + 2].ns = 100000 + 300 + 2500;
    trace.events[16 + 2].ns = 200000 + 300 + 800;
    const std::vector<SegmentExample> examples = segmentExamples(trace, { kA, kB });
    const TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(examples.size(), s.segments.size());
    for (std::size_t i = 0; i < examples.size(); ++i) {
        EXPECT_EQ(examples[i].name, s.segments[i].name); // the segments' order
        EXPECT_EQ(examples[i].crossCpu, s.segments[i].crossCpu);
    }
    const SegmentExample& ipi = examples[1];
    ASSERT_EQ(ipi.name, "IPI sent");
    EXPECT_EQ(ipi.ns, 2000);
    EXPECT_EQ(ipi.fromNs, 1300U); // sched_waking of the first hand-over
    EXPECT_EQ(ipi.toNs, 3300U);
    EXPECT_EQ(ipi.fromCpu, 0);
    EXPECT_EQ(ipi.toCpu, 0);
    EXPECT_EQ(ipi.beginNs, 1000U); // its wake call
    EXPECT_EQ(ipi.endNs, 1000U + 9700); // the wakee's next call
    const SegmentExample& in = examples[3];
    ASSERT_EQ(in.name, "switch-in");
    EXPECT_EQ(in.toCpu, 1); // the wakee's CPU
    EXPECT_TRUE(segmentExamples(Trace {}, { kA, kB }).empty());
}

} // namespace
} // namespace ctxscope
