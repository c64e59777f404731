// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/handover.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope::gui {

// One step of a hand-over as the breakdown stacks it: its median, from where the steps before
// it end, with its p90 as a whisker.
struct BreakdownStep {
    std::string name; // "IPI sent"
    double fromNs = 0; // the medians of the steps before it, summed
    double p50Ns = 0;
    double p90Ns = 0;
    std::uint64_t count = 0; // hand-overs that took the step this way
};

// A traced run's hand-over as one stacked bar: the steps of its kind of hand-over (across CPUs,
// or on one CPU: the kind most of its hand-overs took), in the order a hand-over takes them; a
// step taken different ways (cut between different events) counts the way most took.
// The medians of the steps, not the median hand-over: a step's p50 is over the hand-overs that
// took it, so the bar's length is a sum of medians.
struct BreakdownBar {
    bool crossCpu = false;
    std::vector<BreakdownStep> steps;
    double totalNs() const { return steps.empty() ? 0 : steps.back().fromNs + steps.back().p50Ns; }
    // The step under `ns` (0 at the bar's start); nullopt past its end or before its start.
    std::optional<std::size_t> stepAt(double ns) const;
};

// The bar of a traced run's segments; empty steps when the trace cut no hand-over.
BreakdownBar breakdownOf(const TraceSummary& summary);

} // namespace ctxscope::gui
