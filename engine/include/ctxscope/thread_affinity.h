// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <string>
#include <vector>

namespace ctxscope {

// The calling thread's kernel id (gettid), so that another thread can move it.
int currentThreadId();
// The CPUs a thread (0: the calling one) may run on, ascending; empty when unreadable.
std::vector<int> threadAffinity(int tid);
// On failure errno holds the kernel's reason (EPERM, ESRCH, EINVAL).
Status setThreadAffinity(int tid, const std::vector<int>& cpus);

// Keeps one thread (the worker's reader: it wakes for every command and would steal time
// from a measured task) on allowed PUs a job does not measure while this object lives,
// then gives the thread its affinity back. With no PU to spare it stays where it is, and
// warning() says so for the job's result.
class KeepThreadOff {
public:
    KeepThreadOff(const Topology& topology, int tid, const std::vector<int>& measured);
    ~KeepThreadOff();
    KeepThreadOff(const KeepThreadOff&) = delete;
    KeepThreadOff& operator=(const KeepThreadOff&) = delete;

    const std::vector<int>& placedOn() const { return m_placedOn; } // empty: not moved
    const std::string& warning() const { return m_warning; } // empty: kept off
private:
    int m_tid;
    std::vector<int> m_original;
    std::vector<int> m_placedOn;
    std::string m_warning;
};

} // namespace ctxscope
