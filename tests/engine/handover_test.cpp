// SPDX-License-Identifier: MIT
// The hand-over cutter on made-up event sequences whose steps are known to the nanosecond.
#include "ctxscope/handover.h"
#include "ctxscope/handover_step.h"
#include "ctxscope/traced_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

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
    EXPECT_EQ(s.targetStates.idle, 1U); // the switch-in came from the idle task
    EXPECT_EQ(s.targetStates.total(), 1U);
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

TEST(Handover, ABusyTargetIsPreemptedWithoutAnIdleExitAndTheTaskIsNamed)
{
    using K = TraceEventKind;
    Trace trace;
    trace.comms = { { kCompiler, "cc1plus" } };
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
    EXPECT_EQ(segment(s, "switch-in", true), nullptr);
    const TraceSegment* preempting = segment(s, "preempting cc1plus", true);
    ASSERT_NE(preempting, nullptr);
    EXPECT_EQ(preempting->fromEvent, "ipi_send_cpu");
    EXPECT_EQ(preempting->p50Ns, 1000);
    EXPECT_EQ(s.switchOuts, 0U); // the compiler's switch is not a measured task's
    EXPECT_EQ(s.targetStates.preempting, 1U);
    EXPECT_EQ(s.targetStates.idle + s.targetStates.waiting + s.targetStates.unknown, 0U);
    ASSERT_EQ(s.preempted.size(), 1U);
    EXPECT_EQ(s.preempted[0].comm, "cc1plus");
    EXPECT_EQ(s.preempted[0].pid, kCompiler);
    EXPECT_TRUE(s.waitedBehind.empty());
}

// The compiler keeps CPU 1 for 3 ms after the wake-up: the wakee waited behind it in the run
// queue, and that is no switch.
std::vector<TraceEvent> waitBehindCompiler(std::uint64_t t0)
{
    using K = TraceEventKind;
    return {
        ev(t0 + 0, 1, K::Switch, 0, kCompiler, -1, 0), // CPU 1 was idle; the compiler runs
        ev(t0 + 1000, 0, K::SysEnter, kA, -1, -1, SYS_futex),
        ev(t0 + 1100, 0, K::Waking, kA, kB, 1),
        ev(t0 + 1400, 0, K::IpiSend, kA, -1, 1),
        ev(t0 + 3'001'400, 1, K::Switch, kCompiler, kB, -1, 0), // at its tick, still runnable
        ev(t0 + 3'001'600, 1, K::SysExit, kB, -1, -1, SYS_futex),
    };
}

TEST(Handover, ATaskThatKeptTheCpuIsWaitedBehindNotSwitched)
{
    Trace trace;
    trace.comms = { { kCompiler, "cc1plus" } };
    trace.events = waitBehindCompiler(0);
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.handovers, 1U);
    EXPECT_EQ(segment(s, "switch-in", true), nullptr);
    const TraceSegment* waited = segment(s, "waiting behind cc1plus", true);
    ASSERT_NE(waited, nullptr);
    EXPECT_EQ(waited->p50Ns, 3'000'000);
    EXPECT_EQ(waited->fromEvent, "ipi_send_cpu");
    EXPECT_EQ(s.targetStates.waiting, 1U);
    EXPECT_EQ(s.targetStates.waitingBehindOthers, 1U);
    ASSERT_EQ(s.waitedBehind.size(), 1U);
    EXPECT_EQ(s.waitedBehind[0].comm, "cc1plus");
    EXPECT_EQ(s.waitedBehind[0].ns, 3'000'300); // from the wake-up to the switch-in
    EXPECT_TRUE(s.preempted.empty());
    // Every hand-over waited behind another program: the run was disturbed, and its
    // interference, read from the trace, names the compiler on CPU 1.
    EXPECT_TRUE(traceDisturbed(s));
    EXPECT_NE(waitedBehindCause(s).find("cc1plus (PID 500)"), std::string::npos) << waitedBehindCause(s);
    const auto i = traceInterference(s);
    ASSERT_TRUE(i.has_value());
    ASSERT_FALSE(i->topTasks.empty());
    EXPECT_EQ(i->topTasks[0].comm, "cc1plus");
    EXPECT_EQ(i->topTasks[0].cpu, 1);
    EXPECT_GT(i->maxOtherShare(), 0.99); // it ran the whole trace on CPU 1
    EXPECT_NE(formatTraceSummary(s).find("waited behind"), std::string::npos);
}

