// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ctxscope::cli {

// The benchmark, placement and timing options that `run` and `sweep` share, and the
// BenchSpec they make (one parser, so both commands accept and refuse the same things).
struct SpecOptions {
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    std::string cpus;
    std::optional<Relation> relation;
    int tasks = 0;
    double minTime = 0.2;
    int repetitions = 5;
    SchedPolicy policy = SchedPolicy::Other;

    // --mode, --cpus, --relation (excludes --cpus), --tasks and --policy; the bench, the
    // timing options and their help differ per command and are added by it.
    void addPlacementTo(CLI::App* sub);
    Expected<BenchSpec> toSpec() const; // minTime and repetitions included
};

// "same-pu, smt, ..." for help and messages.
std::string relationNames();
// --mode (thread or process) bound to `mode`, for every command that takes one.
CLI::Option* addModeOption(CLI::App* sub, BenchMode& mode, const std::string& help);

// A command's spec and this machine's topology to run it on.
template <typename Spec> struct LiveSpec {
    Spec spec;
    Topology topology;
};

// The first error of the options (the spec's, then the live topology's) or both: the
// topology is only loaded once the options made a spec.
template <typename Spec> Expected<LiveSpec<Spec>> withLiveTopology(Expected<Spec> spec)
{
    if (!spec)
        return spec.error();
    auto topology = Topology::loadLive();
    if (!topology)
        return topology.error();
    return LiveSpec<Spec> { std::move(*spec), std::move(*topology) };
}

} // namespace ctxscope::cli
