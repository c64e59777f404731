// SPDX-License-Identifier: MIT
// A traced run's hand-overs cut in the kernel (BPF) as they happen, for a run whose tasks share
// one CPU: the steps cutHandovers cuts from ftrace's events (wake call, waker runs on, sleep or
// yield call, return to user, in user space), at the same events, binned in the kernel. Nothing
// is recorded, so there is no trace file, timeline or example; what it costs the run is far
// less than recording every event (docs/measurement.md, "Tracing's cost").
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/handover.h"

#include <memory>
#include <vector>

namespace ctxscope {

class HandoverProbe {
public:
    virtual ~HandoverProbe() = default;

    // Loads and attaches the programs (idle until begin) for tasks on `cpu`. Fails with
    // bpfUnavailable()'s sentence, or the kernel's refusal, as one sentence.
    static Expected<std::unique_ptr<HandoverProbe>> open(int cpu);

    // Counts these tasks' hand-overs from now (the first measured op) until end. At most
    // kMaxProbedTasks tasks.
    virtual Status begin(const std::vector<long>& tasks) = 0;
    virtual void end() = 0;

    // What was counted, as cutHandovers' summary of the same hand-overs: the segments (each
    // step's p50 and p90 read from its bins, its mean exact), hand-overs, switches out, where
    // the wakees were put, and who else ran on the CPU (keep-awake threads apart). The run's
    // own figures are finishTraceSummary's.
    virtual TraceSummary summary(const std::vector<long>& keepAwake) const = 0;
};

inline constexpr std::size_t kMaxProbedTasks = 16;

} // namespace ctxscope