// A task that sleeps before the wakee runs was waited behind too, as were the tasks after it.
TEST(Handover, TasksRunBeforeTheWakeeAreEachChargedTheirPartOfTheWait)
{
    using K = TraceEventKind;
    constexpr int kShell = 600;
    Trace trace;
    trace.comms = { { kCompiler, "cc1plus" }, { kShell, "sh" } };
    trace.events = {
        ev(0, 1, K::Switch, 0, kCompiler, -1, 0), ev(1000, 0, K::Waking, kA, kB, 1),
        ev(1500, 1, K::Switch, kCompiler, kShell, -1, 1), // the compiler sleeps (S) after 500 ns
        ev(5000, 1, K::Switch, kShell, kB, -1, 0), // the shell ran 3,500 ns
    };
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.targetStates.waiting, 1U);
    ASSERT_NE(segment(s, "waiting behind sh", true), nullptr); // the one that ran longest
    ASSERT_EQ(s.waitedBehind.size(), 2U);
    EXPECT_EQ(s.waitedBehind[0].comm, "sh");
    EXPECT_EQ(s.waitedBehind[0].ns, 3500);
    EXPECT_EQ(s.waitedBehind[1].comm, "cc1plus");
    EXPECT_EQ(s.waitedBehind[1].ns, 500);
}

// The keep-awake thread is preempted at every wake-up: named as such, and never interference.
TEST(Handover, AKeepAwakeThreadIsPreemptedAndNeverInterference)
{
    using K = TraceEventKind;
    constexpr int kAwake = 700;
    Trace trace;
    trace.comms = { { kAwake, "ctxscope-awake" } };
    trace.events = {
        ev(0, 1, K::Switch, 0, kAwake, -1, 0),
        ev(1000, 0, K::SysEnter, kA, -1, -1, SYS_futex),
        ev(1100, 0, K::Waking, kA, kB, 1),
        ev(1300, 0, K::IpiSend, kA, -1, 1),
        ev(4300, 1, K::Switch, kAwake, kB, -1, 0),
        ev(9000, 1, K::Switch, kB, kAwake, -1, 1),
        ev(20000, 0, K::SysExit, kA, -1, -1, SYS_futex),
    };
    TraceSummary s = cutHandovers(trace, { kA, kB }, { kAwake });
    ASSERT_NE(segment(s, "preempting keep-awake", true), nullptr);
    EXPECT_EQ(s.targetStates.preempting, 1U);
    EXPECT_FALSE(traceDisturbed(s));
    ASSERT_EQ(s.cpuTime.size(), 1U);
    EXPECT_EQ(s.cpuTime[0].otherNs, 0);
    EXPECT_EQ(s.cpuTime[0].keepAwakeNs, 4300 + 11000);
    EXPECT_TRUE(s.others.empty());
    EXPECT_EQ(traceInterference(s)->maxOtherShare(), 0);
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

// CPU 1 entered idle state `state` before each of two cross-CPU hand-overs; the idle exits
// took 2,700 and 4,700 ns.
Trace idleStateTrace(int state)
{
    Trace trace;
    for (std::uint64_t t0 : { 1000U, 100000U }) {
        trace.events.push_back(ev(t0 - 500, 1, TraceEventKind::IdleEnter, 0, -1, 1, state));
        for (TraceEvent e : crossCpuHandover(t0))
            trace.events.push_back(e);
    }
    trace.events[9 + 4].ns += 2000; // the second hand-over's idle exit, 2,000 ns later
    return trace;
}

TEST(Handover, TheIdleExitNamesTheCpuidleStateItLeft)
{
    const Trace trace = idleStateTrace(2);
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.idleStates.size(), 1U);
    EXPECT_EQ(s.idleStates[0].state, 2);
    EXPECT_EQ(s.idleStates[0].count, 2U);
    CpuIdleConfig config;
    config.driver = "intel_idle";
    config.states
        = { { "POLL", 0, false, 0 }, { "C1", 2, false, 1 }, { "C1E", 10, false, 2 }, { "C6", 133, false, 3 } };
    nameIdleStates(s, config);
    EXPECT_EQ(s.idleDriver, "intel_idle");
    EXPECT_EQ(s.idleStates[0].name, "C1E");
    ASSERT_TRUE(s.idleStates[0].declaredExitNs.has_value());
    EXPECT_EQ(*s.idleStates[0].declaredExitNs, 10000);
    EXPECT_EQ(s.idleStates[0].p50Ns, 2700 + 0.5 * 2000); // the two exits' median
    EXPECT_EQ(s.idleStates[0].p90Ns, 2700 + 0.9 * 2000);
    EXPECT_TRUE(s.idleStates[0].note.empty());
    EXPECT_NE(formatTraceSummary(s).find("C1E"), std::string::npos) << formatTraceSummary(s);
}

