// SPDX-License-Identifier: MIT
// A traced run's hand-overs cut into segments at the scheduler's events.
#pragma once

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

// What a traced run's events say about its hand-overs. The traced run is a run of its own,
// after the untraced one it explains; its figures never replace that run's.
struct TraceSummary {
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
};

// Cuts every hand-over between the measured tasks into segments: across CPUs, wake call ->
// sched_waking -> IPI sent (or woken without one) -> the target CPU leaves idle -> switched
// in -> back in user space -> the next call; on one CPU, wake call -> sched_waking -> the
// waker switches out into the wakee -> back in user space; a yield, the call -> the switch.
// Fills everything but the run's own figures (ops, nsPerOp, untracedNsPerOp,
// rusageSwitchesPerOp), which finishTraceSummary sets with its checks.
TraceSummary cutHandovers(const Trace& trace, const std::vector<long>& tasks);

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
std::vector<SegmentExample> segmentExamples(const Trace& trace, const std::vector<long>& tasks);

void finishTraceSummary(TraceSummary& summary, std::uint64_t ops, double nsPerOp, double untracedNsPerOp,
    std::optional<double> rusageSwitchesPerOp);

} // namespace ctxscope
