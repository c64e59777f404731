// SPDX-License-Identifier: MIT
// What the self-benchmarks share: a median, a steady clock in ns, a process's CPU time and the
// load average.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <vector>

#include <sys/types.h>

namespace ctxscope::perf {

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline double nowNs()
{
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The CPU time (user + system) a process used so far, all its threads, in ns.
inline std::optional<double> processCpuNs(pid_t pid)
{
    clockid_t clock {};
    timespec ts {};
    if (::clock_getcpuclockid(pid, &clock) != 0 || ::clock_gettime(clock, &ts) != 0)
        return std::nullopt;
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// The 1-minute load average, -1 when it cannot be read.
inline double load1()
{
    double load[1] = {};
    return ::getloadavg(load, 1) == 1 ? load[0] : -1;
}

} // namespace ctxscope::perf
