// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/handover.h"
#include "ctxscope/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope::gui {

// One step of the typical hand-over as the breakdown stacks it (ctxscope/handover_shares.h):
// its weight in it (each way's median times the share of hand-overs that took it), from where
// the steps before it end.
struct BreakdownStep {
    std::string name; // "IPI sent"
    double fromNs = 0; // the weights of the steps before it, summed
    double ns = 0; // its weight: the bar's width for it
    double share = 0; // of the hand-overs of this kind that took it, any way, 0 to 1
    // The way most hand-overs took it: its median, p90 and count (the example a click shows).
    double p50Ns = 0;
    double p90Ns = 0;
    std::uint64_t count = 0;
    bool oneWay = false; // every hand-over of this kind took it, one way: its p90 is a whisker
};

// A traced run's typical hand-over as one stacked bar: the steps of its kind of hand-over (across
// CPUs, or on one CPU: handoverCrossCpu), in the order a hand-over takes them. Its length is the
// figure the lessons quote for the hand-over (HandoverShares::ns); "in user space" is no part of it.
struct BreakdownBar {
    bool crossCpu = false;
    std::uint64_t handovers = 0; // of this kind
    std::vector<BreakdownStep> steps;
    double totalNs() const { return steps.empty() ? 0 : steps.back().fromNs + steps.back().ns; }
    // The step under `ns` (0 at the bar's start); nullopt past its end or before its start.
    std::optional<std::size_t> stepAt(double ns) const;
};

// The bar of a traced run (its placement's kind of hand-over; an unpinned run's most common
// kind), or of a trace's segments of one kind; empty steps when the trace cut no hand-over.
BreakdownBar breakdownOf(const RunResult& result);
BreakdownBar breakdownOf(const TraceSummary& summary, bool crossCpu);
// The kind most of the trace's hand-overs took.
BreakdownBar breakdownOf(const TraceSummary& summary);

} // namespace ctxscope::gui
