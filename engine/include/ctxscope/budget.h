// SPDX-License-Identifier: MIT
// The time a job made of many runs (a lesson's steps, a matrix's pairs, the worker's
// commands for both) gives each of its runs.
#pragma once

namespace ctxscope {

struct RunBudget {
    double minTimeSeconds = 0.1; // per repetition
    int repetitions = 3;
};

} // namespace ctxscope
