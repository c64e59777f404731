// SPDX-License-Identifier: MIT
#include "ctxscope/sysinfo.h"

#include "os/procfs.h"

#include <nlohmann/json.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ctxscope {

namespace {

const std::string kCpuDir = "/sys/devices/system/cpu/";

bool hasFlag(const std::string& flags, const std::string& flag)
{
    std::istringstream in(flags);
    std::string f;
    while (in >> f)
        if (f == flag)
            return true;
    return false;
}

// The vendor signature a hypervisor puts in CPUID leaf 0x40000000 ("KVMKVMKVM", "Microsoft Hv").
std::string cpuidHypervisorVendor()
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    __cpuid(0x40000000U, eax, ebx, ecx, edx);
    char vendor[13] = {};
    for (int i = 0; i < 4; ++i) {
        vendor[i] = static_cast<char>((ebx >> (8 * i)) & 0xff);
        vendor[4 + i] = static_cast<char>((ecx >> (8 * i)) & 0xff);
        vendor[8 + i] = static_cast<char>((edx >> (8 * i)) & 0xff);
    }
    std::string v(vendor);
    while (!v.empty() && (v.back() == '\0' || v.back() == ' '))
        v.pop_back();
    return v;
#else
    return {};
#endif
}

std::string kernelParameter(const std::string& cmdline, const std::string& name)
{
    std::istringstream in(cmdline);
    std::string word;
    while (in >> word)
        if (word.compare(0, name.size() + 1, name + "=") == 0)
            return word.substr(name.size() + 1);
    return {};
}

void readGovernor(SysInfo& info)
{
    std::string first;
    bool allPerformance = true;
    bool any = false;
    for (int cpu = 0; cpu < info.onlineCpus; ++cpu) {
        auto g = readFirstLine(kCpuDir + "cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor");
        if (!g)
            continue;
        any = true;
        if (first.empty())
            first = *g;
        allPerformance = allPerformance && *g == "performance";
    }
    info.governor = first;
    info.governorPerformance = !any ? TriState::Unknown : allPerformance ? TriState::On : TriState::Off;
}

void readMitigations(SysInfo& info)
{
    const std::string dir = kCpuDir + "vulnerabilities/";
    DIR* d = opendir(dir.c_str());
    if (!d)
        return;
    while (const dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name.empty() || name[0] == '.')
            continue;
        if (auto status = readFirstLine(dir + name))
            info.mitigations[name] = *status;
    }
    closedir(d);
}

std::string readCgroupCpuset()
{
    // cgroup v2: the unified hierarchy's path is on the "0::" line of /proc/self/cgroup.
    auto cgroups = readSmallFile("/proc/self/cgroup").value_or("");
    std::istringstream in(cgroups);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("0::", 0) == 0) {
            if (auto v = readFirstLine("/sys/fs/cgroup" + line.substr(3) + "/cpuset.cpus.effective"))
                return *v;
        } else if (auto pos = line.find(":cpuset:"); pos != std::string::npos) {
            const std::string path = line.substr(pos + 8);
            for (const char* file : { "/cpuset.effective_cpus", "/cpuset.cpus" })
                if (auto v = readFirstLine("/sys/fs/cgroup/cpuset" + path + file))
                    return *v;
        }
    }
    return {};
}

void readSchedTunables(SysInfo& info)
{
    for (const char* name : { "sched_autogroup_enabled", "sched_child_runs_first", "sched_rr_timeslice_ms",
             "sched_rt_period_us", "sched_rt_runtime_us", "sched_migration_cost_ns", "sched_min_granularity_ns",
             "sched_wakeup_granularity_ns", "sched_latency_ns" })
        if (auto v = readFirstLine(std::string("/proc/sys/kernel/") + name))
            info.schedTunables[name] = *v;
    for (const char* name :
        { "base_slice_ns", "migration_cost_ns", "latency_ns", "min_granularity_ns", "wakeup_granularity_ns" })
        if (auto v = readFirstLine(std::string("/sys/kernel/debug/sched/") + name))
            info.schedTunables[std::string("debug/") + name] = *v;
}

// The PM QoS CPU latency limit in force: /dev/cpu_dma_latency reads as one s32 in µs. Opening it
// adds a request of the default value, which limits nothing, and closing it removes it.
std::optional<std::int64_t> readCpuDmaLatency()
{
    const int fd = ::open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::int32_t us = 0;
    const ssize_t n = ::read(fd, &us, sizeof us);
    ::close(fd);
    if (n != static_cast<ssize_t>(sizeof us))
        return std::nullopt;
    return us;
}

void readIdleStates(SysInfo& info)
{
    const CpuIdleConfig idle = readCpuIdle(0, kCpuDir.substr(0, kCpuDir.size() - 1));
    info.idleDriver = idle.driver;
    info.idleGovernor = idle.governor;
    info.idleStates = idle.states;
    info.cpuDmaLatencyUs = readCpuDmaLatency();
    // The haltpoll governor's parameters exist wherever it is built in; they apply only in use.
    if (idle.governor == "haltpoll" || idle.driver == "haltpoll")
        if (const auto poll = readFirstLine("/sys/module/haltpoll/parameters/guest_halt_poll_ns"))
            info.haltPollNs = std::strtoull(poll->c_str(), nullptr, 10);
}

bool rtAllowed()
{
    rlimit rl {};
    if (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur > 0)
        return true;
    // Without an RT rlimit only CAP_SYS_NICE helps; asking the kernel is the only sure test.
    sched_param current {};
    const int policy = sched_getscheduler(0);
    if (policy < 0 || sched_getparam(0, &current) != 0)
        return false;
    sched_param fifo {};
    fifo.sched_priority = 1;
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &fifo) != 0)
        return false;
    sched_setscheduler(0, policy, &current);
    return true;
}

} // namespace

