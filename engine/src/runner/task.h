// SPDX-License-Identifier: MIT
// The body every measured task runs, thread or forked child: wait for a phase, run its ops
// in chunks (task 0 timing each chunk as one sample), count switches, arrive, repeat.
#pragma once

#include "bench/kernel.h"
#include "ctxscope/clock.h"
#include "runner/control.h"

namespace ctxscope::run {

struct TaskContext {
    ControlBlock* block = nullptr;
    bench::Kernel* kernel = nullptr;
    int index = 0;
    ClockSource clock = ClockSource::Monotonic;
};

// Runs until the runner says Finish or stop. Its slot holds what it saw. The caller pinned
// the task (and set its policy) before. No allocation, no locks: safe in a forked child.
void runTask(const TaskContext& context) noexcept;

} // namespace ctxscope::run
