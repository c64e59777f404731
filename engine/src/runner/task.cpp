// SPDX-License-Identifier: MIT
#include "runner/task.h"

#include "os/clock_read.h"
#include "runner/selfcheck.h"

#include <algorithm>
#include <sched.h>

namespace ctxscope::run {

namespace {

struct Phase {
    std::uint64_t ops = 0;
    std::uint64_t chunk = 1;
    bool record = false;
};

void noteCpu(TaskSlot& slot) noexcept
{
    const int cpu = ::sched_getcpu();
    if (cpu < 0)
        return;
    if (slot.lastCpu >= 0 && cpu != slot.lastCpu)
        ++slot.cpuChanges;
    slot.lastCpu = cpu;
    if (cpu < kCpuWords * 64)
        slot.cpusSeen[cpu / 64] |= std::uint64_t { 1 } << (cpu % 64);
    else
        slot.cpuOverflow = 1;
}

// Every 64 chunks, where the task runs is sampled: cheap (sched_getcpu reads rseq) and
// enough to see an unpinned task move.
constexpr std::uint64_t kCpuSampleMask = 63;

// Task 0. One clock read per sample boundary: sample i is the time from the end of
// sample i-1 to the end of its own chunk, so the samples add up to the phase exactly.
template <std::uint64_t (*Now)()>
bench::OpStatus timedPhase(const TaskContext& c, const Phase& p, TaskSlot& slot) noexcept
{
    Control& ctl = c.block->control();
    std::uint64_t* out = c.block->samples();
    const std::uint64_t samples = (p.ops + p.chunk - 1) / p.chunk;
    if (p.record) // fault the pages in now, not inside a sample
        for (std::uint64_t i = 0; i < samples; i += 512)
            out[i] = 0;
    std::uint64_t remaining = p.ops;
    const std::uint64_t start = Now();
    std::uint64_t last = start;
    for (std::uint64_t i = 0; remaining > 0; ++i) {
        if (stopRequested(ctl))
            return bench::OpStatus::Stopped;
        const std::uint64_t n = std::min(p.chunk, remaining);
        const bench::OpStatus status = c.kernel->run(0, n);
        const std::uint64_t now = Now();
        if (status != bench::OpStatus::Ok)
            return status;
        remaining -= n;
        if (p.record) {
            out[i] = now - last;
            atom(ctl.published).store(i + 1, std::memory_order_release);
            if ((i & kCpuSampleMask) == 0)
                noteCpu(slot);
        }
        last = now;
    }
    slot.phaseTicks = last - start;
    return bench::OpStatus::Ok;
}

bench::OpStatus untimedPhase(const TaskContext& c, const Phase& p, TaskSlot& slot) noexcept
{
    Control& ctl = c.block->control();
    std::uint64_t remaining = p.ops;
    for (std::uint64_t i = 0; remaining > 0; ++i) {
        if (stopRequested(ctl))
            return bench::OpStatus::Stopped;
        const std::uint64_t n = std::min(p.chunk, remaining);
        const bench::OpStatus status = c.kernel->run(c.index, n);
        if (status != bench::OpStatus::Ok)
            return status;
        remaining -= n;
        if (p.record && (i & kCpuSampleMask) == 0)
            noteCpu(slot);
    }
    return bench::OpStatus::Ok;
}

bench::OpStatus runPhase(const TaskContext& c, const Phase& p, TaskSlot& slot) noexcept
{
    if (c.index != 0)
        return untimedPhase(c, p, slot);
    return c.clock == ClockSource::Tsc ? timedPhase<&clk::tsc>(c, p, slot) : timedPhase<&clk::monotonicNs>(c, p, slot);
}

void addUsage(TaskSlot& slot, const SwitchCounts& before, const SwitchCounts& after) noexcept
{
    slot.voluntary += after.voluntary - before.voluntary;
    slot.involuntary += after.involuntary - before.involuntary;
    slot.cpuNs += after.cpuNs - before.cpuNs;
}

void addPerf(TaskSlot& slot, const SwitchCounts& before, const SwitchCounts& after) noexcept
{
    slot.perfSwitches += after.perfSwitches - before.perfSwitches;
    slot.perfMigrations += after.perfMigrations - before.perfMigrations;
}

} // namespace

void runTask(const TaskContext& c) noexcept
{
    Control& ctl = c.block->control();
    TaskSlot& slot = c.block->slot(c.index);
    // Read before arriving: the runner bumps `command` only once every task has arrived.
    std::uint32_t generation = atom(ctl.command).load(std::memory_order_acquire);
    // Before the barrier: every task's set-up ends before any task runs an op.
    c.kernel->setUpTask(c.index);
    arrive(ctl); // the start barrier: pinned and ready

    while (waitCommand(ctl, generation)) {
        if (static_cast<PhaseKind>(ctl.phaseKind) == PhaseKind::Finish)
            break;
        const Phase phase { ctl.phaseOps, std::max<std::uint64_t>(1, ctl.phaseChunk), ctl.phaseRecord != 0 };
        const bool check = ctl.phaseCheck != 0;
        // Perf counters exist only during the check phase: while a task has one, every
        // context switch also switches perf contexts, which in a VM costs microseconds and
        // would be measured as part of the switch.
        PerfCounters perf;
        if (check) {
            perf.open();
            slot.perfErrno = perf.counting() ? 0 : (perf.error() ? perf.error() : EPERM);
        }
        SwitchCounts before;
        if (phase.record || check) {
            if (phase.record)
                noteCpu(slot);
            before = snapshot(perf);
        }
        const bench::OpStatus status = runPhase(c, phase, slot);
        if (phase.record || check) {
            const SwitchCounts after = snapshot(perf);
            if (phase.record) {
                addUsage(slot, before, after);
                noteCpu(slot);
            }
            if (check)
                addPerf(slot, before, after);
        }
        perf.close();
        if (status == bench::OpStatus::Stopped)
            break;
        if (status == bench::OpStatus::PeerGone) {
            failTask(ctl, slot, TaskError::PeerGone, errno);
            break;
        }
        arrive(ctl);
    }
}

} // namespace ctxscope::run
