// SPDX-License-Identifier: MIT
#include "programs/rates.h"

#include <algorithm>

namespace ctxscope::programs {

namespace {

// A counter's growth; a counter that went back (it cannot, unless the kernel reset it) gives 0.
double grew(std::uint64_t before, std::uint64_t after)
{
    return after > before ? static_cast<double>(after - before) : 0.0;
}

const TaskSnapshot* findTask(TidCursor& snap, const TaskSnapshot& like)
{
    const TaskSnapshot* same = snap.find(like.stat.tid);
    // The same TID with another start time is a new thread that reused the number.
    return same != nullptr && same->stat.starttime == like.stat.starttime ? same : nullptr;
}

} // namespace

ThreadRates threadRates(const TaskSnapshot* before, const TaskSnapshot& after, std::uint64_t dtNs)
{
    ThreadRates r;
    r.tid = after.stat.tid;
    r.name = after.stat.comm;
    r.state = after.stat.state;
    r.cpu = after.stat.processor;
    r.affinity = after.status.cpusAllowed;
    if (dtNs == 0)
        return r;
    const double seconds = static_cast<double>(dtNs) / 1e9;
    const TaskSnapshot zero {};
    const TaskSnapshot& b = before ? *before : zero;
    r.voluntaryPerS = grew(b.status.voluntarySwitches, after.status.voluntarySwitches) / seconds;
    r.involuntaryPerS = grew(b.status.involuntarySwitches, after.status.involuntarySwitches) / seconds;
    const bool schedstat = after.schedstat && (!before || before->schedstat);
    if (schedstat) {
        const os::TaskSchedstat none {};
        const os::TaskSchedstat& s = before ? *before->schedstat : none;
        r.cpuShare = grew(s.runNs, after.schedstat->runNs) / static_cast<double>(dtNs);
        r.runqueueWaitPerS = grew(s.waitNs, after.schedstat->waitNs) / static_cast<double>(dtNs);
    } else {
        r.cpuShare = grew(b.stat.cpuTicks(), after.stat.cpuTicks()) / os::ticksPerSecond() / seconds;
    }
    if (after.migrations && (!before || before->migrations)) {
        r.migrationsPerS = grew(before ? *before->migrations : 0, *after.migrations) / seconds;
    } else {
        r.migrationsLowerBound = true;
        const bool moved = before && before->stat.processor && after.stat.processor
            && *before->stat.processor != *after.stat.processor;
        r.migrationsPerS = moved ? 1.0 / seconds : 0.0;
    }
    return r;
}

void systemRates(const ProcessSnapshot& before, const ProcessSnapshot& after, WatchSample& sample)
{
    if (!before.system || !after.system || after.timeNs <= before.timeNs)
        return;
    const double seconds = static_cast<double>(after.timeNs - before.timeNs) / 1e9;
    const auto& a = *before.system;
    const auto& b = *after.system;
    if (a.contextSwitches && b.contextSwitches)
        sample.systemSwitchesPerS = grew(*a.contextSwitches, *b.contextSwitches) / seconds;
    for (const auto& cpu : b.cpus)
        if (const os::CpuTimes* was = a.cpu(cpu.cpu)) {
            const double total = grew(was->total(), cpu.total());
            sample.cpus.push_back(
                CpuBusy { cpu.cpu, total > 0 ? std::min(1.0, grew(was->busy(), cpu.busy()) / total) : 0.0 });
        }
}

WatchSample compareSnapshots(const ProcessSnapshot& before, const ProcessSnapshot& after)
{
    WatchSample s;
    s.pid = after.pid;
    s.name = after.name;
    s.kernel = after.kernel;
    const std::uint64_t dtNs = after.timeNs > before.timeNs ? after.timeNs - before.timeNs : 0;
    s.intervalS = static_cast<double>(dtNs) / 1e9;
    s.threads.reserve(after.tasks.size());
    TidCursor inBefore(before);
    for (const auto& task : after.tasks) {
        const TaskSnapshot* was = findTask(inBefore, task);
        if (!was)
            s.appeared.push_back(task.stat.tid);
        s.threads.push_back(threadRates(was, task, dtNs));
    }
    TidCursor inAfter(after);
    for (const auto& task : before.tasks)
        if (!findTask(inAfter, task))
            s.ended.push_back(EndedThread { task.stat.tid, task.stat.comm });
    systemRates(before, after, s);
    return s;
}

} // namespace ctxscope::programs
