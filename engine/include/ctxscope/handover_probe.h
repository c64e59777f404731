// SPDX-License-Identifier: MIT
// A traced run's hand-overs cut in the kernel (BPF) as they happen, for a run whose tasks are
// each pinned to one CPU: the steps cutHandovers cuts from ftrace's events, at the same events,
// binned in the kernel. On one CPU: wake call, waker runs on, sleep or yield call, return to
// user, in user space; across CPUs: wake call, IPI sent (or woken without IPI), then by the
// wakee's CPU's state at the wake-up the idle exit and switch-in, preempting X or waiting behind
// X, and return to user, in user space. Nothing is recorded, so there is no trace file, timeline
// or example; what it costs the run is less than recording every event (docs/measurement.md,
// "Tracing's cost").
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/handover.h"

#include <memory>
#include <vector>

namespace ctxscope {

class HandoverProbe {
public:
    virtual ~HandoverProbe() = default;

    // Loads and attaches the programs (idle until begin) for tasks pinned to `cpus` (one CPU:
    // the tasks share it, and wake-ups from other CPUs are the runner's, left out). Fails with
    // bpfUnavailable()'s sentence, or the kernel's refusal, as one sentence.
    static Expected<std::unique_ptr<HandoverProbe>> open(const std::vector<int>& cpus);

    // Counts these tasks' hand-overs from now (the first measured op) until end. At most
    // kMaxProbedTasks tasks, and as many keep-awake threads (never interference).
    virtual Status begin(const std::vector<long>& tasks, const std::vector<long>& keepAwake) = 0;
    virtual void end() = 0;

    // What was counted, as cutHandovers' summary of the same hand-overs: the segments (each
    // step's p50 and p90 read from its bins, its mean exact), hand-overs, switches out, the
    // wakees' CPUs' states, where the wakees were put, the idle exits by state (numbered:
    // nameIdleStates names them), and who else ran on the CPUs (keep-awake threads apart). The
    // run's own figures are finishTraceSummary's.
    virtual TraceSummary summary() const = 0;
};

inline constexpr std::size_t kMaxProbedTasks = 16;
// The CPUs it can trace are those numbered below this.
inline constexpr int kMaxProbedCpu = 512;

} // namespace ctxscope
