// SPDX-License-Identifier: MIT
#include "breakdowndata.h"

#include "ctxscope/handover_step.h"

#include <algorithm>
#include <string_view>

namespace ctxscope::gui {

std::optional<std::size_t> BreakdownBar::stepAt(double ns) const
{
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (ns >= steps[i].fromNs && ns < steps[i].fromNs + steps[i].p50Ns)
            return i;
    return std::nullopt;
}

BreakdownBar breakdownOf(const TraceSummary& summary)
{
    // A run across CPUs has a few hand-overs on one (a task migrated), and the other way round:
    // the kind with the most hand-overs behind a step is the run's.
    std::uint64_t cross = 0;
    std::uint64_t same = 0;
    for (const TraceSegment& s : summary.segments)
        (s.crossCpu ? cross : same) = std::max(s.crossCpu ? cross : same, s.count);
    BreakdownBar bar;
    bar.crossCpu = cross > same;
    // A step cut between different events is one step taken different ways (switch-in from the
    // IPI, from the idle exit, from sched_waking): alternatives, not steps in a row. So are the
    // switch-in and what takes its place when the wakee's CPU was busy ("preempting X", "waiting
    // behind X"). The bar takes the way most hand-overs took.
    for (const TraceSegment& s : summary.segments) { // already in the order a hand-over takes them
        if (s.crossCpu != bar.crossCpu)
            continue;
        const auto known = std::find_if(bar.steps.begin(), bar.steps.end(),
            [&](const BreakdownStep& b) { return stepPlace(b.name) == stepPlace(s.name); });
        if (known == bar.steps.end())
            bar.steps.push_back({ s.name, 0, s.p50Ns, s.p90Ns, s.count });
        else if (s.count > known->count)
            *known = { s.name, 0, s.p50Ns, s.p90Ns, s.count };
    }
    // The idle exit comes before a switch-in only: where most hand-overs found the CPU busy, the
    // bar is theirs.
    const bool busyWay = std::any_of(bar.steps.begin(), bar.steps.end(),
        [](const BreakdownStep& b) { return stepPlace(b.name) == "switch-in" && b.name != "switch-in"; });
    if (busyWay)
        std::erase_if(bar.steps, [](const BreakdownStep& b) { return b.name == "idle exit"; });
    double at = 0;
    for (BreakdownStep& step : bar.steps) {
        step.fromNs = at;
        at += step.p50Ns;
    }
    return bar;
}

} // namespace ctxscope::gui