TEST(Handover, WithoutACpuidleDriverTheIdleExitIsTheDefaultIdleSaidToBeAHypervisorExitOnAVm)
{
    const Trace trace = idleStateTrace(1);
    TraceSummary s = cutHandovers(trace, { kA, kB });
    ASSERT_EQ(s.idleStates.size(), 1U);
    CpuIdleConfig none;
    none.driver = "none";
    nameIdleStates(s, none);
    EXPECT_EQ(s.idleDriver, "none");
#if defined(__x86_64__) || defined(__i386__)
    EXPECT_EQ(s.idleStates[0].name, "HLT");
#endif
    EXPECT_FALSE(s.idleStates[0].declaredExitNs.has_value());
    EXPECT_EQ(s.idleStates[0].note, "no cpuidle driver: on a VM, an exit to the hypervisor");
    EXPECT_EQ(s.idleStates[0].count, 2U);
    EXPECT_EQ(s.idleStates[0].p50Ns, 2700 + 0.5 * 2000);
    // No cpu_idle entry before an exit: the state is not known, and says so.
    Trace bare;
    bare.events = crossCpuHandover(1000);
    TraceSummary b = cutHandovers(bare, { kA, kB });
    ASSERT_EQ(b.idleStates.size(), 1U);
    nameIdleStates(b, none);
    EXPECT_EQ(b.idleStates[0].name, "unknown");
}

TEST(Handover, CpuidlesStatesAreReadFromSysfs)
{
    const std::filesystem::path root = std::filesystem::temp_directory_path() / "ctxscope-cpuidle-test";
    std::filesystem::remove_all(root);
    const auto write = [&](const std::string& file, const std::string& text) {
        std::filesystem::create_directories((root / file).parent_path());
        std::ofstream(root / file) << text << "\n";
    };
    write("cpuidle/current_driver", "acpi_idle");
    write("cpuidle/current_governor_ro", "menu");
    write("cpu1/cpuidle/state0/name", "POLL");
    write("cpu1/cpuidle/state0/latency", "0");
    write("cpu1/cpuidle/state1/name", "C1");
    write("cpu1/cpuidle/state1/latency", "1");
    write("cpu1/cpuidle/state2/name", "C3");
    write("cpu1/cpuidle/state2/latency", "100");
    const CpuIdleConfig c = readCpuIdle(1, root.string());
    EXPECT_EQ(c.driver, "acpi_idle");
    EXPECT_EQ(c.governor, "menu");
    ASSERT_EQ(c.states.size(), 3U);
    EXPECT_EQ(c.states[2].name, "C3");
    EXPECT_EQ(c.states[2].exitLatencyUs, 100);
    EXPECT_TRUE(c.hasDriver());
    // This VM's case: no driver, no states.
    const CpuIdleConfig none = readCpuIdle(0, root.string());
    EXPECT_TRUE(none.states.empty());
    EXPECT_FALSE(none.hasDriver());
    std::filesystem::remove_all(root);
}

