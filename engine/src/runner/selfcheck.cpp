// SPDX-License-Identifier: MIT
#include "runner/selfcheck.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ctxscope::run {

namespace {
int openCounter(std::uint64_t config) noexcept
{
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = config;
    attr.exclude_hv = 1;
    // pid 0, cpu -1: this thread, on whatever CPU it runs.
    return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::uint64_t readCounter(int fd) noexcept
{
    std::uint64_t value = 0;
    if (fd < 0 || ::read(fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value))
        return 0;
    return value;
}
} // namespace

void PerfCounters::open() noexcept
{
    close();
    m_error = 0;
    m_switches = openCounter(PERF_COUNT_SW_CONTEXT_SWITCHES);
    if (m_switches < 0) {
        m_error = errno;
        return;
    }
    m_migrations = openCounter(PERF_COUNT_SW_CPU_MIGRATIONS);
    if (m_migrations < 0) {
        m_error = errno;
        close();
        m_error = m_error ? m_error : EPERM;
    }
}

void PerfCounters::close() noexcept
{
    for (int* fd : { &m_switches, &m_migrations }) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}

SwitchCounts snapshot(const PerfCounters& perf) noexcept
{
    SwitchCounts c;
    rusage usage {};
    if (::getrusage(RUSAGE_THREAD, &usage) == 0) {
        c.voluntary = static_cast<std::uint64_t>(usage.ru_nvcsw);
        c.involuntary = static_cast<std::uint64_t>(usage.ru_nivcsw);
        const auto ns = [](const timeval& tv) {
            return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000'000U
                + static_cast<std::uint64_t>(tv.tv_usec) * 1000U;
        };
        c.cpuNs = ns(usage.ru_utime) + ns(usage.ru_stime);
    }
    c.perfSwitches = readCounter(perf.m_switches);
    c.perfMigrations = readCounter(perf.m_migrations);
    return c;
}

int perfEventParanoid()
{
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    int value = -99;
    if (!(in >> value))
        return -99;
    return value;
}

} // namespace ctxscope::run
