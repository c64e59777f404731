// SPDX-License-Identifier: MIT
// The typical traced hand-over and its steps: one definition for every view that quotes it (the
// lessons' sentences, the app's breakdown bar, the survey's lines), so the bar's length and the
// figure the conclusion gives for the same run are the same number.
#pragma once

#include "ctxscope/handover.h"
#include "ctxscope/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope {

// One step by name: the trace cuts some steps between different events from one hand-over to
// the next ("switch-in" from the idle exit, or straight from the IPI when the CPU was busy).
struct StepShare {
    std::string name; // "IPI sent"
    std::vector<std::string> ways; // "sched_waking → ipi_send_cpu", the largest share first
    std::uint64_t count = 0; // hand-overs that took the step, every way summed
    double ns = 0; // per hand-over: each way's median times the hand-overs that took it, over all of them
    double share = 0; // of the hand-over, 0 to 1
    std::size_t order = 0; // its place in the order a hand-over takes its steps (0 first)
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

// The step no scheduler event bounds on the wakee's side: the benchmark's own loop.
inline constexpr const char* kUserSpaceStep = "in user space";

// None when the trace cut no hand-over of that kind.
std::optional<HandoverShares> handoverShares(const TraceSummary& summary, bool crossCpu);

// The kind a placement's hand-overs are: across CPUs unless both tasks share one PU. An unpinned
// run's kind is the one most of its hand-overs took.
bool handoverCrossCpu(const RunResult& r);
std::optional<HandoverShares> handoverShares(const RunResult& r);

// The kind most of a trace's hand-overs took: across CPUs when its most-counted cross-CPU step
// outnumbers its most-counted step on one CPU.
bool mostHandoversCrossCpu(const TraceSummary& summary);

} // namespace ctxscope
