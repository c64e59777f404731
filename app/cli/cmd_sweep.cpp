// SPDX-License-Identifier: MIT
// ctxscope-cli sweep BENCH --ws FROM..TO: a working-set curve, one row per W as it finishes.
#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress_line.h"
#include "spec_options.h"
#include "ws_table.h"

#include "ctxscope/csv.h"
#include "ctxscope/runner.h"
#include "ctxscope/sweep.h"
#include "ctxscope/units.h"

#include "ctxscope/results_file.h"
#include "ctxscope/sysinfo.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

namespace ctxscope::cli {

namespace {

struct SweepOptions {
    SweepOptions() { spec.minTime = 0.05; } // many points: shorter repetitions than a run's
    SpecOptions spec;
    std::string ws = "0..";
    int pointsPerOctave = 1;
    OutputOptions output;
};

Expected<SweepSpec> toSpec(const SweepOptions& o)
{
    auto base = o.spec.toSpec();
    if (!base)
        return base.error();
    auto range = parseByteRange(o.ws);
    if (!range)
        return range.error();
    SweepSpec spec;
    spec.base = std::move(*base);
    spec.fromBytes = range->from;
    spec.toBytes = range->to;
    spec.pointsPerOctave = o.pointsPerOctave;
    return spec;
}

int sweep(const SweepOptions& o)
{
    auto live = withLiveTopology(toSpec(o));
    if (!live)
        return badInput(live.error().message);
    const SweepSpec& spec = live->spec;
    const Topology& topology = live->topology;
    auto plan = planSweep(spec, topology);
    if (!plan)
        return badInput(plan.error().message);
    auto placement = checkSpec(spec.base, topology);
    if (!placement)
        return badInput(placement.error().message);

    const bool table = o.output.tableOnStdout();
    if (table)
        std::fputs(formatSweepHeader(spec, *plan, *placement).c_str(), stdout);
    std::fflush(stdout);
    ProgressLine progress;
    InterruptScope interrupt;
    auto result = runSweep(
        spec, topology,
        [&](const SweepProgress& p) {
            if (p.finished && table) {
                progress.clear(); // the row takes the line on a terminal
                std::fputs(formatSweepRow(*p.finished).c_str(), stdout);
                std::fflush(stdout);
            }
            progress.update(
                fmt::format("[{}/{}] W = {} {}", p.point + 1, p.points, formatBytes(p.wsBytes), p.stage), p.fraction);
        },
        interrupt.token());
    progress.clear();
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
    const nlohmann::json context = makeContext(readSysInfo(), topology, measurementClock());
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
    sub->add_option("bench", o->spec.bench, "The benchmark: futex, pipe or ring")->required();
    sub->add_option("--ws", o->ws,
           "Working sets FROM..TO per task, e.g. 0..64M, 4K..1G; TO left out: 4x the last-level cache "
           "(capped at a quarter of the available memory)")
        ->capture_default_str();
    o->spec.addPlacementTo(sub);
    sub->add_option("--points-per-octave", o->pointsPerOctave, "Grid points per doubling of W (1 to 16)")
        ->capture_default_str();
    sub->add_option("--repetitions", o->spec.repetitions, "Repetitions per point and per series")
        ->capture_default_str();
    sub->add_option("--min-time", o->spec.minTime, "Seconds per repetition")->capture_default_str();
    o->output.addTo(sub);
    return { sub, [o] { return sweep(*o); } };
}

} // namespace ctxscope::cli
