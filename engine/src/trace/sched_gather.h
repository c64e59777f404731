// SPDX-License-Identifier: MIT
// What SchedWatch does with each event, apart from reading them: per thread, the waits from
// runnable to running, the wakers and preemptors, the moves between CPUs. Fed the events in
// time order; what is pending (a wake-up not yet run, the CPU a thread last ran on) is kept
// across take()s.
#pragma once

#include "ctxscope/sched_watch.h"
#include "ctxscope/topology.h"
#include "ctxscope/trace.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ctxscope::trace {

class SchedGatherer {
public:
    struct Peer {
        long tid = 0;
        std::uint64_t count = 0;
    };

    explicit SchedGatherer(std::optional<Topology> topology = std::nullopt);
    // One sched_waking, sched_wakeup_new or sched_switch (other kinds are ignored). A watch
    // feeds tens of thousands a second: one lookup of each task the event names, no names.
    void add(const TraceEvent& e);
    // The figures gathered since the last take() (each thread's lostEvents set to `lostEvents`,
    // its wakers and preemptors named from `comms`) of every task that gathers them (see follow()); what
    // is pending stays.
    std::map<long, ThreadSched> take(std::uint64_t lostEvents, const std::map<int, std::string>& comms);
    // From the first call on, only these tasks (and those of later calls) gather interval
    // figures (waits, peers, moves); the others keep only their counts. A watch follows one
    // program: a busy task of another one, preempted by hundreds of its threads in turn, had as
    // many peers to search at every switch.
    void follow(const std::vector<long>& tids);
    // Drops the figures and counts gathered so far; what is pending stays, and a task on a CPU
    // counts its run from `atNs` on.
    void forget(std::uint64_t atNs);
    // Every task's running totals since forget(), a task on a CPU counting its run up to `atNs`.
    std::unordered_map<long, SchedCounts> counts(std::uint64_t atNs) const;

private:
    struct Pending {
        std::uint64_t readyNs = 0;
        // Set at a switch-out to sleep of a thread woken while it still ran: either the wake-up
        // raced the switch (it is runnable from the switch-out on) or it came before the thread
        // went on to sleep again later. A wake-up before the next switch-in says it was the latter.
        bool leftWoken = false;
    };
    // One interval's figures of one task. Peers and moves are few: searched in place.
    struct Gathered {
        bool any = false;
        std::vector<double> waits;
        std::uint64_t switchIns = 0;
        std::vector<Peer> wakers;
        std::vector<Peer> preemptors;
        std::vector<SchedMigration> migrations;
        std::uint64_t unrecorded = 0;
    };
    // Everything known of one task, found with one lookup per event.
    struct Task {
        long tid = 0;
        std::optional<Pending> pending; // runnable (woken or preempted), not yet run
        std::optional<std::uint64_t> runningSince; // seen switched in, not yet out
        int lastCpu = -1;
        SchedCounts counts; // since forget()
        Gathered gathered; // since take()
        bool gathers = true; // followed (see follow())
    };

    // The task of `tid`, made when it is new: inline, as it runs for every task an event names.
    Task& task(long tid)
    {
        const auto at = static_cast<std::size_t>(tid); // a negative one is far past kSlotTids
        if (const std::size_t block = at / kSlotBlock; at < kSlotTids && block < m_slots.size() && m_slots[block])
            if (const std::uint32_t slot = (*m_slots[block])[at % kSlotBlock]; slot != 0)
                return m_tasks[slot - 1];
        return slowTask(tid);
    }
    Task& slowTask(long tid);
    void switchedOut(Task& t, const TraceEvent& e);
    void switchedIn(Task& t, const TraceEvent& e);
    void moved(Gathered& g, int from, int to);
    std::uint64_t runStart(std::uint64_t switchedInNs) const { return std::max(switchedInNs, m_countFromNs); }

    std::optional<Topology> m_topology;
    std::vector<Task> m_tasks; // in the order they were first seen
    // Each task's index in m_tasks plus one (0: none yet), by TID, in blocks of kSlotBlock TIDs
    // made as tasks appear: a lookup per task an event names is a few loads, without a hash
    // map's division and chain. TIDs past kSlotTids (pid_max is at most 2^22) are looked up in
    // m_farSlots.
    static constexpr std::size_t kSlotBlock = 4096;
    static constexpr std::size_t kSlotTids = std::size_t { 1 } << 23;
    std::vector<std::unique_ptr<std::array<std::uint32_t, kSlotBlock>>> m_slots;
    std::unordered_map<long, std::uint32_t> m_farSlots;
    bool m_followAll = true; // until follow() is called
    std::unordered_set<long> m_followed;
    std::uint64_t m_countFromNs = 0;
};

} // namespace ctxscope::trace