// Unpinned: where the kernel put each wakee, against a trace whose choices are known. B is put on
// its waker's CPU, then A on an idle CPU it did not last run on, then B on a CPU busy with the
// compiler, which the wake-up preempts.
TEST(Handover, WhereTheKernelPutTheWakeeIsCountedByChoice)
{
    using K = TraceEventKind;
    Trace trace;
    trace.comms = { { kCompiler, "cc1plus" } };
    trace.events = {
        ev(0, 1, K::Switch, 0, kCompiler, -1, 0), // CPU 1 runs the compiler
        ev(10, 0, K::Switch, 0, kA, -1, 0), // A runs on CPU 0
        // 1: A wakes B onto CPU 0 (the waker's CPU), then sleeps.
        ev(100, 0, K::Waking, kA, kB, 0),
        ev(500, 0, K::Switch, kA, kB, -1, 1),
        // 2: B wakes A onto CPU 2, idle (A last ran on CPU 0: migrated).
        ev(1000, 0, K::Waking, kB, kA, 2),
        ev(3000, 2, K::Switch, 0, kA, -1, 0),
        // B sleeps; 3: A wakes B onto CPU 1, busy with the compiler (B last ran on CPU 0: migrated).
        ev(3100, 0, K::Switch, kB, 0, -1, 1),
        ev(4000, 2, K::Waking, kA, kB, 1),
        ev(6000, 1, K::Switch, kCompiler, kB, -1, 0),
    };
    const TraceSummary s = cutHandovers(trace, { kA, kB });
    EXPECT_EQ(s.placement.wakerCpu, 1U);
    EXPECT_EQ(s.placement.idleCpu, 1U);
    EXPECT_EQ(s.placement.busyCpu, 1U);
    EXPECT_EQ(s.placement.migrated, 2U);
    EXPECT_EQ(s.placement.total(), 3U);
    // Each choice's cost: its own steps.
    EXPECT_NE(segment(s, "waker runs on", false), nullptr);
    EXPECT_NE(segment(s, "switch-in", true), nullptr);
    EXPECT_NE(segment(s, "preempting cc1plus", true), nullptr);
    EXPECT_NE(formatTraceSummary(s).find("on the waker's CPU 33%"), std::string::npos) << formatTraceSummary(s);
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

// A traced run that switched far less often than the untraced one handed over another way: said,
// and not within 10%.
TEST(Handover, ATracedRunThatSwitchedLessThanTheUntracedOneSaysSo)
{
    Trace trace;
    trace.events = crossCpuHandover(0);
    auto saysSo = [](const TraceSummary& s) {
        return std::any_of(s.notes.begin(), s.notes.end(),
            [](const std::string& n) { return n.find("times per op, the untraced run") != std::string::npos; });
    };
    for (double untraced : { 2.1, 2.22, 1.82 }) {
        TraceSummary s = cutHandovers(trace, { kA, kB });
        finishTraceSummary(s, 1, 9700, 9000, 2.0, untraced);
        EXPECT_FALSE(saysSo(s)) << untraced;
    }
    TraceSummary fewer = cutHandovers(trace, { kA, kB });
    finishTraceSummary(fewer, 1, 9700, 9000, 1.11, 1.99);
    ASSERT_TRUE(saysSo(fewer));
    EXPECT_NE(fewer.notes.back().find("switched 1.11 times per op, the untraced run 1.99"), std::string::npos)
        << fewer.notes.back();
    TraceSummary unknown = cutHandovers(trace, { kA, kB });
    finishTraceSummary(unknown, 1, 9700, 9000, 1.11);
    EXPECT_FALSE(saysSo(unknown));
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

TEST(HandoverStep, ABusyStepsNameGivesBackItsWayAndTaskAndTakesTheSwitchInsPlace)
{
    EXPECT_EQ(busyStepName(BusyWay::Preempting, "cc1plus"), "preempting cc1plus");
    EXPECT_EQ(busyStepName(BusyWay::WaitingBehind, "ctxs-busyloop"), "waiting behind ctxs-busyloop");
    const BusyStep p = busyStepOf("preempting cc1plus");
    EXPECT_EQ(p.way, BusyWay::Preempting);
    EXPECT_EQ(p.task, "cc1plus");
    const std::string name = busyStepName(BusyWay::WaitingBehind, "a task with spaces");
    const BusyStep w = busyStepOf(name); // a view into name
    EXPECT_EQ(w.way, BusyWay::WaitingBehind);
    EXPECT_EQ(w.task, "a task with spaces");
    EXPECT_EQ(busyStepOf("switch-in").way, BusyWay::None);
    EXPECT_EQ(busyStepOf("preempting").way, BusyWay::None); // no task: not a busy step
    EXPECT_EQ(stepPlace("waiting behind cc1plus"), "switch-in");
    EXPECT_EQ(stepPlace("preempting cc1plus"), "switch-in");
    EXPECT_EQ(stepPlace("idle exit"), "idle exit");
    EXPECT_EQ(stepRank("waiting behind cc1plus"), stepRank("switch-in"));
    EXPECT_LT(stepRank("wake call"), stepRank("IPI sent"));
    EXPECT_LT(stepRank("idle exit"), stepRank("switch-in"));
    EXPECT_LT(stepRank("switch-in"), stepRank("return to user"));
    EXPECT_GT(stepRank("no such step"), stepRank("in user space"));
}

} // namespace
} // namespace ctxscope
