// SPDX-License-Identifier: MIT
#pragma once

#include "os/proc_stat.h"
#include "os/task_stat.h"

#include "ctxscope/expected.h"
#include "ctxscope/sched_watch.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

// One reading of a process and of the system, from which two in a row give the rates of a
// watch (ProcessWatch). The reading is the only part that touches /proc; tests build
// snapshots from recorded texts.
namespace ctxscope::programs {

struct TaskSnapshot {
    os::TaskStat stat;
    os::TaskStatus status;
    std::optional<os::TaskSchedstat> schedstat; // none without CONFIG_SCHED_INFO
    std::optional<std::uint64_t> migrations; // se.nr_migrations; none without CONFIG_SCHED_DEBUG
    std::uint32_t affinityKey = 0; // a counted reading's SchedCounts::affinityKey (0: none)
};

struct ProcessSnapshot {
    long pid = 0;
    std::string name;
    bool kernel = false; // a kernel thread (programs::isKernelThread)
    std::uint64_t starttime = 0; // of the process, ticks after boot: tells a reused PID
    std::uint64_t timeNs = 0; // CLOCK_MONOTONIC when read
    std::vector<TaskSnapshot> tasks; // by TID
    std::optional<os::ProcStat> system;
};

// Reads every thread of a process now. "no process with PID N is running" when it is gone or
// a zombie (ended, waiting for its parent to reap it). With `files`, the threads' files stay
// open for the next reading (a watch's), and those of ended threads are closed.
//
// With `previous` (the watch's last reading) a thread that has not run since then (its
// schedstat's run time, wait time and timeslices, its CPU ticks and its state unchanged) keeps
// that reading's switch counts, migrations and affinity instead of reading `sched` (or
// `status`) and its affinity again: a thread that did not run cannot have switched, and is
// migrated only when woken, which makes it run. `reading` staggers a full read of such idle
// threads (those whose TID % kFullReadEvery == reading % kFullReadEvery), so an affinity set
// by another tool on a thread that sleeps on shows within kFullReadEvery readings. On a
// process of 1,000 sleeping threads this cuts a reading's cost by about a third
// (docs/performance.md).
constexpr int kFullReadEvery = 4;
// A counted reading's affinity key (SchedCounts::affinityKey, BPF) folds the first 64 CPUs'
// bits and their count: a thread that keeps running while its affinity trades CPUs past 63
// for others of the same count keeps its key. Such a thread is read again in this longer turn.
constexpr int kKeyedReadEvery = 16;
// "no process with PID N is running": what a watch of a PID that does not run says.
Error noProcess(long pid);
// The reading's thread `tid` (its tasks are sorted by TID), or nullptr.
const TaskSnapshot* findByTid(const ProcessSnapshot& snap, long tid);

// findByTid for lookups made in TID order (a reading's threads, or another reading's, walked
// in turn; findFrom, sorted_walk.h). Found or not, the same answer as findByTid.
class TidCursor {
public:
    explicit TidCursor(const ProcessSnapshot& snap)
        : m_snap(snap)
    {
    }
    const TaskSnapshot* find(long tid);

private:
    const ProcessSnapshot& m_snap;
    std::size_t m_next = 0; // the entry after the last one found
};
Expected<ProcessSnapshot> readProcessSnapshot(
    long pid, os::TaskFiles* files = nullptr, const ProcessSnapshot* previous = nullptr, int reading = 0);

// A traced watch's reading (watch --trace) of the threads `tids`: the scheduler's events
// already count what the /proc reading reads per thread, so only each thread's affinity
// (sched_getaffinity: a thread that ended is left out) and, once per thread, its stat (start
// time, name) come from /proc. The affinity is read for a new thread, for one that ran on a
// CPU outside the affinity it had, and otherwise in turns as readProcessSnapshot reads idle
// threads (`reading`, kFullReadEvery): a change by another tool shows within that many
// readings. Where the counts carry an affinity key (BPF), a thread that ran since `previous`
// is read again when its key changed (it left a CPU under a new affinity) and otherwise only
// in a longer turn (kKeyedReadEvery).
// The switch counts, run and wait times, timeslices, migrations, last CPU and state are `counts`
// (SchedWatch::counts, from the window's start on; a thread without events has zeros), taken
// at `timeNs`. A thread of `previous` keeps that reading's stat. On 1,000 threads waking 10
// times a second this is what takes watch --trace under 1% of one CPU (docs/performance.md).
Expected<ProcessSnapshot> readCountedSnapshot(long pid, const std::vector<long>& tids, const ProcessSnapshot* previous,
    const std::unordered_map<long, SchedCounts>& counts, std::uint64_t timeNs, int reading = 0);

} // namespace ctxscope::programs
