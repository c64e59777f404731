// SPDX-License-Identifier: MIT
#include "commands.h"

#include "ctxscope/sysinfo.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include <algorithm>

namespace ctxscope::cli {

namespace {

std::string orUnknown(const std::string& s) { return s.empty() ? "unknown" : s; }

void printText(const SysInfo& s)
{
    auto row = [](std::string_view key, const std::string& value) { fmt::print("{:<22}{}\n", key, value); };
    row("host", s.hostName);
    row("kernel", s.kernel);
    row("cpu",
        fmt::format("{} ({} online CPUs{})", orUnknown(s.cpuModel), s.onlineCpus,
            s.mhz > 0 ? fmt::format(", {:.0f} MHz", s.mhz) : std::string()));
    row("smt", std::string(toString(s.smtActive)));
    row("governor", s.governor.empty() ? "unknown (no cpufreq)" : s.governor);
    row("hypervisor",
        s.hypervisor ? "yes" + (s.hypervisorVendor.empty() ? "" : " (" + s.hypervisorVendor + ")") : "no");
    row("clocksource", orUnknown(s.clocksource));
    row("invariant tsc", s.invariantTsc ? "yes" : "no");
    row("isolcpus", s.isolcpus.empty() ? "none" : s.isolcpus);
    row("nohz_full", s.nohzFull.empty() ? "none" : s.nohzFull);
    row("cgroup cpuset", orUnknown(s.cgroupCpuset));
    row("SCHED_FIFO allowed", s.rtPriorityAllowed ? "yes" : "no (needs CAP_SYS_NICE or RLIMIT_RTPRIO)");
    row("build", s.sanitizerBuild ? "sanitizer" : s.debugBuild ? "debug" : "release");
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
}

} // namespace

Command addSysinfoCommand(CLI::App& app)
{
    auto json = std::make_shared<bool>(false);
    CLI::App* sub = app.add_subcommand("sysinfo", "What this machine and build say about measurement conditions");
    sub->add_flag("--json", *json, "Print JSON instead of text");
    return { sub, [json] {
                const SysInfo info = readSysInfo();
                if (*json)
                    fmt::print("{}\n", toJson(info).dump(2));
                else
                    printText(info);
                return kOk;
            } };
}

} // namespace ctxscope::cli
