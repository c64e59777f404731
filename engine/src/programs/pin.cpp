// SPDX-License-Identifier: MIT
#include "programs/pin_guard.h"

#include "ctxscope/pin.h"
#include "ctxscope/placement.h"
#include "ctxscope/thread_affinity.h"

#include <cerrno>
#include <cstring>
#include <sched.h>
#include <unistd.h>

namespace ctxscope {

namespace {

Status checkCpus(const Topology& topology, const std::vector<int>& cpus)
{
    if (!topology.isThisSystem())
        return makeError("cannot pin: the topology (" + topology.origin() + ") is not this machine");
    if (cpus.empty())
        return makeError("no CPU given");
    for (int cpu : cpus)
        if (auto ok = checkPuUsable(topology, cpu); !ok)
            return ok;
    return {};
}

std::string threadName(const os::TaskStat& t) { return "thread " + std::to_string(t.tid) + " (" + t.comm + ")"; }

// The stat of a TID, whichever process it belongs to (/proc/TID resolves threads too).
Expected<os::TaskStat> findThread(long tid)
{
    auto t = tid > 0 ? os::readTaskStat(tid, tid) : Expected<os::TaskStat>(Error {});
    if (!t)
        return makeError("no thread with TID " + std::to_string(tid) + " is running");
    return t;
}

// The guard of thread `t` of process `pid`. This process's own threads (the live-placement
// lesson's workload) are never guarded, even where ctxscope-cli itself is PID 1 (a container).
PinGuard guardOf(const os::TaskStat& t, long pid)
{
    return pid == ::getpid() ? PinGuard::None : programs::readPinGuard(t, pid);
}

// The process of thread `tid` as far as the guard goes: this one, PID 1 (whose guard covers
// every thread: each may be the one that starts the next service), or the thread itself (a
// kernel thread is its own process).
long processOf(long tid)
{
    const long self = ::getpid();
    return os::hasTask(self, tid) ? self : os::hasTask(1, tid) ? 1 : tid;
}

// `ended` is set when the thread ended before the kernel could move it.
Expected<PinChange> setAffinity(const os::TaskStat& t, const std::vector<int>& cpus, bool* ended = nullptr)
{
    if (auto movable = programs::checkMovable(t, PinGuard::None, cpus, KernelThreads::Move); !movable)
        return movable.error();
    PinChange change { t.tid, t.comm, threadAffinity(static_cast<int>(t.tid)), {} };
    if (auto set = setThreadAffinity(static_cast<int>(t.tid), cpus); !set) {
        const int err = errno;
        if (err == EPERM)
            return makeError("not allowed to change the affinity of " + threadName(t)
                + ": another user's program needs root or the CAP_SYS_NICE capability");
        if (err == ESRCH && ended)
            *ended = true;
        if (err == ESRCH)
            return makeError(threadName(t) + " ended before it could be pinned");
        if (err == EINVAL)
            return makeError("the kernel refused CPU " + formatCpuList(cpus) + " for " + threadName(t)
                + " (outside its cgroup cpuset?)");
        return set.error();
    }
    change.after = threadAffinity(static_cast<int>(t.tid));
    return change;
}

} // namespace

Expected<PinChange> pinThread(
    const Topology& topology, long tid, const std::vector<int>& cpus, KernelThreads kernelThreads)
{
    // Who first: "no thread with TID 9" says more than a CPU list's problem would.
    auto t = findThread(tid);
    if (!t)
        return t.error();
    if (auto ok = checkCpus(topology, cpus); !ok)
        return ok.error();
    if (auto movable = programs::checkMovable(*t, guardOf(*t, processOf(tid)), cpus, kernelThreads); !movable)
        return movable.error();
    return setAffinity(*t, cpus);
}

Expected<std::vector<PinChange>> pinProcess(
    const Topology& topology, long pid, const std::vector<int>& cpus, KernelThreads kernelThreads)
{
    const auto tids = pid > 0 ? os::listTasks(pid) : std::vector<long> {};
    if (tids.empty())
        return makeError("no process with PID " + std::to_string(pid) + " is running");
    if (auto ok = checkCpus(topology, cpus); !ok)
        return ok.error();
    // The guard is the process's (its leader's): refused as a whole, before any thread moves.
    if (auto leader = os::readTaskStat(pid, pid))
        if (auto movable = programs::checkMovable(*leader, guardOf(*leader, pid), cpus, kernelThreads); !movable)
            return movable.error();
    std::vector<PinChange> changes;
    for (const long tid : tids) {
        auto t = os::readTaskStat(pid, tid);
        if (!t)
            continue; // ended meanwhile
        bool ended = false;
        auto change = setAffinity(*t, cpus, &ended);
        if (!change && ended)
            continue;
        if (!change)
            return change.error();
        changes.push_back(std::move(*change));
    }
    if (changes.empty())
        return makeError("process " + std::to_string(pid) + " ended before it could be pinned");
    return changes;
}

} // namespace ctxscope
