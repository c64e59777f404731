// SPDX-License-Identifier: MIT
// One run result with every field set, for tests that write and read results back.
#pragma once

#include "ctxscope/result.h"

namespace ctxscope::test {

inline RunResult sampleResult()
{
    RunResult r;
    r.bench = "futex";
    r.op = "round trip A->B->A through two futex words";
    r.mode = BenchMode::Process;
    r.placement.tasks = 2;
    r.placement.cpus = { 0, 0 };
    r.placement.relation = Relation::SamePu;
    r.switchesPerOp = 2;
    r.perSwitchNs = 1250.5;
    r.opsPerSample = 1;
    r.iterations = 1000;
    r.repetitions = 3;
    r.stats = Summary { 3000, 2400, 2501, 2600, 3000, 4000, 9000, 12000, 150, 0.06 };
    r.repetitionMedians = { 2490, 2501, 2510 };
    r.samples = { 2500, 2501, 2499.5 };
    r.totalSamples = 3000;
    r.histogram = { { 2400, 2450, 10 }, { 2450, 2500, 20 } };
    r.observed.voluntaryPerOp = 1.98;
    r.observed.involuntaryPerOp = 0.01;
    r.observed.migrations = 0;
    r.observed.cpusSeen = { 0 };
    r.observed.perfSwitchesPerOp = 2.0;
    r.observed.perfCheckOps = 250;
    r.observed.perfCheckNsPerOp = 3900;
    r.warnings = { "The spread is high, \"CV\" 6%." };
    return r;
}

} // namespace ctxscope::test
