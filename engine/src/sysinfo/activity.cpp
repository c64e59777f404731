// SPDX-License-Identifier: MIT
// The machine's recent steal share and context switches per second, from /proc/stat twice.
#include "ctxscope/sysinfo.h"

#include "os/proc_stat.h"
#include "os/task_stat.h"

#include <nlohmann/json.hpp>

#include <thread>

namespace ctxscope {

namespace {

std::uint64_t grown(std::uint64_t a, std::uint64_t b) { return b > a ? b - a : 0; }

} // namespace

Expected<SystemActivity> systemActivityBetween(std::string_view before, std::string_view after, double seconds)
{
    auto a = os::parseProcStat(before);
    if (!a)
        return a.error();
    auto b = os::parseProcStat(after);
    if (!b)
        return b.error();
    if (!(seconds > 0))
        return makeError("the activity interval must be longer than 0 s");
    SystemActivity out;
    out.seconds = seconds;
    // The aggregate "cpu" line: every online CPU's time together.
    const os::CpuTimes& x = a->all;
    const os::CpuTimes& y = b->all;
    const double wall = static_cast<double>(grown(x.total(), y.total()));
    if (wall > 0) {
        out.busyShare = static_cast<double>(grown(x.busy(), y.busy())) / wall;
        if (x.hasSteal && y.hasSteal)
            out.stealShare = static_cast<double>(grown(x.steal, y.steal)) / wall;
    }
    if (a->contextSwitches && b->contextSwitches)
        out.contextSwitchesPerS = static_cast<double>(grown(*a->contextSwitches, *b->contextSwitches)) / seconds;
    return out;
}

Expected<SystemActivity> sampleSystemActivity(std::chrono::milliseconds interval)
{
    std::string before;
    std::string after;
    const auto t0 = std::chrono::steady_clock::now();
    if (!os::readProcText("/proc/stat", before))
        return makeError("/proc/stat could not be read");
    std::this_thread::sleep_for(interval);
    if (!os::readProcText("/proc/stat", after))
        return makeError("/proc/stat could not be read");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return systemActivityBetween(before, after, seconds);
}

nlohmann::json toJson(const SystemActivity& a)
{
    return { { "seconds", a.seconds }, { "busy_share", a.busyShare },
        { "steal_share", a.stealShare ? nlohmann::json(*a.stealShare) : nlohmann::json(nullptr) },
        { "context_switches_per_s",
            a.contextSwitchesPerS ? nlohmann::json(*a.contextSwitchesPerS) : nlohmann::json(nullptr) } };
}

} // namespace ctxscope
