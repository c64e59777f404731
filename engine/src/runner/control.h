// SPDX-License-Identifier: MIT
// The block the runner and its tasks share: phase commands, the stop word, one slot per
// task, and task 0's samples. It lives in one anonymous MAP_SHARED mapping so threads and
// forked children use the same code. Everything below is safe in a forked child.
#pragma once

#include "os/shared_mapping.h"
#include "os/sys.h"

#include <atomic>
#include <cstdint>

namespace ctxscope::run {

enum class TaskError : std::uint32_t { None, PinFailed, PinMoved, SchedFailed, PeerGone };
enum class PhaseKind : std::uint32_t { Run, Finish };

inline constexpr int kCpuWords = 16; // sched_getcpu values 0..1023 are recorded exactly

// What one task reports. Written only by its task; read by the runner after the task
// arrived at a barrier (acquire/release through Control::done) or ended.
struct alignas(64) TaskSlot {
    std::int64_t id = 0; // tid or pid
    std::int32_t pinnedCpu = -1;
    std::uint32_t error = 0; // TaskError
    std::int32_t errnoValue = 0;
    std::int32_t cpuOnError = -1;
    std::int32_t lastCpu = -1;
    std::uint32_t cpuOverflow = 0; // seen on a CPU >= 1024
    std::uint64_t cpuChanges = 0;
    std::uint64_t cpusSeen[kCpuWords] = {};
    std::uint64_t voluntary = 0; // measured phases only
    std::uint64_t involuntary = 0;
    std::uint64_t cpuNs = 0; // user + system time in measured phases
    std::uint64_t perfSwitches = 0; // the check phase only
    std::uint64_t perfMigrations = 0;
    std::int32_t perfErrno = 0; // 0: both perf counters counted
    std::uint32_t reserved = 0;
    std::uint64_t phaseTicks = 0; // task 0: clock ticks of the last phase
};

struct Control {
    // Phase barrier and stop; every word is a futex shared between processes.
    alignas(64) std::uint32_t command = 0; // generation: bumped to start a phase or to stop
    std::uint32_t done = 0; // tasks that finished the current phase
    std::uint32_t stop = 0;
    std::uint32_t failed = 0;
    // Written by task 0 after every sample; on its own line so the others do not share it.
    alignas(64) std::uint64_t published = 0;
    // The current phase, written by the runner before it bumps command.
    alignas(64) std::uint64_t phaseOps = 0;
    std::uint64_t phaseChunk = 1; // ops per sample
    std::uint32_t phaseKind = 0; // PhaseKind
    std::uint32_t phaseRecord = 0; // 1: measured, samples and rusage recorded
    std::uint32_t phaseCheck = 0; // 1: the perf-counter check phase (its time is not a sample)
    std::int32_t tasks = 0;
    std::uint64_t sampleCapacity = 0;
};

template <typename T> std::atomic_ref<T> atom(T& value) { return std::atomic_ref<T>(value); }

// The mapping and typed views of it.
class ControlBlock {
public:
    static Expected<ControlBlock> create(int tasks, std::uint64_t sampleCapacity);

    Control& control() const { return *m_control; }
    TaskSlot& slot(int task) const { return m_slots[task]; }
    std::uint64_t* samples() const { return m_samples; }
    int tasks() const { return m_control->tasks; }

private:
    sys::SharedMapping m_mapping;
    Control* m_control = nullptr;
    TaskSlot* m_slots = nullptr;
    std::uint64_t* m_samples = nullptr;
};

inline bool stopRequested(Control& c) { return atom(c.stop).load(std::memory_order_relaxed) != 0; }

// Sets the stop word and wakes everyone waiting on a control word. Bumping `command` as
// well means a task about to sleep on it cannot miss the wake-up.
inline void requestStop(Control& c)
{
    atom(c.stop).store(1, std::memory_order_release);
    atom(c.command).fetch_add(1, std::memory_order_acq_rel);
    sys::futexWake(&c.command, sys::kWakeAll, false);
    sys::futexWake(&c.done, sys::kWakeAll, false);
}

inline void failTask(Control& c, TaskSlot& slot, TaskError error, int err)
{
    slot.error = static_cast<std::uint32_t>(error);
    slot.errnoValue = err;
    atom(c.failed).store(1, std::memory_order_release);
    requestStop(c);
}

// A task finished the current phase (or its setup).
inline void arrive(Control& c)
{
    const std::uint32_t now = atom(c.done).fetch_add(1, std::memory_order_acq_rel) + 1;
    if (static_cast<std::int32_t>(now) >= c.tasks)
        sys::futexWake(&c.done, 1, false);
}

// Sleeps until the runner starts a new phase; false when told to stop.
inline bool waitCommand(Control& c, std::uint32_t& generation)
{
    for (;;) {
        if (stopRequested(c))
            return false;
        const std::uint32_t now = atom(c.command).load(std::memory_order_acquire);
        if (now != generation) {
            generation = now;
            return !stopRequested(c);
        }
        sys::futexWait(&c.command, now, false);
    }
}

} // namespace ctxscope::run
