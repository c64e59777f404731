// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "ctxscope/expected.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

// A fact that may be unreadable here (a VM without cpufreq, a locked-down /sys).
enum class TriState { Off, On, Unknown };
std::string_view toString(TriState state);

// One idle state of CPU 0 as cpuidle lists it (/sys/devices/system/cpu/cpu0/cpuidle/stateN):
// what a sleeping CPU may enter, and how long it takes to wake from it.
struct IdleState {
    std::string name; // "POLL", "C1", "C6", ...
    double exitLatencyUs = 0; // "latency": the worst-case exit latency in microseconds
    bool disabled = false; // "disable" is 1: the kernel does not enter it
    int index = 0; // N of stateN: power:cpu_idle's state number
    friend bool operator==(const IdleState&, const IdleState&) = default;
};

// cpuidle as /sys/devices/system/cpu states it: the driver ("none" or "" without one), the
// governor, and one CPU's states. The one reader of cpuidle: the machine's facts (SysInfo) and
// the naming of a trace's idle exits (nameIdleStates, handover.h) both take it.
struct CpuIdleConfig {
    std::string driver;
    std::string governor; // "menu", "teo", "haltpoll", "ladder"; "" when none
    std::vector<IdleState> states;
    bool hasDriver() const { return !driver.empty() && driver != "none" && !states.empty(); }
};

// cpuidle's configuration under `root` (/sys/devices/system/cpu), CPU `cpu`'s states.
CpuIdleConfig readCpuIdle(int cpu, const std::string& root = "/sys/devices/system/cpu");
// "POLL 0 us, C1 2 us, C6 133 us (disabled)"; "none" for no states.
std::string formatIdleStates(const std::vector<IdleState>& states);
// The kernel's PM QoS default: no latency limit (2,000 s).
inline constexpr std::int64_t kNoCpuLatencyLimitUs = 2'000'000'000;
// "0 µs (every CPU held in its shallowest state)", "none", "unknown (reading it needs root)".
std::string cpuDmaLatencyText(const std::optional<std::int64_t>& us);

// What the machine and the build say about how trustworthy a measurement is. Read from
// /proc and /sys; every field that cannot be read says so instead of guessing.
struct SysInfo {
    std::string hostName;
    std::string kernel; // uname -r
    std::string cpuModel;
    std::string microcode; // /proc/cpuinfo's "microcode" ("0x1000065"), "" when it does not say
    int onlineCpus = 0;
    double mhz = 0; // from /proc/cpuinfo, 0 when absent
    TriState smtActive = TriState::Unknown;
    std::string governor; // "performance", "powersave", ..., or "" when unknown
    TriState governorPerformance = TriState::Unknown; // every online CPU uses "performance"
    std::map<std::string, std::string> mitigations; // vulnerability -> status
    bool hypervisor = false; // the CPU's hypervisor flag
    std::string hypervisorVendor; // "KVM", "Hyper-V", ... (hypervisorName), "" when unknown
    std::string clocksource; // current_clocksource
    // cpuidle of CPU 0 (readCpuIdle); empty when cpuidle is absent (many VMs) or unreadable.
    std::vector<IdleState> idleStates;
    std::string idleDriver; // cpuidle/current_driver ("intel_idle", "acpi_idle", "haltpoll"), "" when none
    std::string idleGovernor; // cpuidle's governor ("menu", "teo", "haltpoll"), "" when none
    // The PM QoS CPU latency limit in force (/dev/cpu_dma_latency, readable by root): 0 holds
    // every CPU in its shallowest state; kNoCpuLatencyLimitUs and above, no program asks for one.
    // None when it could not be read.
    std::optional<std::int64_t> cpuDmaLatencyUs;
    // cpuidle-haltpoll's guest poll before it halts (/sys/module/haltpoll/parameters), ns; none
    // where neither the haltpoll driver nor its governor is in use.
    std::optional<std::uint64_t> haltPollNs;
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
// A hypervisor as people write it, from its CPUID signature or /sys/hypervisor/type:
// "KVMKVMKVM" -> "KVM", "Microsoft Hv" -> "Hyper-V", "xen" -> "Xen", "bhyve bhyve " -> "bhyve";
// a name it already is stays; an unknown one comes back trimmed.
std::string hypervisorName(std::string_view signature);
nlohmann::json toJson(const SysInfo& info);

// Sentences about the machine that apply to every result (hypervisor, governor, build).
std::vector<std::string> machineWarnings(const SysInfo& info);

// What the whole machine did over a few seconds (from /proc/stat read twice): how much the
// hypervisor stole and how often the CPUs switched tasks, so a noisy machine shows before
// measuring. Kept out of SysInfo: it waits for the interval.
struct SystemActivity {
    double seconds = 0;
    double busyShare = 0; // user + nice + system + irq + softirq, of all CPUs' time
    std::optional<double> stealShare; // none on a kernel without the steal column
    std::optional<double> contextSwitchesPerS; // vmstat's cs column; none without a ctxt line
};
Expected<SystemActivity> sampleSystemActivity(std::chrono::milliseconds interval);
// The same figures from two readings of /proc/stat `seconds` apart (tests give recorded ones).
Expected<SystemActivity> systemActivityBetween(std::string_view before, std::string_view after, double seconds);
nlohmann::json toJson(const SystemActivity& activity);

} // namespace ctxscope
