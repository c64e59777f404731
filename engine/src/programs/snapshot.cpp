// SPDX-License-Identifier: MIT
#include "programs/snapshot.h"

#include "programs/pin_guard.h"

#include "ctxscope/thread_affinity.h"

#include <algorithm>
#include <ctime>

namespace ctxscope::programs {

namespace {

std::uint64_t monotonicNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(ts.tv_nsec);
}

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
    const ProcessSnapshot* previous, const os::TaskStat& stat, const std::optional<os::TaskSchedstat>& schedstat)
{
    // Kernels before 5.14 with the scheduler statistics off print "0 0 0" for every task: no
    // sign of running there, so such a thread is always read.
    if (!previous || !schedstat || (schedstat->runNs == 0 && schedstat->waitNs == 0 && schedstat->timeslices == 0))
        return nullptr;
    const auto it = std::lower_bound(previous->tasks.begin(), previous->tasks.end(), stat.tid,
        [](const TaskSnapshot& t, long tid) { return t.stat.tid < tid; });
    if (it == previous->tasks.end() || it->stat.tid != stat.tid || it->stat.starttime != stat.starttime
        || !it->schedstat)
        return nullptr;
    const os::TaskSchedstat& was = *it->schedstat;
    const bool ran = was.runNs != schedstat->runNs || was.waitNs != schedstat->waitNs
        || was.timeslices != schedstat->timeslices || it->stat.cpuTicks() != stat.cpuTicks()
        || it->stat.state != stat.state || it->stat.processor != stat.processor;
    return ran ? nullptr : &*it;
}

} // namespace

Expected<ProcessSnapshot> readProcessSnapshot(
    long pid, os::TaskFiles* files, const ProcessSnapshot* previous, int reading)
{
    const auto gone = [pid] { return makeError("no process with PID " + std::to_string(pid) + " is running"); };
    if (pid <= 0)
        return gone();
    auto leader = os::readTaskStat(pid, pid, files);
    if (!leader)
        return gone();
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
    const std::vector<long> tids = os::listTasks(pid);
    if (files)
        files->keepOnly(tids);
    for (const long tid : tids) {
        // A thread that ends between the reads of its files is left out of this snapshot.
        auto stat = tid == pid ? leader : os::readTaskStat(pid, tid, files);
        if (!stat)
            continue;
        std::optional<os::TaskSchedstat> schedstat;
        if (auto read = os::readTaskSchedstat(pid, tid, files))
            schedstat = *read;
        const bool fullRead = tid % kFullReadEvery == reading % kFullReadEvery;
        if (const TaskSnapshot* idle = fullRead ? nullptr : idleSince(previous, *stat, schedstat)) {
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
    snap.timeNs = monotonicNs();
    // A zombie (ended, not yet reaped by its parent) has no thread left that can run.
    const bool ended = std::all_of(snap.tasks.begin(), snap.tasks.end(),
        [](const TaskSnapshot& t) { return t.stat.state == 'Z' || t.stat.state == 'X'; });
    if (ended)
        return gone();
    return snap;
}

} // namespace ctxscope::programs
