// SPDX-License-Identifier: MIT
// A watched thread's scheduler figures added up over a whole watch (SchedWatch gives them an
// interval at a time).
#pragma once

#include "ctxscope/sched_watch.h"
#include "ctxscope/stats.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ctxscope {

// One thread's figures over many intervals (the watch's summary): its waits in a histogram
// (percentiles within 3%), the rest added up.
class SchedTotal {
public:
    void add(const ThreadSched& interval);
    ThreadSched figures() const;

private:
    LogHistogram m_waits { 16 };
    double m_sumNs = 0;
    double m_maxNs = 0;
    std::vector<std::uint64_t> m_log2;
    std::uint64_t m_binned = 0; // waits known only by their bin (the BPF backend's)
    // The same waits from the enqueue (ThreadSched::fromEnqueue): the BPF backend's.
    bool m_enqueueKnown = false;
    std::uint64_t m_queued = 0;
    double m_queuedSumNs = 0;
    std::vector<std::uint64_t> m_queuedLog2Us;
    std::uint64_t m_switchIns = 0;
    std::uint64_t m_unrecorded = 0;
    std::uint64_t m_lost = 0;
    std::map<long, SchedPeer> m_wakers;
    std::map<long, SchedPeer> m_preemptors;
    std::map<std::pair<int, int>, SchedMigration> m_migrations;
};

// The figures of a set of waits: exact mean, percentiles and max, runqlat's log2 bins.
WakeLatency wakeLatencyOf(std::vector<double> waitsNs);

} // namespace ctxscope
