// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"
#include "ctxscope/topology.h"
#include "runner/control.h"
#include "runner/driver.h"
#include "runner/interference.h"

#include <string>
#include <vector>

namespace ctxscope::run {

struct RunFacts {
    const BenchSpec* spec = nullptr;
    const BenchInfo* info = nullptr;
    Placement placement;
    ClockInfo clock;
    SchedPolicy policy = SchedPolicy::Other;
    BenchMode mode = BenchMode::Thread;
    std::vector<std::string> warnings; // found before the run (policy refused, ...)
    std::optional<SyscallCheck> syscalls; // counted after the run
    const InterferenceMeter* interference = nullptr; // marked between the measured repetitions
    std::vector<std::string> machineWarnings; // the machine's and the build's caveats (VM, governor, debug build)
    std::optional<SharedLine> line; // spin: where its line lived
    double seconds = 0;
};

// A kernel's raw line placement as a result states it, with the NUMA node of each task's CPU.
SharedLine sharedLineOf(const bench::LinePlacement& raw, const Placement& placement, const Topology& topology);

// The result value: statistics, self-checks from the task slots, warnings as sentences.
RunResult assembleResult(RunFacts facts, Measurement&& measurement, const ControlBlock& block);

// The self-check sentences (exposed for tests).
std::vector<std::string> switchWarnings(double claimed, double observed, bool onePu);
std::string syscallWarning(const SyscallCheck& check);
// The repetition-spread sentence, naming its cause from the interference when it can.
std::string spreadWarning(const RunResult& r);
// Busy-waiting tasks: how often the scheduler preempted them and whether they slept, as
// sentences ("" when neither).
std::string preemptionNote(const Observed& observed);

} // namespace ctxscope::run
