// SPDX-License-Identifier: MIT
#include "ctxscope/handover_shares.h"

#include <algorithm>

namespace ctxscope {

const StepShare* HandoverShares::find(const std::string& name) const
{
    auto it = std::find_if(steps.begin(), steps.end(), [&](const StepShare& s) { return s.name == name; });
    return it == steps.end() ? nullptr : &*it;
}

std::optional<HandoverShares> handoverShares(const TraceSummary& summary, bool crossCpu)
{
    struct Way {
        std::string text;
        double totalNs = 0;
    };
    struct Step {
        std::string name;
        std::uint64_t count = 0;
        double totalNs = 0;
        std::vector<Way> ways;
    };
    std::vector<Step> steps; // in the summary's order (a hand-over's), one per name
    for (const TraceSegment& seg : summary.segments) {
        if (seg.crossCpu != crossCpu || seg.name == kUserSpaceStep || seg.count == 0)
            continue;
        auto it = std::find_if(steps.begin(), steps.end(), [&](const Step& s) { return s.name == seg.name; });
        if (it == steps.end())
            it = steps.insert(steps.end(), Step { seg.name, 0, 0, {} });
        // The median: a hand-over preempted by another task weighs as one hand-over, not as its wait.
        const double total = seg.p50Ns * static_cast<double>(seg.count);
        it->count += seg.count;
        it->totalNs += total;
        it->ways.push_back({ seg.fromEvent + " → " + seg.toEvent, total });
    }
    HandoverShares out;
    for (const Step& s : steps)
        out.handovers = std::max(out.handovers, s.count);
    if (out.handovers == 0)
        return std::nullopt;
    const double n = static_cast<double>(out.handovers);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        Step& s = steps[i];
        std::stable_sort(
            s.ways.begin(), s.ways.end(), [](const Way& a, const Way& b) { return a.totalNs > b.totalNs; });
        StepShare share { s.name, {}, s.count, s.totalNs / n, 0, i };
        for (const Way& w : s.ways)
            share.ways.push_back(w.text);
        out.ns += share.ns;
        out.steps.push_back(std::move(share));
    }
    if (!(out.ns > 0))
        return std::nullopt;
    for (StepShare& s : out.steps)
        s.share = s.ns / out.ns;
    std::stable_sort(
        out.steps.begin(), out.steps.end(), [](const StepShare& a, const StepShare& b) { return a.ns > b.ns; });
    return out;
}

bool mostHandoversCrossCpu(const TraceSummary& summary)
{
    std::uint64_t cross = 0;
    std::uint64_t same = 0;
    for (const TraceSegment& s : summary.segments)
        if (s.name != kUserSpaceStep)
            (s.crossCpu ? cross : same) = std::max(s.crossCpu ? cross : same, s.count);
    return cross > same;
}

bool handoverCrossCpu(const RunResult& r)
{
    if (r.placement.relation == Relation::Unpinned && r.trace)
        return mostHandoversCrossCpu(*r.trace);
    return !r.placement.onePu();
}

std::optional<HandoverShares> handoverShares(const RunResult& r)
{
    if (!r.trace)
        return std::nullopt;
    return handoverShares(*r.trace, handoverCrossCpu(r));
}

} // namespace ctxscope
