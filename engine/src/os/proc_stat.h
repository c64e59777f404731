// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

// Readers of the system-wide counters in /proc/stat, /proc/interrupts and /proc/softirqs:
// pure functions of the file's text, so recorded texts from other kernels and machines test
// them, and garbage gives a sentence instead of a figure. Interference accounting (what else
// ran on the measured CPUs) and watching running programs read through these, never by hand.
namespace ctxscope::os {

// One "cpuN" (or the aggregate "cpu") line of /proc/stat, in USER_HZ ticks. Kernels before
// 2.6.11 have no steal column; `hasSteal` says whether this one had it.
struct CpuTimes {
    int cpu = -1; // -1 for the aggregate line
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    std::uint64_t guest = 0, guestNice = 0; // already counted in user and nice
    bool hasSteal = false;

    // Time the CPU ran anything (tasks, interrupts, softirqs), steal excluded.
    std::uint64_t busy() const { return user + nice + system + irq + softirq; }
    // Every tick of the CPU's wall time that /proc/stat accounts for.
    std::uint64_t total() const { return busy() + idle + iowait + steal; }
};

struct ProcStat {
    CpuTimes all;
    std::vector<CpuTimes> cpus; // online CPUs only, in the file's order (offline ones are absent)
    std::optional<std::uint64_t> contextSwitches; // the "ctxt" line: vmstat's cs column, summed

    const CpuTimes* cpu(int n) const;
};

Expected<ProcStat> parseProcStat(std::string_view text);

// The per-CPU totals of /proc/interrupts or /proc/softirqs: the header names the online CPUs
// ("CPU0 CPU1 CPU3"); each row gives one count per online CPU (interrupts rows then carry a
// description, which is ignored). ERR and MIS hold one system-wide count and are left out.
struct PerCpuCount {
    int cpu = 0;
    std::uint64_t count = 0;
};
// `what` names the file in the error sentence ("/proc/interrupts").
Expected<std::vector<PerCpuCount>> parsePerCpuCounters(std::string_view text, std::string_view what);

} // namespace ctxscope::os
