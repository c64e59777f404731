// SPDX-License-Identifier: MIT
// A traced run's hand-overs cut into segments at the scheduler's events.
#pragma once

#include "ctxscope/interference.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope {

// One step of a hand-over, between two events, over every hand-over that took this step.
struct TraceSegment {
    std::string name; // "IPI sent"
    std::string fromEvent; // "sched_waking"
    std::string toEvent; // "ipi_send_cpu"
    bool crossCpu = false; // a step of hand-overs between two CPUs (else on one CPU)
    double p50Ns = 0;
    double p90Ns = 0;
    double meanNs = 0;
    std::uint64_t count = 0;
};

// What the wakee's CPU was doing when a cross-CPU wake-up came, counted over the hand-overs.
struct TraceTargetStates {
    std::uint64_t idle = 0; // idle: the idle exit, then the switch-in
    std::uint64_t preempting = 0; // running another task that the wake-up preempted at once
    std::uint64_t waiting = 0; // running another task that kept the CPU: the wakee waited behind it
    std::uint64_t waitingBehindOthers = 0; // of those, behind a task neither measured nor keep-awake
    std::uint64_t unknown = 0; // no switch on that CPU in the trace tells
    std::uint64_t total() const { return idle + preempting + waiting + unknown; }
    // The share of the cross-CPU hand-overs whose wakee waited behind another program.
    double waitingBehindOthersShare() const
    {
        return total() > 0 ? static_cast<double>(waitingBehindOthers) / static_cast<double>(total()) : 0;
    }
};

// Where the kernel put the wakee at its wake-ups (what matters in unpinned runs): sched_wakeup's
// CPU against the waker's and that CPU's state then.
struct TracePlacementShares {
    std::uint64_t wakerCpu = 0; // on the waker's own CPU
    std::uint64_t idleCpu = 0; // on another CPU, idle at the wake-up
    std::uint64_t busyCpu = 0; // on another CPU, running another task at the wake-up
    std::uint64_t migrated = 0; // of all of them, on another CPU than the wakee last ran on
    std::uint64_t total() const { return wakerCpu + idleCpu + busyCpu; }
};

// A task the trace saw on a traced CPU: one the wakee waited behind or preempted, or one that ran
// there beside the measured tasks.
struct TraceOtherTask {
    long pid = 0; // the thread id the trace names
    std::string comm;
    int cpu = -1; // the traced CPU it ran on most
    std::uint64_t handovers = 0; // hand-overs it delayed (waited behind) or was preempted in
    double ns = 0; // waited behind: the wakee's wait it ran in; others: its time on the traced CPUs
    bool measured = false; // one of the measured tasks (a ring's third task, say)
    bool keepAwake = false; // a keep-awake thread (run --keep-awake), never interference
};

// Who ran on one traced CPU over the trace, from its switches.
struct TraceCpuTime {
    int cpu = 0;
    double spanNs = 0; // the trace's first event to its last
    double otherNs = 0; // tasks neither measured, keep-awake nor idle
    double keepAwakeNs = 0;
};

// One idle state the wakee's CPUs left in the traced hand-overs' idle exits: the state the
// power:cpu_idle entry before the exit named, with cpuidle's name and declared exit latency.
struct TraceIdleState {
    int state = -1; // power:cpu_idle's state number
    std::string name; // cpuidle's ("C1", "POLL"); "HLT" without a cpuidle driver on x86
    std::optional<double> declaredExitNs; // cpuidle's exit latency; none without a driver
    std::string note; // "no cpuidle driver: on a VM, an exit to the hypervisor", or ""
    std::uint64_t count = 0; // idle exits from it
    double p50Ns = 0; // the idle exit step's measured time
    double p90Ns = 0;
};

// What a traced run's events say about its hand-overs. The traced run is a run of its own,
// after the untraced one it explains; its figures never replace that run's.
struct TraceSummary {
    // Who cut the hand-overs: "ftrace" (the events recorded, cut afterwards by cutHandovers) or
    // "bpf" (cut and binned in the kernel as they happen: HandoverProbe; no events are kept).
    std::string backend = "ftrace";
    std::uint64_t ops = 0; // round trips (ops) the trace covers
    double nsPerOp = 0; // the traced run's mean
    double untracedNsPerOp = 0; // the untraced run's mean, for the cost of tracing
    std::uint64_t events = 0;
    std::uint64_t lostEvents = 0;
    std::vector<TraceCpuLoss> losses;
    std::vector<std::string> missingEvents;
    std::uint64_t handovers = 0; // hand-overs found (a switch into a measured task that was woken, or yielded to)
    std::vector<TraceSegment> segments;
    double segmentNsPerOp = 0; // the segments' time summed over the hand-overs, per op
    std::uint64_t switchOuts = 0; // the measured tasks' sched_switch away from them
    double switchOutsPerOp = 0; // the same per op
    std::optional<double> rusageSwitchesPerOp; // the traced run's own count (getrusage), per op
    std::vector<std::string> notes; // sentences: what disagrees, what was lost
    std::vector<long> tasks; // the measured tasks' ids
    std::vector<int> cpus; // the traced CPUs
    TraceTargetStates targetStates; // cross-CPU hand-overs by the wakee's CPU's state at the wake-up
    std::vector<TraceOtherTask> waitedBehind; // by the wait, longest first
    std::vector<TraceOtherTask> preempted; // by hand-overs, most first
    std::vector<TraceCpuTime> cpuTime; // per traced CPU that recorded a switch
    std::vector<TraceOtherTask> others; // neither measured, keep-awake nor idle: the busiest 5
    std::vector<long> keepAwakeTasks; // the keep-awake threads' ids, when there were any
    std::vector<TraceIdleState> idleStates; // the idle exits by the state left, most first
    std::string idleDriver; // cpuidle's driver when the states were named ("none": no driver)
    TracePlacementShares placement; // where the wakees were put
};

