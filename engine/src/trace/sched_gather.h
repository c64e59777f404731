// SPDX-License-Identifier: MIT
// What SchedWatch does with each event, apart from reading them: per thread, the waits from
// runnable to running, the wakers and preemptors, the moves between CPUs. Fed the events in
// time order; what is pending (a wake-up not yet run, the CPU a thread last ran on) is kept
// across take()s.
#pragma once

#include "ctxscope/sched_watch.h"
#include "ctxscope/topology.h"
#include "ctxscope/trace.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ctxscope::trace {

class SchedGatherer {
public:
    explicit SchedGatherer(std::optional<Topology> topology = std::nullopt);
    // One sched_waking, sched_wakeup_new or sched_switch (other kinds are ignored); `comms`
    // names the tasks.
    void add(const TraceEvent& e, const std::map<int, std::string>& comms);
    // The figures gathered since the last take() (each thread's lostEvents set to `lostEvents`),
    // every task the events name included; what is pending stays.
    std::map<long, ThreadSched> take(std::uint64_t lostEvents);
    // Drops the figures gathered so far; what is pending stays.
    void forget() { m_gathered.clear(); }

private:
    struct Pending {
        std::uint64_t readyNs = 0;
        // Set at a switch-out to sleep of a thread woken while it still ran: either the wake-up
        // raced the switch (it is runnable from the switch-out on) or it came before the thread
        // went on to sleep again later. A wake-up before the next switch-in says it was the latter.
        bool leftWoken = false;
    };
    struct Gathered {
        std::vector<double> waits;
        std::uint64_t switchIns = 0;
        std::map<long, SchedPeer> wakers;
        std::map<long, SchedPeer> preemptors;
        std::map<std::pair<int, int>, SchedMigration> migrations;
        std::uint64_t unrecorded = 0;
    };

    void switchedOut(const TraceEvent& e, const std::map<int, std::string>& comms);
    void switchedIn(Gathered& g, const TraceEvent& e);

    std::optional<Topology> m_topology;
    std::unordered_map<long, Pending> m_pending;
    std::unordered_map<long, int> m_lastCpu;
    std::unordered_set<long> m_running; // seen switched in, not yet out
    std::unordered_map<long, Gathered> m_gathered; // since the last take()
};

} // namespace ctxscope::trace
