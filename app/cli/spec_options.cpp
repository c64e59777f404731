// SPDX-License-Identifier: MIT
#include "spec_options.h"

#include "ctxscope/placement.h"
#include "ctxscope/topology.h"

#include <fmt/core.h>

namespace ctxscope::cli {

std::string relationNames()
{
    std::string out;
    for (Relation r : allRelations())
        out += fmt::format("{}{}", out.empty() ? "" : ", ", toString(r));
    return out;
}

void SpecOptions::addPlacementTo(CLI::App* sub)
{
    sub->add_option("--mode", mode, "thread or process (benchmarks with two or more tasks)")
        ->check(CLI::IsMember({ "thread", "process" }))
        ->capture_default_str();
    auto* cpuOption = sub->add_option("--cpus", cpus,
        "One CPU per task, as taskset numbers them: --cpus 0,0 puts both tasks of a ping-pong on CPU 0; "
        "a ring takes N CPUs, or one CPU with --tasks N");
    sub->add_option(
           "--relation", relation, "Place the tasks as a representative pair of this class: " + relationNames())
        ->excludes(cpuOption);
    sub->add_option("--tasks", tasks, "Tasks in a ring (2 to 4096)");
    sub->add_option("--policy", policy, "other (SCHED_OTHER) or fifo (SCHED_FIFO when permitted)")
        ->check(CLI::IsMember({ "other", "fifo" }))
        ->capture_default_str();
}

Expected<BenchSpec> SpecOptions::toSpec() const
{
    BenchSpec spec;
    spec.bench = bench;
    spec.mode = *benchModeFromString(mode); // CLI11 checked the names
    spec.policy = *schedPolicyFromString(policy);
    if (!cpus.empty()) {
        auto list = parseCpuList(cpus);
        if (!list)
            return list.error();
        spec.cpus = std::move(*list);
    }
    if (!relation.empty()) {
        spec.relation = relationFromString(relation);
        if (!spec.relation)
            return makeError(fmt::format("unknown relation '{}' (known: {})", relation, relationNames()));
    }
    spec.tasks = tasks;
    spec.minTimeSeconds = minTime;
    spec.repetitions = repetitions;
    return spec;
}

} // namespace ctxscope::cli