// Names the idle states the summary's idle exits left (cutHandovers numbers them) from cpuidle's
// configuration; without a driver the states are the architecture's default idle (HLT on x86).
void nameIdleStates(TraceSummary& summary, const CpuIdleConfig& config);

// Within this of the wake-up, a switch from a still runnable task to the wakee is the wake-up
// preempting it: wake-up preemption is an IPI and a switch (microseconds, tens on a VM); a task
// that kept the CPU is preempted at its tick or the end of its slice (a millisecond or more).
inline constexpr double kWakePreemptNs = 1e6;

// The wakee waited behind other programs in more than kDisturbedShare of the cross-CPU
// hand-overs, or other tasks took more than that of a traced CPU.
bool traceDisturbed(const TraceSummary& summary);

// What else ran on the traced CPUs, as the interference reading of a traced run: from the trace's
// switches, not /proc (none when no traced CPU recorded a switch). Keep-awake threads are not
// counted.
std::optional<Interference> traceInterference(const TraceSummary& summary);

// "in 34% of the hand-overs across CPUs the wakee waited behind another program: busy (PID 812),
// 3.1 ms in all" ("" when it did not).
std::string waitedBehindCause(const TraceSummary& summary);

// Cuts every hand-over between the measured tasks into segments: across CPUs, wake call ->
// sched_waking -> IPI sent (or woken without one) -> by the target CPU's state at the wake-up:
// idle, it leaves idle -> switched in; running task X, "preempting X" (the wake-up preempted it)
// or "waiting behind X" (X kept the CPU: a run-queue wait, not a switch) -> back in user space ->
// the next call; on one CPU, wake call -> sched_waking -> the
// waker switches out into the wakee -> back in user space; a yield, the call -> the switch.
// Fills everything but the run's own figures (ops, nsPerOp, untracedNsPerOp,
// rusageSwitchesPerOp), which finishTraceSummary sets with its checks.
// `keepAwake`: the keep-awake threads' ids (preempted by the wake-ups, never interference).
TraceSummary cutHandovers(const Trace& trace, const std::vector<long>& tasks, const std::vector<long>& keepAwake = {});

// Sets the run's figures and adds the notes: the segments' sum against the traced round trip
// (more than 10% apart), the switches against getrusage (more than 2% apart), lost events.
// One hand-over that took a step for about the step's median time: where the timeline goes to
// show a step (the app's breakdown). From the step's first event to its last (fromNs, toNs),
// inside the whole hand-over (beginNs: its first event, the wake call when traced; endNs: its last).
struct SegmentExample {
    std::string name; // the step, as TraceSegment::name
    bool crossCpu = false;
    double ns = 0; // this example's length, the nearest to the step's median
    std::uint64_t fromNs = 0;
    std::uint64_t toNs = 0;
    std::uint64_t beginNs = 0;
    std::uint64_t endNs = 0;
    int fromCpu = -1; // the CPUs of the step's two events
    int toCpu = -1;
};

// A typical example of each step cutHandovers finds in these events (the same order as its
// segments): the hand-over whose step took the time nearest the step's median.
std::vector<SegmentExample> segmentExamples(
    const Trace& trace, const std::vector<long>& tasks, const std::vector<long>& keepAwake = {});

// Sets the run's own figures and checks them: lost events, steps that do not add up to the round
// trip, switches the trace lacks against getrusage, and a traced run that switched more than 10%
// more or less often per op than the untraced one (untracedSwitchesPerOp: its getrusage count),
// whose steps then describe another way of handing over than the figure they explain.
void finishTraceSummary(TraceSummary& summary, std::uint64_t ops, double nsPerOp, double untracedNsPerOp,
    std::optional<double> rusageSwitchesPerOp, std::optional<double> untracedSwitchesPerOp = std::nullopt);

} // namespace ctxscope
