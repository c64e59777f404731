// SPDX-License-Identifier: MIT
// Starting the measured tasks as threads or as forked children, and ending them on every
// path: a TaskGroup's destructor joins its threads or kills and reaps its children.
#pragma once

#include "bench/kernel.h"
#include "ctxscope/clock.h"
#include "ctxscope/expected.h"
#include "ctxscope/topology.h"
#include "runner/control.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ctxscope::run {

struct LaunchPlan {
    const Topology* topology = nullptr;
    ControlBlock* block = nullptr;
    bench::Kernel* kernel = nullptr;
    std::vector<int> cpus; // one per task, -1 when unpinned
    bool fifo = false;
    ClockSource clock = ClockSource::Monotonic;
};

class TaskGroup {
public:
    virtual ~TaskGroup() = default;
    // A sentence about a task that ended while the run was going on, once; "" otherwise.
    virtual std::string checkDeaths() = 0;
    // Waits for every task to end (they were told to finish or to stop); children still
    // there after `grace` are killed. Every child is reaped when this returns.
    virtual void finish(std::chrono::milliseconds grace) noexcept = 0;
    // Why a task could not be set up, in the placement layer's words, when known.
    virtual std::string setupError(int task) const
    {
        (void)task;
        return {};
    }
};

// SCHED_FIFO priority the measured tasks get: the lowest real-time one, which is enough to
// run before every SCHED_OTHER task.
inline constexpr int kFifoPriority = 1;

Expected<std::unique_ptr<TaskGroup>> startThreads(const LaunchPlan& plan);
Expected<std::unique_ptr<TaskGroup>> startProcesses(const LaunchPlan& plan);

} // namespace ctxscope::run
