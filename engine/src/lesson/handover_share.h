// SPDX-License-Identifier: MIT
// Where a traced hand-over's time goes: its steps (TraceSummary's segments) as shares of the
// whole, the figures the lessons quote instead of asserting what a VM or another CPU adds.
#pragma once

#include "ctxscope/handover.h"
#include "ctxscope/result.h"

#include <optional>
#include <string>
#include <vector>

namespace ctxscope::lesson {

// One step by name: the trace cuts some steps between different events from one hand-over to
// the next ("switch-in" from the idle exit, or straight from the IPI when the CPU was busy).
struct StepShare {
    std::string name; // "IPI sent"
    std::vector<std::string> ways; // "sched_waking → ipi_send_cpu", the largest share first
    std::uint64_t count = 0; // hand-overs that took the step, every way summed
    double ns = 0; // per hand-over: each way's median times the hand-overs that took it, over all of them
    double share = 0; // of the hand-over, 0 to 1
};

// The hand-overs of one kind (across CPUs, or on one CPU), from the waker's wake call to the
// wakee back in user space. "in user space" (the benchmark's own loop between two hand-overs)
// is no part of it. Each way of each step weighs with its median times its share of the
// hand-overs, so a step only some hand-overs take (an IPI, an idle exit) counts with that share,
// and the typical hand-over is its steps' sum; a mean would let a few hand-overs that waited
// for a busy CPU stand for all of them.
struct HandoverShares {
    std::uint64_t handovers = 0; // of this kind: the most-counted step's count (every way summed)
    double ns = 0; // the typical hand-over: the steps' sum
    std::vector<StepShare> steps; // largest first
    const StepShare* find(const std::string& name) const;
};

// None when the trace cut no hand-over of that kind.
std::optional<HandoverShares> handoverShares(const TraceSummary& summary, bool crossCpu);

// The kind a placement's hand-overs are: across CPUs unless both tasks share one PU.
std::optional<HandoverShares> handoverShares(const RunResult& r);

// "IPI sent (sched_waking → ipi_send_cpu), 6.1 µs (38%)"; "switch-in (ipi_send_cpu → sched_switch,
// and 2 other ways), 12 µs (40%)"
std::string stepText(const StepShare& step);
// "sched_waking → ipi_send_cpu", "ipi_send_cpu → sched_switch, and 2 other ways"
std::string waysText(const StepShare& step);

// What a step is, in words: "the waker's CPU interrupting the wakee's (on a VM, a VM exit)".
std::string stepMeaning(const std::string& name);

// Where the kernel put the woken task in a traced unpinned run, and what a hand-over cost each
// way: "The kernel put the woken task on the waker's own CPU in 62% of 9,812 wake-ups (a hand-over
// there took 3.1 µs), on another CPU that was idle in 30% and on one running another task in 8%
// (a hand-over across CPUs took 11.7 µs, 7.0 µs of it the idle exit); 35% of the wake-ups moved
// it off the CPU it last ran on." "" for a run that was not traced, pinned, or saw no wake-up.
std::string placementSentence(const RunResult& r);

// The VM sentence with the figures a trace measured: the IPI to the other vCPU (or the
// largest step where no IPI was sent) against the whole hand-over; "" without a cross-CPU trace.
std::string tracedVmNote(const RunResult& r);

} // namespace ctxscope::lesson
