// SPDX-License-Identifier: MIT
#include "spec_options.h"

#include "named_value.h"

#include "ctxscope/placement.h"
#include "ctxscope/topology.h"

#include <fmt/format.h>

namespace ctxscope::cli {

std::string relationNames()
{
    std::vector<std::string_view> names;
    for (Relation r : allRelations())
        names.push_back(toString(r));
    return fmt::format("{}", fmt::join(names, ", "));
}

CLI::Option* addModeOption(CLI::App* sub, BenchMode& mode, const std::string& help)
{
    return sub->add_option("--mode", mode, help)
        ->transform(
            namedValue<BenchMode>("mode", { { "thread", BenchMode::Thread }, { "process", BenchMode::Process } }))
        ->type_name("TEXT")
        ->default_str(std::string(toString(mode)));
}

namespace {

std::vector<std::pair<std::string, Relation>> relationsByName()
{
    std::vector<std::pair<std::string, Relation>> names;
    for (Relation r : allRelations())
        names.emplace_back(toString(r), r);
    return names;
}

} // namespace

void SpecOptions::addPlacementTo(CLI::App* sub)
{
    addModeOption(sub, mode, "thread or process (benchmarks with two or more tasks)");
    auto* cpuOption = sub->add_option("--cpus", cpus,
        "One CPU per task, as taskset numbers them: --cpus 0,0 puts both tasks of a ping-pong on CPU 0; "
        "a ring takes N CPUs, or one CPU with --tasks N");
    sub->add_option(
           "--relation", relation, "Place the tasks as a representative pair of this class: " + relationNames())
        ->transform(namedValue("relation", relationsByName()))
        ->type_name("TEXT")
        ->excludes(cpuOption);
    sub->add_option("--tasks", tasks, "Tasks in a ring (2 to 4096)");
    sub->add_option("--policy", policy, "other (SCHED_OTHER) or fifo (SCHED_FIFO when permitted)")
        ->transform(
            namedValue<SchedPolicy>("policy", { { "other", SchedPolicy::Other }, { "fifo", SchedPolicy::Fifo } }))
        ->type_name("TEXT")
        ->default_str(std::string(toString(policy)));
}

Expected<BenchSpec> SpecOptions::toSpec() const
{
    BenchSpec spec;
    spec.bench = bench;
    spec.mode = mode;
    spec.policy = policy;
    if (!cpus.empty()) {
        auto list = parseCpuList(cpus);
        if (!list)
            return list.error();
        spec.cpus = std::move(*list);
    }
    spec.relation = relation;
    spec.tasks = tasks;
    spec.minTimeSeconds = minTime;
    spec.repetitions = repetitions;
    return spec;
}

} // namespace ctxscope::cli
