// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"

#include <memory>

namespace ctxscope::testing {

// A finished futex same-pu run as the worker would report it, with made-up but
// self-consistent numbers (only the views' formatting is under test).
inline std::shared_ptr<const RunResult> futexResult(std::vector<int> cpus = { 0, 0 })
{
    RunResult r;
    r.bench = "futex";
    r.op = "round trip A->B->A through two futex words";
    r.mode = BenchMode::Thread;
    r.placement.tasks = 2;
    r.placement.cpus = std::move(cpus);
    r.placement.relation = Relation::SamePu;
    r.switchesPerOp = 2;
    r.perSwitchNs = 4250;
    r.opsPerSample = 2;
    r.iterations = 2000;
    r.repetitions = 2;
    r.stats = Summary { 2000, 8200, 8500, 9100, 9000, 12800, 35000, 3'800'000, 1200, 0.13 };
    r.repetitionMedians = { 8490, 8510 };
    r.repetitionCv = 0.0017;
    r.samples = { 8500, 8600, 8400, 9000 };
    r.totalSamples = 2000;
    r.histogram = { { 8192, 8320, 3 }, { 8320, 8448, 430 }, { 8448, 8576, 612 }, { 12800, 13056, 5 } };
    r.observed.voluntaryPerOp = 1.1;
    r.observed.involuntaryPerOp = 0.9;
    r.observed.migrations = 0;
    r.observed.cpusSeen = { 0 };
    r.warnings = { "This is a debug build of ctxscope (not optimized): numbers are slower than a release build's.",
        "The median moved by 6.4% (CV) between the repetitions, more than 5%." };
    return std::make_shared<const RunResult>(std::move(r));
}

} // namespace ctxscope::testing
