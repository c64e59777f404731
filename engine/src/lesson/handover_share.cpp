// SPDX-License-Identifier: MIT
#include "lesson/handover_share.h"

#include "lesson/lesson_util.h"

#include "ctxscope/handover_step.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <fmt/core.h>
#include <string_view>
#include <vector>

namespace ctxscope::lesson {

std::string waysText(const StepShare& step)
{
    if (step.ways.empty())
        return {};
    if (step.ways.size() == 1)
        return step.ways.front();
    // The other ways by the event they start from, each once: "ipi_send_cpu → sched_switch in
    // most hand-overs, else from sched_waking or cpu_idle".
    std::vector<std::string> froms;
    for (std::size_t i = 1; i < step.ways.size(); ++i) {
        const std::string& way = step.ways[i];
        std::string from = way.substr(0, way.find(" → "));
        if (std::find(froms.begin(), froms.end(), from) == froms.end())
            froms.push_back(std::move(from));
    }
    std::string others;
    for (std::size_t i = 0; i < froms.size(); ++i)
        others += (i == 0 ? "" : " or ") + froms[i];
    return fmt::format("{} in most hand-overs, else from {}", step.ways.front(), others);
}

std::string stepText(const StepShare& step)
{
    return fmt::format("{} ({}), {} ({:.0f}%)", step.name, waysText(step), formatDuration(step.ns), step.share * 100);
}

std::string stepMeaning(const std::string& name)
{
    static const std::pair<const char*, const char*> meanings[] = {
        { "wake call", "the waker's system call finding the sleeping task and marking it runnable" },
        { "yield call", "the yielding task's system call reaching the scheduler" },
        { "sleep call", "the waiter's system call putting it to sleep while its partner was still runnable" },
        { "IPI sent",
            "the waker's CPU sending the interrupt that tells the wakee's CPU to run it (on a VM, an exit "
            "to the hypervisor)" },
        { "woken without IPI", "the wakee's CPU noticing the wake-up without an interrupt, as it polled in idle" },
        { "idle exit", "the wakee's CPU coming out of idle (on a VM, the hypervisor running that vCPU again)" },
        { "switch-in", "the wakee's CPU switching to the woken task" },
        { "waker runs on", "the waker finishing its call and going to sleep before the CPU is handed to the wakee" },
        { "return to user", "the woken task's way back out of the kernel" },
    };
    for (const auto& [step, meaning] : meanings)
        if (name == step)
            return meaning;
    // What takes the switch-in's place when the wakee's CPU was busy (TraceSegment's names).
    const BusyStep busy = busyStepOf(name);
    if (busy.way == BusyWay::Preempting)
        return fmt::format("the wakee's CPU was running {}, which the wake-up preempted: the switch from it to the "
                           "woken task",
            busy.task);
    if (busy.way == BusyWay::WaitingBehind)
        return fmt::format("the woken task waiting for {} to give up the CPU: a wait in the run queue behind "
                           "another program, not a switch",
            busy.task);
    return "a step of the hand-over";
}

std::string placementSentence(const RunResult& r)
{
    if (!r.trace || r.placement.relation != Relation::Unpinned)
        return {};
    const TracePlacementShares& p = r.trace->placement;
    if (p.total() == 0)
        return {};
    // A share, never "0%" for a choice the kernel made: "under 1%".
    const auto percent = [&](std::uint64_t k) {
        const double share = 100.0 * static_cast<double>(k) / static_cast<double>(p.total());
        return k > 0 && share < 0.5 ? std::string("under 1%") : fmt::format("{:.0f}%", share);
    };
    std::string out = fmt::format("The kernel put the woken task on the waker's own CPU in {} of {} wake-ups",
        percent(p.wakerCpu), formatCount(static_cast<double>(p.total())));
    if (const auto same = handoverShares(*r.trace, false); same && p.wakerCpu > 0)
        out += fmt::format(" (a hand-over there took {})", formatDuration(same->ns));
    out += fmt::format(", on another CPU that was idle in {} and on one running another task in {}", percent(p.idleCpu),
        percent(p.busyCpu));
    if (const auto cross = handoverShares(*r.trace, true); cross && p.idleCpu + p.busyCpu > 0) {
        out += fmt::format(" (a hand-over across CPUs took {}", formatDuration(cross->ns));
        if (const StepShare* idle = cross->find("idle exit"))
            out += fmt::format(", {} of it the idle exit", formatDuration(idle->ns));
        out += ")";
    }
    return out + fmt::format("; {} of the wake-ups moved it off the CPU it last ran on.", percent(p.migrated));
}

std::string tracedVmNote(const RunResult& r)
{
    if (r.placement.onePu())
        return {};
    const auto shares = handoverShares(r);
    if (!shares)
        return {};
    const StepShare* ipi = shares->find("IPI sent");
    const StepShare& quoted = ipi ? *ipi : shares->steps.front();
    std::string out = fmt::format("This is a virtual machine, and tracing the {} hand-over on {} measured what "
                                  "another vCPU costs: {} took {} of the {} hand-over ({:.0f}%)",
        r.bench, placementText(r), ipi ? "sending the IPI to the other vCPU" : quoted.name, formatDuration(quoted.ns),
        formatDuration(shares->ns), quoted.share * 100);
    if (ipi && &shares->steps.front() != ipi)
        out += fmt::format(", and its largest step was {}", stepText(shares->steps.front()));
    return out + ".";
}

} // namespace ctxscope::lesson
