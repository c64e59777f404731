// SPDX-License-Identifier: MIT
// The sentences and the one line that say what else ran on the measured CPUs.
#include "ctxscope/interference.h"

#include "ctxscope/units.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope {

namespace {

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

std::string who(const InterferingTask& t)
{
    std::string s = t.comm + " (PID " + std::to_string(t.pid);
    if (t.tid != t.pid)
        s += ", TID " + std::to_string(t.tid);
    return s + (t.kernelThread ? ", kernel thread)" : ")");
}

const CpuInterference* busiest(const std::vector<CpuInterference>& cpus, double CpuInterference::*share)
{
    const auto it = std::max_element(cpus.begin(), cpus.end(),
        [share](const CpuInterference& a, const CpuInterference& b) { return a.*share < b.*share; });
    return it == cpus.end() ? nullptr : &*it;
}

} // namespace

double Interference::maxOtherShare() const
{
    const auto* c = busiest(cpus, &CpuInterference::otherShare);
    return c ? c->otherShare : 0;
}

double Interference::maxStealShare() const
{
    const auto* c = busiest(cpus, &CpuInterference::stealShare);
    return c ? c->stealShare : 0;
}

double Interference::maxControllerShare() const
{
    const auto* c = busiest(cpus, &CpuInterference::controllerShare);
    return c ? c->controllerShare : 0;
}

std::string controllerName(const Interference& i)
{
    if (i.controllerPid <= 0)
        return {};
    return "the " + (i.controllerComm.empty() ? std::string("controlling app") : i.controllerComm) + " window";
}

double Interference::maxRepetitionOtherShare() const
{
    double m = 0;
    for (const auto& c : cpus)
        for (double s : c.otherShareByRepetition)
            m = std::max(m, s);
    return m;
}

std::string interferenceLine(const Interference& i)
{
    const bool quiet = i.maxOtherShare() <= kNameTasksShare && i.maxStealShare() <= kNameTasksShare
        && i.maxControllerShare() <= kNameTasksShare;
    const std::string controller = controllerName(i);
    std::string line = "interference on ";
    for (std::size_t n = 0; n < i.cpus.size(); ++n) {
        const CpuInterference& c = i.cpus[n];
        line += fmt::format(
            "{}CPU {}: {}other tasks {}", n == 0 ? "" : "; ", c.cpu, quiet ? "quiet (" : "", percent(c.otherShare));
        if (!controller.empty())
            line += fmt::format(", {} {}", controller, percent(c.controllerShare));
        line += fmt::format(", steal {}, {} interrupts/s", percent(c.stealShare), formatCount(c.irqsPerS));
        if (quiet)
            line += ")";
    }
    if (!i.topTasks.empty()) {
        line += "; busiest:";
        for (std::size_t n = 0; n < i.topTasks.size(); ++n)
            line += fmt::format("{} {} {}", n == 0 ? "" : ",", who(i.topTasks[n]), percent(i.topTasks[n].share));
    }
    return line;
}

std::string interferenceCause(const Interference& i)
{
    const auto* other = busiest(i.cpus, &CpuInterference::otherShare);
    const auto* steal = busiest(i.cpus, &CpuInterference::stealShare);
    std::string out;
    if (other && other->otherShare >= kCauseShare) {
        out = fmt::format("other tasks took {} of CPU {}", percent(other->otherShare), other->cpu);
        // The busiest task on that CPU, not the busiest of all: another CPU's may have taken less.
        const auto there = std::find_if(i.topTasks.begin(), i.topTasks.end(),
            [&](const InterferingTask& t) { return t.cpu == other->cpu || t.cpu < 0; });
        if (there != i.topTasks.end())
            out += fmt::format(", busiest {} (PID {})", there->comm, there->pid);
    }
    const auto* controller = busiest(i.cpus, &CpuInterference::controllerShare);
    if (controller && controller->controllerShare >= kCauseShare)
        out += fmt::format("{}{} itself took {} of CPU {}", out.empty() ? "" : " and ", controllerName(i),
            percent(controller->controllerShare), controller->cpu);
    if (steal && steal->stealShare >= kCauseShare)
        out += fmt::format(
            "{}the hypervisor stole {} of CPU {}", out.empty() ? "" : " and ", percent(steal->stealShare), steal->cpu);
    return out;
}

std::string disturbedWarning(const Interference& i)
{
    if (!i.disturbed())
        return {};
    // The app's own load is no reason to look for a quieter machine: it is the app to quieten.
    const bool machine = i.maxOtherShare() > kDisturbedShare || i.maxStealShare() > kDisturbedShare;
    return fmt::format("The run was disturbed: {}, more than {:.0f}% of a measured CPU; its figures include that "
                       "time, so measure again {} before concluding from them.",
        interferenceCause(i), 100 * kDisturbedShare,
        machine ? "on a quiet machine" : "with the window's quiet stage on (View menu)");
}

} // namespace ctxscope
