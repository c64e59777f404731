// SPDX-License-Identifier: MIT
#include "ws_table.h"

#include "result_table.h"

#include "ctxscope/units.h"

#include <fmt/core.h>

#include <map>

namespace ctxscope::cli {

namespace {

std::string spread(double low, double high) { return formatDuration(low) + " – " + formatDuration(high); }

std::string cost(const std::optional<double>& ns) { return ns ? formatDuration(*ns) : "≤ 0"; }

std::string costSpread(const WorkingSetPoint& p)
{
    if (p.costNotPositive)
        return "-";
    return cost(p.switchCostLowNs) + " – " + cost(p.switchCostHighNs);
}

std::string flagsOf(const WorkingSetPoint& p)
{
    std::string flags;
    auto add = [&](const char* f) {
        if (!flags.empty())
            flags += ' ';
        flags += f;
    };
    if (p.costNotPositive)
        add("cost≤0");
    else if (costSpreadReachesZero(p))
        add("spread≤0");
    const RunResult& r = p.roundTripRun;
    if (roundTripNoisy(r))
        add("noisy");
    if (r.switchesPerOp > 0 && r.observed.switchesPerOp() < 0.9 * r.switchesPerOp)
        add("few-switches");
    return flags.empty() ? "-" : flags;
}

// Display width of UTF-8 text (each code point one column).
std::size_t columns(const std::string& s)
{
    std::size_t n = 0;
    for (char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

std::string right(const std::string& s, std::size_t width)
{
    return std::string(width > columns(s) ? width - columns(s) : 0, ' ') + s;
}

constexpr std::size_t kW = 9, kRt = 10, kRtSpread = 21, kTouch = 10, kCost = 11, kCostSpread = 21;

std::string row(const std::string& w, const std::string& rt, const std::string& rtSpread, const std::string& touch,
    const std::string& c, const std::string& cSpread, const std::string& flags)
{
    return right(w, kW) + "  " + right(rt, kRt) + "  " + right(rtSpread, kRtSpread) + "  " + right(touch, kTouch) + "  "
        + right(c, kCost) + "  " + right(cSpread, kCostSpread) + "  " + flags + "\n";
}

} // namespace

std::string formatWorkingSetPoint(const WorkingSetPoint& p)
{
    std::vector<RunResult> runs { p.roundTripRun };
    if (p.touchRun)
        runs.push_back(*p.touchRun);
    std::string out = formatResults(runs);
    out += fmt::format("\nworking set {} per task, {} tasks, {:g} switches per op:\n", formatBytes(p.wsBytes), p.tasks,
        p.switchesPerOp);
    out += fmt::format(
        "  round trip  {} (p25–p75 {})\n", formatDuration(p.roundTrip.p50), spread(p.roundTrip.p25, p.roundTrip.p75));
    out += fmt::format("  touch(W)    {} (p25–p75 {}), one task, hot\n", formatDuration(p.touch.p50),
        spread(p.touch.p25, p.touch.p75));
    out += fmt::format("  switch cost {} (from the quartiles: {}) = (round trip - {} x touch) / {:g}\n",
        cost(p.switchCostNs), costSpread(p), p.tasks, p.switchesPerOp);
    for (const std::string& w : p.warnings)
        out += "  warning: " + w + "\n";
    return out;
}

std::string formatSweepHeader(const SweepSpec& spec, const SweepPlan& plan, const Placement& placement)
{
    const BenchSpec& b = spec.base;
    std::string out = fmt::format("sweep {} ({}), {} tasks on {} ({}), {} points from {} to {}, {} per octave; "
                                  "each point: {} repetitions of {} s, then touch(W) alone the same way.\n",
        b.bench, toString(b.mode), placement.tasks, placement.cpus.empty() ? "-" : formatCpuList(placement.cpus),
        toString(placement.relation), plan.sizes.size(), formatBytes(plan.sizes.empty() ? 0 : plan.sizes.front()),
        formatBytes(plan.sizes.empty() ? 0 : plan.sizes.back()), spec.pointsPerOctave, b.repetitions, b.minTimeSeconds);
    if (!plan.note.empty())
        out += "note: " + plan.note + "\n";
    if (plan.timeLimitSeconds)
        out += fmt::format("note: a default range: the sweep stops before a point that would end past {:.0f} s "
                           "(--ws FROM..TO runs every point).\n",
            *plan.timeLimitSeconds);
    out += '\n';
    out += row("W", "round trip", "p25 – p75", "touch(W)", "switch", "p25 – p75", "flags");
    return out;
}

std::string formatSweepRow(const WorkingSetPoint& p)
{
    return row(formatBytes(p.wsBytes), formatDuration(p.roundTrip.p50), spread(p.roundTrip.p25, p.roundTrip.p75),
        p.touchRun ? formatDuration(p.touch.p50) : "-", cost(p.switchCostNs), costSpread(p), flagsOf(p));
}

std::string formatCaches(const std::vector<CacheInfo>& caches)
{
    std::map<int, std::vector<const CacheInfo*>> byLevel;
    for (const CacheInfo& c : caches)
        byLevel[c.level].push_back(&c);
    std::string out;
    for (const auto& [level, list] : byLevel) {
        std::string pus;
        for (const CacheInfo* c : list)
            pus += (pus.empty() ? "" : " | ") + formatCpuList(c->pus);
        out += fmt::format("  L{}{} {} x {} (PUs {})\n", level, level == 1 ? "d" : "", formatBytes(list.front()->size),
            list.size(), pus);
    }
    return out.empty() ? "  (the topology reports no cache)\n" : out;
}

std::string formatSweepFooter(const SweepResult& result)
{
    std::string out = "\ncaches (one instance each, and the PUs that share it):\n";
    out += formatCaches(result.caches);
    for (const WorkingSetPoint& p : result.points)
        for (const std::string& w : p.warnings)
            out += "warning: " + w + "\n";
    for (const std::string& w : result.warnings)
        out += "warning: " + w + "\n";
    out += "\nround trip: one op of the benchmark, every task touching its W bytes after taking the token;\n"
           "touch(W): the same touching by one task on task 0's CPU with no switch, hot;\n"
           "switch = (round trip - tasks x touch) / switches per op; p25 – p75 spreads come from the quartiles.\n"
           "flags: cost≤0 the touches take all of the round trip (no cost shown); spread≤0 the cost's low end "
           "reaches 0;\n"
           "       noisy the round trip's repetition medians vary > 5%; few-switches the kernel saw fewer "
           "switches than the op holds.\n";
    return out;
}

} // namespace ctxscope::cli
