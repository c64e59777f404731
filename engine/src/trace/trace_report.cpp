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
        out += fmt::format("    {:<26} {:<44} {:>9} {:>9} {:>9}\n", seg.name,
            fmt::format("{} -> {}", seg.fromEvent, seg.toEvent), formatDuration(seg.p50Ns), formatDuration(seg.p90Ns),
            seg.count);
    }
    return out;
}

std::string tasksText(const std::vector<TraceOtherTask>& tasks, bool withTime)
{
    std::vector<std::string> out;
    for (const auto& t : tasks) {
        if (out.size() == 3) {
            out.push_back(fmt::format("{} more", tasks.size() - 3));
            break;
        }
        std::string who
            = t.keepAwake ? t.comm : fmt::format("{} (PID {}{})", t.comm, t.pid, t.measured ? ", measured" : "");
        if (withTime)
            who += fmt::format(" {} times, {} in all", t.handovers, formatDuration(t.ns));
        else
            who += fmt::format(" {} times", t.handovers);
        out.push_back(std::move(who));
    }
    return fmt::format("{}", fmt::join(out, "; "));
}

// What the wakee's CPU was doing at the cross-CPU wake-ups, and who else ran on the traced CPUs.
std::string targetRows(const TraceSummary& s)
{
    const TraceTargetStates& t = s.targetStates;
    std::string out;
    if (t.total() > 0) {
        out += fmt::format("  the wakee's CPU at the wake-up, over {} hand-overs across CPUs:\n", t.total());
        out += fmt::format("    {:<34} {:>9}\n", "idle (idle exit, then switch-in)", t.idle);
        out += fmt::format("    {:<34} {:>9}{}\n", "running a task it preempted", t.preempting,
            s.preempted.empty() ? "" : "  " + tasksText(s.preempted, false));
        out += fmt::format("    {:<34} {:>9}{}\n", "running a task it waited behind", t.waiting,
            s.waitedBehind.empty() ? "" : "  " + tasksText(s.waitedBehind, true));
        if (t.unknown > 0)
            out += fmt::format("    {:<34} {:>9}\n", "not known (no switch traced there)", t.unknown);
    }
    if (const TracePlacementShares& p = s.placement; p.total() > 0) {
        const double n = static_cast<double>(p.total());
        out += fmt::format(
            "  where the kernel put the wakee, over {} wake-ups: on the waker's CPU {:.0f}% (the \"on one "
            "CPU\" steps), on an idle CPU {:.0f}% (idle exit, switch-in), on a busy one {:.0f}% "
            "(preempting, waiting behind); migrated {:.0f}%\n",
            p.total(), 100 * static_cast<double>(p.wakerCpu) / n, 100 * static_cast<double>(p.idleCpu) / n,
            100 * static_cast<double>(p.busyCpu) / n, 100 * static_cast<double>(p.migrated) / n);
    }
    if (!s.idleStates.empty()) {
        out += fmt::format("  idle states the wakee's CPU left (cpuidle driver: {}):\n",
            s.idleDriver.empty() ? std::string("not read") : s.idleDriver);
        out += fmt::format("    {:<26} {:>9} {:>9} {:>9} {:>16}\n", "state", "count", "p50", "p90", "declared exit");
        for (const auto& x : s.idleStates)
            out += fmt::format("    {:<26} {:>9} {:>9} {:>9} {:>16}{}\n", x.name, x.count, formatDuration(x.p50Ns),
                formatDuration(x.p90Ns), x.declaredExitNs ? formatDuration(*x.declaredExitNs) : std::string("none"),
                x.note.empty() ? "" : "  " + x.note);
    }
    if (const auto i = traceInterference(s)) {
        std::vector<std::string> cpus;
        for (const auto& c : s.cpuTime) {
            std::string one = fmt::format("CPU {} {:.1f}%", c.cpu, c.spanNs > 0 ? 100 * c.otherNs / c.spanNs : 0.0);
            if (c.keepAwakeNs > 0)
                one += fmt::format(" (keep-awake {:.1f}%, not counted)", 100 * c.keepAwakeNs / c.spanNs);
            cpus.push_back(std::move(one));
        }
        out += fmt::format("  other tasks on the traced CPUs (from the trace): {}", fmt::join(cpus, ", "));
        std::vector<std::string> top;
        for (const auto& task : i->topTasks)
            top.push_back(fmt::format("{} (PID {}) {:.1f}%", task.comm, task.pid, 100 * task.share));
        if (!top.empty())
            out += fmt::format("; busiest: {}", fmt::join(top, ", "));
        out += "\n";
    }
    if (std::string cause = waitedBehindCause(s); !cause.empty() && traceDisturbed(s))
        out += "  ! The run was disturbed: " + cause + ".\n";
    return out;
}

} // namespace

std::string formatTraceSummary(const TraceSummary& s)
{
    std::string out;
    const double cost = s.untracedNsPerOp > 0 ? 100 * (s.nsPerOp / s.untracedNsPerOp - 1) : 0;
    const std::string cpus = s.cpus.empty() ? std::string("all") : fmt::format("{}", fmt::join(s.cpus, ","));
    if (s.backend == "bpf")
        out += fmt::format("traced (bpf: cut in the kernel, no events kept): {} per op against {} untraced, {:+.0f}% "
                           "({} ops on CPU {}, {} events of the measured tasks)\n",
            formatDuration(s.nsPerOp), formatDuration(s.untracedNsPerOp), cost, s.ops, cpus, s.events);
    else
        out += fmt::format("traced: {} per op against {} untraced, {:+.0f}% ({} ops on CPUs {}, {} events, {} lost)\n",
            formatDuration(s.nsPerOp), formatDuration(s.untracedNsPerOp), cost, s.ops, cpus, s.events, s.lostEvents);
    if (s.segments.empty()) {
        out += "  no hand-over between the measured tasks went through the scheduler in the trace\n";
    } else {
        out += fmt::format(
            "  {:<28} {:<44} {:>9} {:>9} {:>9}\n", "hand-over step", "from -> to", "p50", "p90", "count");
        if (std::string rows = segmentRows(s, true); !rows.empty())
            out += "  across CPUs\n" + rows;
        if (std::string rows = segmentRows(s, false); !rows.empty())
            out += "  on one CPU\n" + rows;
        out += fmt::format("  {} hand-overs, {:.2f} per op; the steps add up to {} per op\n", s.handovers,
            s.ops > 0 ? static_cast<double>(s.handovers) / static_cast<double>(s.ops) : 0.0,
            formatDuration(s.segmentNsPerOp));
    }
    out += targetRows(s);
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
