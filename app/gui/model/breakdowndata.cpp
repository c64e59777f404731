// SPDX-License-Identifier: MIT
#include "breakdowndata.h"

#include "ctxscope/handover_shares.h"

#include <algorithm>

namespace ctxscope::gui {

std::optional<std::size_t> BreakdownBar::stepAt(double ns) const
{
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (ns >= steps[i].fromNs && ns < steps[i].fromNs + steps[i].ns)
            return i;
    return std::nullopt;
}

BreakdownBar breakdownOf(const TraceSummary& summary, bool crossCpu)
{
    BreakdownBar bar;
    bar.crossCpu = crossCpu;
    auto shares = handoverShares(summary, crossCpu);
    if (!shares)
        return bar;
    bar.handovers = shares->handovers;
    // A step taken different ways (the switch-in from the idle exit or straight from the IPI) and
    // the steps that take each other's place (the switch-in, "preempting X", "waiting behind X")
    // each weigh with the hand-overs that took them, so the bar is the steps of the typical
    // hand-over in the order a hand-over takes them, and its length the lessons' figure.
    std::stable_sort(shares->steps.begin(), shares->steps.end(),
        [](const StepShare& a, const StepShare& b) { return a.order < b.order; });
    double at = 0;
    for (const StepShare& s : shares->steps) {
        BreakdownStep step { s.name, at, s.ns, static_cast<double>(s.count) / static_cast<double>(shares->handovers), 0,
            0, 0, false };
        const TraceSegment* most = nullptr; // the way most hand-overs took
        for (const TraceSegment& seg : summary.segments)
            if (seg.crossCpu == crossCpu && seg.name == s.name && (!most || seg.count > most->count))
                most = &seg;
        if (most) {
            step.p50Ns = most->p50Ns;
            step.p90Ns = most->p90Ns;
            step.count = most->count;
            step.oneWay = s.ways.size() == 1 && s.count == shares->handovers;
        }
        at += step.ns;
        bar.steps.push_back(std::move(step));
    }
    return bar;
}

BreakdownBar breakdownOf(const TraceSummary& summary) { return breakdownOf(summary, mostHandoversCrossCpu(summary)); }

BreakdownBar breakdownOf(const RunResult& result)
{
    return result.trace ? breakdownOf(*result.trace, handoverCrossCpu(result)) : BreakdownBar {};
}

} // namespace ctxscope::gui
