// SPDX-License-Identifier: MIT
#include "commands.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology.h"
#include "ctxscope/units.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>

namespace ctxscope::cli {

namespace {

std::string orUnknown(const std::string& s) { return s.empty() ? "unknown" : s; }

// What the topology says of the caches: one instance of each level, and whether the sizes
// are plausible (checkCaches). Empty when the topology cannot be loaded.
struct Caches {
    std::map<int, CacheInfo> levels; // one instance per level
    std::string warning; // the one sentence of checkCaches, "" when plausible
    std::string error; // why the topology could not be read
};

Caches readCaches()
{
    Caches out;
    auto topology = Topology::loadLive();
    if (!topology) {
        out.error = topology.error().message;
        return out;
    }
    for (const CacheInfo& c : topology->caches())
        out.levels.try_emplace(c.level, c);
    out.warning = checkCaches(*topology).sentence();
    return out;
}

std::string cachesText(const Caches& c)
{
    if (!c.error.empty())
        return "unknown (" + c.error + ")";
    std::string out;
    for (const auto& [level, info] : c.levels)
        out += fmt::format("{}L{}{} {} per {} PU{}", out.empty() ? "" : ", ", level, level == 1 ? "d" : "",
            formatBytes(info.size), info.pus.size(), info.pus.size() == 1 ? "" : "s");
    return out.empty() ? "none reported" : out;
}

nlohmann::json cachesJson(const Caches& c)
{
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& [level, info] : c.levels)
        levels.push_back({ { "level", level }, { "size_bytes", info.size }, { "line_bytes", info.lineSize },
            { "pus_sharing", info.pus.size() } });
    nlohmann::json j { { "levels", levels }, { "plausible", c.error.empty() && c.warning.empty() } };
    if (!c.warning.empty())
        j["warning"] = c.warning;
    if (!c.error.empty())
        j["error"] = c.error;
    return j;
}

void printActivity(
    const Expected<SystemActivity>& a, const std::function<void(std::string_view, const std::string&)>& row)
{
    if (!a) {
        row("activity", "unknown (" + a.error().message + ")");
        return;
    }
    const std::string over = fmt::format(" over the last {:.1f} s", a->seconds);
    row("busy", fmt::format("{:.1f}% of all CPUs' time{}", 100 * a->busyShare, over));
    row("steal",
        a->stealShare ? fmt::format("{:.1f}% (the hypervisor ran something else){}", 100 * *a->stealShare, over)
                      : std::string("unknown (this kernel has no steal column)"));
    row("context switches/s",
        a->contextSwitchesPerS ? formatCount(*a->contextSwitchesPerS) + " (whole system, like vmstat's cs)" + over
                               : std::string("unknown (no ctxt line in /proc/stat)"));
}

void printText(const SysInfo& s, const Caches& caches, const Expected<SystemActivity>& activity)
{
    auto row = [](std::string_view key, const std::string& value) { fmt::print("{:<22}{}\n", key, value); };
    row("host", s.hostName);
    row("kernel", s.kernel);
    row("cpu",
        fmt::format("{} ({} online CPUs{})", orUnknown(s.cpuModel), s.onlineCpus,
            s.mhz > 0 ? fmt::format(", {:.0f} MHz", s.mhz) : std::string()));
    row("microcode", orUnknown(s.microcode));
    row("smt", std::string(toString(s.smtActive)));
    row("governor", s.governor.empty() ? "unknown (no cpufreq)" : s.governor);
    row("caches", cachesText(caches));
    row("hypervisor",
        s.hypervisor ? "yes" + (s.hypervisorVendor.empty() ? "" : " (" + s.hypervisorVendor + ")") : "no");
    row("clocksource", orUnknown(s.clocksource));
    row("idle states",
        s.idleStates.empty()
            ? "none (no cpuidle here)"
            : formatIdleStates(s.idleStates) + (s.idleDriver.empty() ? "" : " (" + s.idleDriver + ")"));
    row("idle governor", s.idleGovernor.empty() ? "none" : s.idleGovernor);
    row("cpu_dma_latency", cpuDmaLatencyText(s.cpuDmaLatencyUs));
    if (s.haltPollNs)
        row("haltpoll", "polls " + std::to_string(*s.haltPollNs) + " ns before it halts");
    row("invariant tsc", s.invariantTsc ? "yes" : "no");
    row("isolcpus", s.isolcpus.empty() ? "none" : s.isolcpus);
    row("nohz_full", s.nohzFull.empty() ? "none" : s.nohzFull);
    row("cgroup cpuset", orUnknown(s.cgroupCpuset));
    row("SCHED_FIFO allowed", s.rtPriorityAllowed ? "yes" : "no (needs CAP_SYS_NICE or RLIMIT_RTPRIO)");
    row("build", s.sanitizerBuild ? "sanitizer" : s.debugBuild ? "debug" : "release");
    printActivity(activity, row);
    auto section = [](std::string_view title, const std::map<std::string, std::string>& entries) {
        std::size_t width = 0;
        for (const auto& entry : entries)
            width = std::max(width, entry.first.size());
        fmt::print("{}:{}\n", title, entries.empty() ? " none readable" : "");
        for (const auto& [k, v] : entries)
            fmt::print("  {:<{}}  {}\n", k, width, v);
    };
    section("scheduler tunables", s.schedTunables);
    section("CPU vulnerabilities", s.mitigations);
    for (const auto& w : machineWarnings(s))
        fmt::print("warning: {}\n", w);
    if (!caches.warning.empty())
        fmt::print("warning: {}\n", caches.warning);
}

} // namespace

Command addSysinfoCommand(CLI::App& app)
{
    auto json = std::make_shared<bool>(false);
    auto seconds = std::make_shared<double>(1.0);
    CLI::App* sub = app.add_subcommand("sysinfo", "What this machine and build say about measurement conditions");
    sub->add_flag("--json", *json, "Print JSON instead of text");
    sub->add_option("--seconds", *seconds,
           "How long to watch the whole machine for its busy and steal shares and context switches per second")
        ->check(CLI::Range(0.1, 60.0));
    return { sub, [json, seconds] {
                // First, while this process does nothing else: its own work would count.
                const auto activity
                    = sampleSystemActivity(std::chrono::milliseconds(static_cast<long>(*seconds * 1000)));
                const SysInfo info = readSysInfo();
                const Caches caches = readCaches();
                if (*json) {
                    nlohmann::json j = toJson(info);
                    j["caches"] = cachesJson(caches);
                    j["activity"]
                        = activity ? toJson(*activity) : nlohmann::json({ { "error", activity.error().message } });
                    fmt::print("{}\n", j.dump(2));
                } else {
                    printText(info, caches, activity);
                }
                return kOk;
            } };
}

} // namespace ctxscope::cli
