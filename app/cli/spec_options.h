// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"

#include <CLI/CLI.hpp>

#include <string>

namespace ctxscope::cli {

// The benchmark, placement and timing options that `run` and `sweep` share, and the
// BenchSpec they make (one parser, so both commands accept and refuse the same things).
struct SpecOptions {
    std::string bench;
    std::string mode = "thread";
    std::string cpus;
    std::string relation;
    int tasks = 0;
    double minTime = 0.2;
    int repetitions = 5;
    std::string policy = "other";

    // --mode, --cpus, --relation (excludes --cpus), --tasks and --policy; the bench, the
    // timing options and their help differ per command and are added by it.
    void addPlacementTo(CLI::App* sub);
    Expected<BenchSpec> toSpec() const; // minTime and repetitions included
};

// "same-pu, smt, ..." for help and messages.
std::string relationNames();

} // namespace ctxscope::cli