std::string_view toString(TriState state)
{
    switch (state) {
    case TriState::On:
        return "on";
    case TriState::Off:
        return "off";
    case TriState::Unknown:
        break;
    }
    return "unknown";
}

SysInfo readSysInfo()
{
    SysInfo info;
    utsname u {};
    if (uname(&u) == 0) {
        info.hostName = u.nodename;
        info.kernel = u.release;
    }
    info.onlineCpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    const std::string cpuinfo = readSmallFile("/proc/cpuinfo").value_or("");
    info.cpuModel = cpuinfoField(cpuinfo, "model name");
    info.microcode = cpuinfoField(cpuinfo, "microcode");
    if (const std::string mhz = cpuinfoField(cpuinfo, "cpu MHz"); !mhz.empty())
        info.mhz = std::strtod(mhz.c_str(), nullptr);
    const std::string flags = cpuinfoField(cpuinfo, "flags");
    info.hypervisor = hasFlag(flags, "hypervisor");
    info.invariantTsc = hasFlag(flags, "constant_tsc") && hasFlag(flags, "nonstop_tsc");
    if (info.hypervisor)
        info.hypervisorVendor = hypervisorName(readFirstLine("/sys/hypervisor/type").value_or(cpuidHypervisorVendor()));
    if (auto smt = readFirstLine(kCpuDir + "smt/active"))
        info.smtActive = *smt == "1" ? TriState::On : TriState::Off;
    readGovernor(info);
    readMitigations(info);
    readIdleStates(info);
    info.clocksource = readFirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource").value_or("");
    const std::string cmdline = readFirstLine("/proc/cmdline").value_or("");
    info.isolcpus = kernelParameter(cmdline, "isolcpus");
    info.nohzFull = kernelParameter(cmdline, "nohz_full");
    info.cgroupCpuset = readCgroupCpuset();
    readSchedTunables(info);
    info.rtPriorityAllowed = rtAllowed();
#ifndef NDEBUG
    info.debugBuild = true;
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    info.sanitizerBuild = true;
#endif
    return info;
}

std::string formatIdleStates(const std::vector<IdleState>& states)
{
    std::string out;
    for (const IdleState& s : states) {
        if (!out.empty())
            out += ", ";
        std::ostringstream latency;
        latency << s.exitLatencyUs;
        out += s.name + " " + latency.str() + " us" + (s.disabled ? " (disabled)" : "");
    }
    return out.empty() ? "none" : out;
}

std::string cpuDmaLatencyText(const std::optional<std::int64_t>& us)
{
    if (!us)
        return "unknown (reading /dev/cpu_dma_latency needs root)";
    if (*us >= kNoCpuLatencyLimitUs)
        return "none (no program limits it)";
    if (*us == 0)
        return "0 us (a program holds every CPU in its shallowest idle state)";
    return std::to_string(*us) + " us (a program keeps the CPUs out of idle states slower to leave)";
}

nlohmann::json toJson(const SysInfo& info)
{
    nlohmann::json idle = nlohmann::json::array();
    for (const IdleState& s : info.idleStates)
        idle.push_back({ { "name", s.name }, { "exit_latency_us", s.exitLatencyUs }, { "disabled", s.disabled } });
    return { { "host_name", info.hostName }, { "kernel", info.kernel }, { "cpu_model", info.cpuModel },
        { "microcode", info.microcode }, { "online_cpus", info.onlineCpus }, { "mhz", info.mhz },
        { "smt_active", std::string(toString(info.smtActive)) }, { "governor", info.governor },
        { "governor_performance", std::string(toString(info.governorPerformance)) },
        { "mitigations", info.mitigations }, { "hypervisor", info.hypervisor },
        { "hypervisor_vendor", info.hypervisorVendor }, { "clocksource", info.clocksource },
        { "idle_driver", info.idleDriver }, { "idle_governor", info.idleGovernor }, { "idle_states", std::move(idle) },
        { "cpu_dma_latency_us",
            info.cpuDmaLatencyUs ? nlohmann::json(*info.cpuDmaLatencyUs) : nlohmann::json(nullptr) },
        { "haltpoll_ns", info.haltPollNs ? nlohmann::json(*info.haltPollNs) : nlohmann::json(nullptr) },
        { "invariant_tsc", info.invariantTsc }, { "isolcpus", info.isolcpus }, { "nohz_full", info.nohzFull },
        { "cgroup_cpuset", info.cgroupCpuset }, { "sched_tunables", info.schedTunables },
        { "rt_priority_allowed", info.rtPriorityAllowed }, { "debug_build", info.debugBuild },
        { "sanitizer_build", info.sanitizerBuild } };
}

std::vector<std::string> machineWarnings(const SysInfo& info)
{
    std::vector<std::string> out;
    if (info.hypervisor)
        out.push_back("This is a virtual machine"
            + (info.hypervisorVendor.empty() ? std::string() : " (" + info.hypervisorVendor + ")")
            + ": a wake-up on another vCPU goes through the hypervisor and costs several times a bare-metal one.");
    if (info.governorPerformance == TriState::Off)
        out.push_back("The CPU frequency governor is '" + info.governor
            + "', not 'performance': clock speed may change during the run.");
    else if (info.governorPerformance == TriState::Unknown)
        out.push_back("The CPU frequency governor is unknown (no cpufreq here): clock speed may vary.");
    if (info.sanitizerBuild)
        out.push_back("This is a sanitizer build: every number is inflated; use the release build to measure.");
    else if (info.debugBuild)
        out.push_back("This is a debug build: numbers are inflated; use the release build to measure.");
    return out;
}

} // namespace ctxscope
