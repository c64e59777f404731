// SPDX-License-Identifier: MIT
#include "programs/snapshot.h"

#include "os/clock_read.h"
#include "programs/pin_guard.h"
#include "programs/sorted_walk.h"

#include "ctxscope/thread_affinity.h"

#include <algorithm>

namespace ctxscope::programs {

namespace {

// What the watch needs of status (the switch counts, the affinity) from the sched file, which
// it reads anyway for the migrations, and sched_getaffinity: a third of the reading's cost
// saved (docs/performance.md); its uid stays unknown (-1), which a watch does not use. Nothing
// when the kernel's sched file has no switch counts.
Expected<os::TaskStatus> fromSched(const std::optional<os::TaskSched>& sched, long tid)
{
    if (!sched || !sched->voluntarySwitches || !sched->involuntarySwitches)
        return makeError("no switch counts in sched");
    os::TaskStatus s;
    s.voluntarySwitches = *sched->voluntarySwitches;
    s.involuntarySwitches = *sched->involuntarySwitches;
    s.cpusAllowed = threadAffinity(static_cast<int>(tid));
    if (s.cpusAllowed.empty())
        return makeError("no affinity");
    return s;
}

// The previous reading of the same thread (same TID and start time) when it has not run
// since: nothing changed that `sched` or the affinity would tell.
const TaskSnapshot* idleSince(
    TidCursor* previous, const os::TaskStat& stat, const std::optional<os::TaskSchedstat>& schedstat)
{
    // Kernels before 5.14 with the scheduler statistics off print "0 0 0" for every task: no
    // sign of running there, so such a thread is always read.
    if (!previous || !schedstat || (schedstat->runNs == 0 && schedstat->waitNs == 0 && schedstat->timeslices == 0))
        return nullptr;
    const TaskSnapshot* it = previous->find(stat.tid);
    if (it == nullptr || it->stat.starttime != stat.starttime || !it->schedstat)
        return nullptr;
    const os::TaskSchedstat& was = *it->schedstat;
    const bool ran = was.runNs != schedstat->runNs || was.waitNs != schedstat->waitNs
        || was.timeslices != schedstat->timeslices || it->stat.cpuTicks() != stat.cpuTicks()
        || it->stat.state != stat.state || it->stat.processor != stat.processor;
    return ran ? nullptr : it;
}

// What both readings read of the process as a whole: its leader's stat and /proc/stat.
Expected<ProcessSnapshot> readProcess(
    long pid, os::TaskFiles* files, const ProcessSnapshot* previous, std::optional<os::TaskStat>& leaderOut)
{
    if (pid <= 0)
        return noProcess(pid);
    auto leader = os::readTaskStat(pid, pid, files);
    if (!leader)
        return noProcess(pid);
    ProcessSnapshot snap;
    snap.pid = pid;
    snap.name = leader->comm;
    // Read once per watch (its cmdline and parent may be read): a process does not turn into a
    // kernel thread, and a reused PID ends the watch (starttime).
    snap.kernel = previous ? previous->kernel : isKernelThread(*leader);
    snap.starttime = leader->starttime;
    std::string text;
    if (os::readProcText("/proc/stat", text))
        if (auto system = os::parseProcStat(text))
            snap.system = std::move(*system);
    leaderOut = std::move(*leader);
    return snap;
}

// A zombie (ended, not yet reaped by its parent) has no thread left that can run.
Expected<ProcessSnapshot> unlessEnded(ProcessSnapshot snap)
{
    const bool ended = std::all_of(snap.tasks.begin(), snap.tasks.end(),
        [](const TaskSnapshot& t) { return t.stat.state == 'Z' || t.stat.state == 'X'; });
    if (ended)
        return noProcess(snap.pid);
    return snap;
}

} // namespace

const TaskSnapshot* findByTid(const ProcessSnapshot& snap, long tid)
{
    const auto it = std::lower_bound(
        snap.tasks.begin(), snap.tasks.end(), tid, [](const TaskSnapshot& t, long id) { return t.stat.tid < id; });
    return it != snap.tasks.end() && it->stat.tid == tid ? &*it : nullptr;
}

const TaskSnapshot* TidCursor::find(long tid)
{
    const std::vector<TaskSnapshot>& tasks = m_snap.tasks;
    const auto it = findFrom(
        tasks.begin() + static_cast<std::ptrdiff_t>(m_next), tasks.end(), tid,
        [](const TaskSnapshot& t) { return t.stat.tid; },
        [&] {
            const TaskSnapshot* found = findByTid(m_snap, tid);
            return found != nullptr ? tasks.begin() + (found - tasks.data()) : tasks.end();
        });
    if (it == tasks.end())
        return nullptr;
    m_next = static_cast<std::size_t>(it - tasks.begin()) + 1;
    return &*it;
}

Error noProcess(long pid) { return makeError("no process with PID " + std::to_string(pid) + " is running"); }

Expected<ProcessSnapshot> readProcessSnapshot(
    long pid, os::TaskFiles* files, const ProcessSnapshot* previous, int reading)
{
    std::optional<os::TaskStat> leader;
    auto process = readProcess(pid, files, previous, leader);
    if (!process)
        return process;
    ProcessSnapshot& snap = *process;
    const std::vector<long> tids = os::listTasks(pid);
    if (files)
        files->keepOnly(tids);
    std::optional<TidCursor> before;
    if (previous)
        before.emplace(*previous);
    for (const long tid : tids) {
        // A thread that ends between the reads of its files is left out of this snapshot.
        auto stat = tid == pid ? Expected<os::TaskStat>(*leader) : os::readTaskStat(pid, tid, files);
        if (!stat)
            continue;
        std::optional<os::TaskSchedstat> schedstat;
        if (auto read = os::readTaskSchedstat(pid, tid, files))
            schedstat = *read;
        const bool fullRead = tid % kFullReadEvery == reading % kFullReadEvery;
        if (const TaskSnapshot* idle = fullRead ? nullptr : idleSince(before ? &*before : nullptr, *stat, schedstat)) {
            snap.tasks.push_back(TaskSnapshot { std::move(*stat), idle->status, schedstat, idle->migrations });
            continue;
        }
        const auto sched = os::readTaskSched(pid, tid, files);
        auto status = fromSched(sched, tid);
        if (!status)
            status = os::readTaskStatus(pid, tid, files);
        if (!status)
            continue;
        snap.tasks.push_back(TaskSnapshot { std::move(*stat), std::move(*status), schedstat,
            sched ? std::optional<std::uint64_t>(sched->migrations) : std::nullopt });
    }
    snap.timeNs = clk::monotonicNs();
    return unlessEnded(std::move(snap));
}

Expected<ProcessSnapshot> readCountedSnapshot(long pid, const std::vector<long>& tids, const ProcessSnapshot* previous,
    const std::unordered_map<long, SchedCounts>& counts, std::uint64_t timeNs, int reading)
{
    std::optional<os::TaskStat> leader;
    auto process = readProcess(pid, nullptr, previous, leader);
    if (!process)
        return process;
    ProcessSnapshot& snap = *process;
    snap.tasks.reserve(tids.size());
    std::optional<TidCursor> before;
    if (previous)
        before.emplace(*previous);
    for (const long tid : tids) {
        const TaskSnapshot* known = before ? before->find(tid) : nullptr;
        const TaskSnapshot* was = tid != pid ? known : nullptr;
        TaskSnapshot task;
        if (tid == pid) {
            task.stat = *leader; // read anyway: its state tells a zombie (the process ended)
        } else if (was != nullptr) {
            task.stat = was->stat;
        } else if (auto stat = os::readTaskStat(pid, tid)) {
            task.stat = std::move(*stat);
        } else {
            continue; // it ended before it could be read
        }
        const auto c = counts.find(tid);
        const SchedCounts none {};
        const SchedCounts& n = c != counts.end() ? c->second : none;
        const bool inTurn = tid % kFullReadEvery == reading % kFullReadEvery;
        const bool ranOutside = known != nullptr && n.cpu >= 0
            && !std::binary_search(known->status.cpusAllowed.begin(), known->status.cpusAllowed.end(), n.cpu);
        // With a key, a thread that ran since `previous` has its affinity in it: read again when
        // it changed, and in a longer turn for what the key cannot tell. One that did not run
        // may have a new one that no switch has seen: in turn. A thread's first key is bound to
        // an affinity read with it.
        const bool ran = known != nullptr && known->schedstat && known->schedstat->timeslices != n.switchIns;
        const bool keyed = n.affinityKey != 0 && known != nullptr && known->affinityKey != 0;
        const bool inKeyedTurn = tid % kKeyedReadEvery == reading % kKeyedReadEvery;
        const bool stale = keyed ? known->affinityKey != n.affinityKey || (ran ? inKeyedTurn : inTurn)
                                 : inTurn || n.affinityKey != 0;
        task.affinityKey = n.affinityKey;
        if (known == nullptr || stale || ranOutside) {
            task.status.cpusAllowed = threadAffinity(static_cast<int>(tid));
            if (task.status.cpusAllowed.empty())
                continue; // it ended
        } else {
            task.status.cpusAllowed = known->status.cpusAllowed;
        }
        task.status.voluntarySwitches = n.voluntary;
        task.status.involuntarySwitches = n.involuntary;
        task.schedstat = os::TaskSchedstat { .runNs = n.runNs, .waitNs = n.waitNs, .timeslices = n.switchIns };
        task.migrations = n.migrations;
        if (n.cpu >= 0)
            task.stat.processor = n.cpu;
        if (n.state != '?' && task.stat.state != 'Z')
            task.stat.state = n.state;
        snap.tasks.push_back(std::move(task));
    }
    snap.timeNs = timeNs;
    return unlessEnded(std::move(snap));
}

} // namespace ctxscope::programs
