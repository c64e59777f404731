// SPDX-License-Identifier: MIT
// What the kernel counted for the calling thread: rusage context switches and the perf
// software counters. Safe in a forked child (syscalls only).
#pragma once

#include <cstdint>

namespace ctxscope::run {

struct SwitchCounts {
    std::uint64_t voluntary = 0;
    std::uint64_t involuntary = 0;
    std::uint64_t cpuNs = 0; // user + system time of the thread
    std::uint64_t perfSwitches = 0;
    std::uint64_t perfMigrations = 0;
};

// PERF_COUNT_SW_CONTEXT_SWITCHES and PERF_COUNT_SW_CPU_MIGRATIONS of the calling thread.
// Kernel-side counting is required: with exclude_kernel (all perf_event_paranoid = 2
// allows) a switch, which happens in the kernel, is never counted and the counter reads
// 0. So when the kernel-side counter is refused, we report "not permitted", not a 0.
class PerfCounters {
public:
    PerfCounters() = default;
    PerfCounters(const PerfCounters&) = delete;
    PerfCounters& operator=(const PerfCounters&) = delete;
    ~PerfCounters() { close(); }

    void open() noexcept;
    void close() noexcept;
    int error() const { return m_error; } // errno of the refusal, 0 when counting
    bool counting() const { return m_switches >= 0 && m_migrations >= 0; }

private:
    friend SwitchCounts snapshot(const PerfCounters& perf) noexcept;
    int m_switches = -1;
    int m_migrations = -1;
    int m_error = 0;
};

// The calling thread's counters now (perf fields stay 0 when not counting).
SwitchCounts snapshot(const PerfCounters& perf) noexcept;

// /proc/sys/kernel/perf_event_paranoid, or -99 when unreadable.
int perfEventParanoid();

} // namespace ctxscope::run
