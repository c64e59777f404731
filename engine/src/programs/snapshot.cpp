// SPDX-License-Identifier: MIT
#include "programs/snapshot.h"

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

} // namespace

Expected<ProcessSnapshot> readProcessSnapshot(long pid, os::TaskFiles* files)
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
        auto status = os::readTaskStatus(pid, tid, files);
        if (!stat || !status)
            continue;
        TaskSnapshot task { std::move(*stat), std::move(*status), std::nullopt,
            os::readTaskMigrations(pid, tid, files) };
        if (auto schedstat = os::readTaskSchedstat(pid, tid, files))
            task.schedstat = *schedstat;
        snap.tasks.push_back(std::move(task));
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
