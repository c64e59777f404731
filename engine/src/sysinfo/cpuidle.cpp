// SPDX-License-Identifier: MIT
// cpuidle's configuration as sysfs states it (ctxscope/sysinfo.h): the machine's idle facts and
// the names of the idle states a trace's idle exits left (nameIdleStates, handover.cpp, takes it
// as data so tests give it made-up states).
#include "ctxscope/sysinfo.h"

#include "os/procfs.h"

#include <charconv>
#include <string>

namespace ctxscope {

CpuIdleConfig readCpuIdle(int cpu, const std::string& root)
{
    CpuIdleConfig c;
    c.driver = readFirstLine(root + "/cpuidle/current_driver").value_or("");
    c.governor = readFirstLine(root + "/cpuidle/current_governor_ro")
                     .value_or(readFirstLine(root + "/cpuidle/current_governor").value_or(""));
    const std::string dir = root + "/cpu" + std::to_string(cpu) + "/cpuidle/state";
    // Numbered from 0 without gaps; the first state missing ends them.
    for (int k = 0; k < 64; ++k) {
        const auto name = readFirstLine(dir + std::to_string(k) + "/name");
        if (!name)
            break;
        IdleState s;
        s.index = k;
        s.name = *name;
        if (const auto latency = readFirstLine(dir + std::to_string(k) + "/latency")) {
            double us = 0;
            if (std::from_chars(latency->data(), latency->data() + latency->size(), us).ec == std::errc {})
                s.exitLatencyUs = us;
        }
        s.disabled = readFirstLine(dir + std::to_string(k) + "/disable").value_or("0") == "1";
        c.states.push_back(std::move(s));
    }
    return c;
}

} // namespace ctxscope
