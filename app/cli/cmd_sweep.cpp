// SPDX-License-Identifier: MIT
// ctxscope-cli sweep BENCH --ws FROM..TO: a working-set curve, one row per W as it finishes.
#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "ws_table.h"

#include "ctxscope/bytes.h"
#include "ctxscope/runner.h"
#include "ctxscope/sweep.h"

#include "ctxscope/report.h"
#include "ctxscope/sysinfo.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

namespace ctxscope::cli {

namespace {

struct SweepOptions {
    std::string bench;
    std::string ws = "0..";
    std::string mode = "thread";
    std::string cpus;
    std::string relation;
    int tasks = 0;
    int pointsPerOctave = 1;
    int repetitions = 5;
    double minTime = 0.05;
    std::string policy = "other";
    OutputOptions output;
};

Expected<SweepSpec> toSpec(const SweepOptions& o)
{
    SweepSpec spec;
    BenchSpec& b = spec.base;
    b.bench = o.bench;
    b.mode = *benchModeFromString(o.mode); // CLI11 checked the name
    b.policy = *schedPolicyFromString(o.policy);
    if (!o.cpus.empty()) {
        auto cpus = parseCpuList(o.cpus);
        if (!cpus)
            return cpus.error();
        b.cpus = std::move(*cpus);
    }
    if (!o.relation.empty()) {
        b.relation = relationFromString(o.relation);
        if (!b.relation)
            return makeError(fmt::format("unknown relation '{}'", o.relation));
    }
    b.tasks = o.tasks;
    b.minTimeSeconds = o.minTime;
    b.repetitions = o.repetitions;
    auto range = parseByteRange(o.ws);
    if (!range)
        return range.error();
    spec.fromBytes = range->from;
    spec.toBytes = range->to;
    spec.pointsPerOctave = o.pointsPerOctave;
    return spec;
}

int sweep(const SweepOptions& o)
{
    auto spec = toSpec(o);
    if (!spec)
        return badInput(spec.error().message);
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    auto plan = planSweep(*spec, *topology);
    if (!plan)
        return badInput(plan.error().message);
    auto placement = checkSpec(spec->base, *topology);
    if (!placement)
        return badInput(placement.error().message);

    const bool table = o.output.tableOnStdout();
    if (table)
        std::fputs(formatSweepHeader(*spec, *plan, *placement).c_str(), stdout);
    std::fflush(stdout);
    InterruptScope interrupt;
    auto result = runSweep(
        *spec, *topology,
        [table](const SweepProgress& p) {
            if (p.finished && table) {
                std::fputs(formatSweepRow(*p.finished).c_str(), stdout);
                std::fflush(stdout);
            }
        },
        interrupt.token());
    if (!result) {
        if (interrupt.requested()) {
            fmt::print(stderr, "ctxscope-cli: interrupted; the rows above are the points that finished\n");
            return kInterrupted;
        }
        fmt::print(stderr, "ctxscope-cli: the sweep failed: {}\n", result.error().message);
        return kMeasurementFailed;
    }
    if (table)
        std::fputs(formatSweepFooter(*result).c_str(), stdout);
    const nlohmann::json context = makeContext(readSysInfo(), *topology, measurementClock());
    nlohmann::json doc = makeReport(context, {}, false);
    std::vector<RunResult> roundTrips;
    for (const WorkingSetPoint& point : result->points) {
        doc["benchmarks"].push_back(workingSetPointToJson(point, o.output.samples));
        roundTrips.push_back(point.roundTripRun);
    }
    doc["sweep"] = { { "caches", sweepCachesToJson(*result) }, { "warnings", result->warnings } };
    return writeOutputs(o.output, doc, o.output.samples ? samplesToCsv(roundTrips) : resultsToCsv(context, roundTrips));
}

} // namespace

Command addSweepCommand(CLI::App& app)
{
    auto o = std::make_shared<SweepOptions>();
    CLI::App* sub = app.add_subcommand("sweep",
        "Working-set curve: the round trip, the hot touch(W) and the switch cost for W on a log2 grid, with the "
        "cache sizes");
    sub->add_option("bench", o->bench, "The benchmark: futex, pipe or ring")->required();
    sub->add_option("--ws", o->ws,
           "Working sets FROM..TO per task, e.g. 0..64M, 4K..1G; TO left out: 4x the last-level cache "
           "(capped at a quarter of the available memory)")
        ->capture_default_str();
    sub->add_option("--mode", o->mode, "thread or process")
        ->check(CLI::IsMember({ "thread", "process" }))
        ->capture_default_str();
    auto* cpus = sub->add_option("--cpus", o->cpus, "One CPU per task, as taskset numbers them (0,0: both on CPU 0)");
    sub->add_option("--relation", o->relation, "Place the tasks as a representative pair of this class")
        ->excludes(cpus);
    sub->add_option("--tasks", o->tasks, "Tasks in a ring (2 to 4096)");
    sub->add_option("--points-per-octave", o->pointsPerOctave, "Grid points per doubling of W (1 to 16)")
        ->capture_default_str();
    sub->add_option("--repetitions", o->repetitions, "Repetitions per point and per series")->capture_default_str();
    sub->add_option("--min-time", o->minTime, "Seconds per repetition")->capture_default_str();
    o->output.addTo(sub);
    sub->add_option("--policy", o->policy, "other (SCHED_OTHER) or fifo (SCHED_FIFO when permitted)")
        ->check(CLI::IsMember({ "other", "fifo" }))
        ->capture_default_str();
    return { sub, [o] { return sweep(*o); } };
}

} // namespace ctxscope::cli
