// SPDX-License-Identifier: MIT
// The traced run as text (its JSON: report/trace_json.cpp).
#include "ctxscope/traced_run.h"
#include "ctxscope/units.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

namespace ctxscope {

namespace {

std::string segmentRows(const TraceSummary& s, bool cross)
{
    std::string out;
    for (const auto& seg : s.segments) {
        if (seg.crossCpu != cross)
            continue;
        out += fmt::format("    {:<18} {:<44} {:>9} {:>9} {:>9}\n", seg.name,
            fmt::format("{} -> {}", seg.fromEvent, seg.toEvent), formatDuration(seg.p50Ns), formatDuration(seg.p90Ns),
            seg.count);
    }
    return out;
}

} // namespace

std::string formatTraceSummary(const TraceSummary& s)
{
    std::string out;
    const double cost = s.untracedNsPerOp > 0 ? 100 * (s.nsPerOp / s.untracedNsPerOp - 1) : 0;
    out += fmt::format("traced: {} per op against {} untraced, {:+.0f}% ({} ops on CPUs {}, {} events, {} lost)\n",
        formatDuration(s.nsPerOp), formatDuration(s.untracedNsPerOp), cost, s.ops,
        s.cpus.empty() ? std::string("all") : fmt::format("{}", fmt::join(s.cpus, ",")), s.events, s.lostEvents);
    if (s.segments.empty()) {
        out += "  no hand-over between the measured tasks went through the scheduler in the trace\n";
    } else {
        out += fmt::format(
            "  {:<20} {:<44} {:>9} {:>9} {:>9}\n", "hand-over step", "from -> to", "p50", "p90", "count");
        if (std::string rows = segmentRows(s, true); !rows.empty())
            out += "  across CPUs\n" + rows;
        if (std::string rows = segmentRows(s, false); !rows.empty())
            out += "  on one CPU\n" + rows;
        out += fmt::format("  {} hand-overs, {:.2f} per op; the steps add up to {} per op\n", s.handovers,
            s.ops > 0 ? static_cast<double>(s.handovers) / static_cast<double>(s.ops) : 0.0,
            formatDuration(s.segmentNsPerOp));
    }
    out += fmt::format("  switches of the measured tasks: {:.3f} per op in the trace", s.switchOutsPerOp);
    if (s.rusageSwitchesPerOp)
        out += fmt::format(", {:.3f} by getrusage", *s.rusageSwitchesPerOp);
    out += "\n";
    if (!s.missingEvents.empty())
        out += fmt::format("  this kernel has no {}\n", fmt::join(s.missingEvents, ", "));
    for (const auto& note : s.notes)
        out += "  ! " + note + "\n";
    return out;
}

} // namespace ctxscope
