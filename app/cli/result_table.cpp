// SPDX-License-Identifier: MIT
#include "result_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace ctxscope::cli {

namespace {

std::string cpusOf(const RunResult& r)
{
    if (r.placement.cpus.empty())
        return "-";
    return fmt::format("{}", fmt::join(r.placement.cpus, ","));
}

// Width in columns of UTF-8 text (every code point here is one column wide).
std::size_t columns(const std::string& s)
{
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t width, bool right)
{
    const std::string fill(width > columns(s) ? width - columns(s) : 0, ' ');
    return right ? fill + s : s + fill;
}

std::string perSwitch(const RunResult& r)
{
    // A busy-wait hand-over is not a context switch: say which of the two the figure is.
    if (!r.perSwitchNs && r.perHandoffNs)
        return fmt::format("- ({} one-way hand-over)", formatDuration(*r.perHandoffNs));
    if (!r.perSwitchNs)
        return "- (0 per op)";
    return fmt::format("{} ({:g}{} per op)", formatDuration(*r.perSwitchNs), r.switchesPerOp,
        r.userSpaceSwitches ? " user-space" : "");
}

std::string details(const RunResult& r)
{
    std::string out = fmt::format("{}: one op is {}; {:g}{} switches per op ({}).\n", r.bench, r.op, r.switchesPerOp,
        r.userSpaceSwitches ? " user-space" : "",
        findBenchmark(r.bench) ? std::string(findBenchmark(r.bench)->notes) : "");
    const ClockInfo& c = r.clock;
    out += fmt::format("  clock: {}{}, read {:.1f} ns, resolution {:.2f} ns. {} repetitions x {} ops, K = {}; "
                       "repetition medians vary {:.1f}% (CV), policy {}.\n",
        toString(c.source), c.tscGhz > 0 ? fmt::format(" at {:.3f} GHz", c.tscGhz) : "", c.readCostNs, c.resolutionNs,
        r.repetitions, r.iterations, r.opsPerSample, r.repetitionCv * 100, toString(r.policy));
    const Summary& st = r.stats;
    out += fmt::format("  per op: min {}, p50 {}, mean {}, p90 {}, p99 {}, p99.9 {}, max {} over {} samples{}.\n",
        formatDuration(st.min), formatDuration(st.p50), formatDuration(st.mean), formatDuration(st.p90),
        formatDuration(st.p99), formatDuration(st.p999), formatDuration(st.max), r.totalSamples,
        r.percentilesFromHistogram ? " (percentiles from the histogram, within 1%)" : "");
    const Observed& o = r.observed;
    out += fmt::format("  observed: {:.3f} voluntary + {:.3f} involuntary switches per op; perf: ", o.voluntaryPerOp,
        o.involuntaryPerOp);
    if (o.perfSwitchesPerOp)
        out += fmt::format("{:.3f} context switches per op, {} cpu-migrations (a check phase of {} ops after the "
                           "measured ones: with the counters on, an op took {} on average, against {}).\n",
            *o.perfSwitchesPerOp, o.perfMigrations.value_or(0), o.perfCheckOps, formatDuration(o.perfCheckNsPerOp),
            formatDuration(r.stats.mean));
    else
        out += o.perfStatus + "\n";
    out += "  ran on:";
    for (const TaskObservation& t : o.tasks) {
        std::string seen;
        for (int cpu : t.cpusSeen)
            seen += fmt::format("{}{}", seen.empty() ? "" : ",", cpu);
        out += fmt::format(
            " task {} CPU {}{};", t.task, seen.empty() ? "?" : seen, t.pinnedCpu >= 0 ? " (pinned)" : "");
    }
    out.back() = '\n';
    if (r.syscalls)
        out += "  syscalls: " + r.syscalls->how + "\n";
    if (r.line)
        out += "  " + sharedLineText(*r.line) + ".\n";
    if (r.handoffs)
        out += fmt::format(
            "  hand-overs: {} of {} slept on the futex after the spin ({:.1f}%), counted by the tasks.\n",
            r.handoffs->slept, r.handoffs->total, r.handoffs->sleptShare() * 100);
    if (o.tasks.size() == 2 && r.iterations > 0) {
        const double ops = static_cast<double>(r.iterations) * r.repetitions;
        out += fmt::format("  CPU time per op (getrusage): task 0 {}, task 1 {}; a task that waits by spinning "
                           "burns its CPU while it waits.\n",
            formatDuration(static_cast<double>(o.tasks[0].cpuNs) / ops),
            formatDuration(static_cast<double>(o.tasks[1].cpuNs) / ops));
    }
    if (r.interference)
        out += "  " + interferenceLine(*r.interference) + ".\n";
    else
        out += "  interference: not told (the measured repetitions lasted under 0.3 s, finer than /proc/stat's "
               "10 ms ticks can tell, or /proc could not be read).\n";
    for (const std::string& w : r.warnings)
        out += "  warning: " + w + "\n";
    return out;
}

} // namespace

std::string formatResults(const std::vector<RunResult>& results)
{
    const std::vector<std::string> header { "bench", "mode", "cpus", "relation", "tasks", "K", "p50/op", "per switch",
        "min", "p99", "CV", "vol/op", "invol/op", "migrations" };
    // Text columns left-aligned, numbers right-aligned.
    const std::vector<bool> right { false, false, false, false, true, true, true, true, true, true, true, true, true,
        true };
    std::vector<std::vector<std::string>> rows { header };
    for (const RunResult& r : results)
        rows.push_back(
            { r.bench, std::string(toString(r.mode)), cpusOf(r), relationText(r.placement.relation, r.placement.kinds),
                std::to_string(r.placement.tasks), std::to_string(r.opsPerSample), formatDuration(r.stats.p50),
                perSwitch(r), formatDuration(r.stats.min), formatDuration(r.stats.p99),
                fmt::format("{:.1f}%", r.stats.cv * 100), fmt::format("{:.3f}", r.observed.voluntaryPerOp),
                fmt::format("{:.3f}", r.observed.involuntaryPerOp), std::to_string(r.observed.migrations) });
    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], columns(row[i]));
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i)
            line += (i ? "  " : "") + pad(row[i], width[i], right[i]);
        out += line + "\n";
    }
    out += "\n";
    for (const RunResult& r : results)
        out += details(r);
    return out;
}

} // namespace ctxscope::cli
