// SPDX-License-Identifier: MIT
// The time a job made of many runs (a lesson's steps, a matrix's pairs, the worker's
// commands for both) gives each of its runs, or a watching lesson each of its phases.
#pragma once

namespace ctxscope {

struct RunBudget {
    double minTimeSeconds = 0.1; // per repetition
    int repetitions = 3;
    // A lesson that watches a workload (live-placement): seconds each phase is watched.
    double phaseSeconds = 4;
};

// A phase is read every half second: two readings at least, ten minutes at most.
inline constexpr double kMinPhaseSeconds = 1;
inline constexpr double kMaxPhaseSeconds = 600;

} // namespace ctxscope
