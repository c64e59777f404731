// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace ctxscope {

// A fact that may be unreadable here (a VM without cpufreq, a locked-down /sys).
enum class TriState { Off, On, Unknown };
std::string_view toString(TriState state);

// What the machine and the build say about how trustworthy a measurement is. Read from
// /proc and /sys; every field that cannot be read says so instead of guessing.
struct SysInfo {
    std::string hostName;
    std::string kernel; // uname -r
    std::string cpuModel;
    int onlineCpus = 0;
    double mhz = 0; // from /proc/cpuinfo, 0 when absent
    TriState smtActive = TriState::Unknown;
    std::string governor; // "performance", "powersave", ..., or "" when unknown
    TriState governorPerformance = TriState::Unknown; // every online CPU uses "performance"
    std::map<std::string, std::string> mitigations; // vulnerability -> status
    bool hypervisor = false; // the CPU's hypervisor flag
    std::string hypervisorVendor; // from /sys/hypervisor or the DMI product, "" when unknown
    std::string clocksource; // current_clocksource
    bool invariantTsc = false; // constant_tsc and nonstop_tsc
    std::string isolcpus; // from the kernel command line, "" when none
    std::string nohzFull;
    std::string cgroupCpuset; // cpuset.cpus.effective of this process's cgroup, "" when unknown
    std::map<std::string, std::string> schedTunables; // readable /proc/sys/kernel/sched_* and debugfs
    bool rtPriorityAllowed = false; // SCHED_FIFO possible (CAP_SYS_NICE or RLIMIT_RTPRIO > 0)
    bool debugBuild = false;
    bool sanitizerBuild = false;
};

SysInfo readSysInfo();
nlohmann::json toJson(const SysInfo& info);

// Sentences about the machine that apply to every result (hypervisor, governor, build).
std::vector<std::string> machineWarnings(const SysInfo& info);

} // namespace ctxscope
