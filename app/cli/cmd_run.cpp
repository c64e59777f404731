// SPDX-License-Identifier: MIT
// ctxscope-cli run BENCH: one benchmark on this machine, printed as a table.
#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress_line.h"
#include "result_table.h"
#include "spec_options.h"
#include "trace_options.h"
#include "ws_table.h"

#include "ctxscope/condition_sides.h"
#include "ctxscope/csv.h"
#include "ctxscope/lesson.h"
#include "ctxscope/results_file.h"
#include "ctxscope/runner.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/units.h"
#include "ctxscope/working_set.h"

#include <fmt/core.h>

#include <charconv>
#include <memory>

namespace ctxscope::cli {

namespace {

struct RunOptions {
    SpecOptions spec;
    std::uint64_t iterations = 0;
    std::string ws;
    std::uint64_t spinNs = kDefaultSpinNs;
    OutputOptions output;
    TraceCliOptions trace;
    std::string keepAwake;
    std::string pmQos;
    CLI::Option* iterationsOption = nullptr;
    CLI::Option* spinOption = nullptr;
    CLI::Option* pmQosOption = nullptr;
};

// --pm-qos-us as a whole number of microseconds, 0 to kMaxPmQosUs, or a sentence.
Expected<int> parsePmQos(const std::string& text)
{
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [at, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc {} || at != end || value < 0 || value > kMaxPmQosUs)
        return makeError(
            fmt::format("--pm-qos-us takes a whole number of microseconds from 0 to {}, not '{}'", kMaxPmQosUs, text));
    return value;
}

Expected<BenchSpec> toSpec(const RunOptions& o)
{
    auto spec = o.spec.toSpec();
    if (!spec)
        return spec;
    if (o.iterationsOption->count() > 0)
        spec->iterations = o.iterations;
    if (o.spinOption->count() > 0)
        spec->spinNs = o.spinNs;
    if (!o.ws.empty()) {
        auto ws = parseByteSize(o.ws);
        if (!ws)
            return ws.error();
        spec->wsBytes = *ws;
    }
    if (!o.keepAwake.empty()) {
        auto cpus = parseCpuList(o.keepAwake);
        if (!cpus)
            return makeError("--keep-awake: " + cpus.error().message);
        spec->keepAwakeCpus = std::move(*cpus);
    }
    if (o.pmQosOption->count() > 0) {
        auto us = parsePmQos(o.pmQos);
        if (!us)
            return us.error();
        spec->pmQosUs = *us;
    }
    return spec;
}

int failed(const Error& error, const InterruptScope& interrupt)
{
    if (interrupt.requested()) {
        fmt::print(stderr, "ctxscope-cli: interrupted; nothing finished to print\n");
        return kInterrupted;
    }
    fmt::print(stderr, "ctxscope-cli: the measurement failed: {}\n", error.message);
    return kMeasurementFailed;
}

// The traced run after the untraced one, and its file when asked.
Expected<TracedRun> traceRun(const TraceCliOptions& o, const BenchSpec& spec, const Topology& topology,
    const RunResult& untraced, ProgressLine& progress, const InterruptScope& interrupt)
{
    TracedRunOptions options = o.runOptions();
    const std::uint64_t ops = tracedOps(options, untraced.stats.mean);
    options.marks = traceComments(untraced, ops);
    RunCallbacks callbacks;
    callbacks.progress
        = [&](const Progress& p) { progress.update(fmt::format("{} traced ({} ops)", spec.bench, ops), p.fraction); };
    auto traced = runTraced(spec, topology, untraced, options, callbacks, interrupt.token());
    progress.clear();
    if (!traced)
        return traced;
    if (!o.out.empty()) {
        if (Status written = writeTraceFile(traced->raw, o.out, options.marks); !written)
            return written.error();
        fmt::print(stderr, "ctxscope-cli: wrote the trace to {}\n", o.out);
    }
    return traced;
}

int run(const RunOptions& o)
{
    auto live = withLiveTopology(toSpec(o));
    if (!live)
        return badInput(live.error().message);
    const BenchSpec& spec = live->spec;
    const Topology& topology = live->topology;
    if (auto checked = checkSpec(spec, topology); !checked)
        return badInput(checked.error().message);
    if (o.trace.wanted() && spec.wsBytes > 0)
        return badInput("--trace does not take --ws: trace the benchmark without a working set");
    if (Status traceable = o.trace.check(spec); !traceable)
        return badInput(traceable.error().message);
    if (Status sides = checkConditionSides(spec); !sides)
        return badInput(sides.error().message);
    if (spec.pmQosUs && readSysInfo().idleStates.empty())
        fmt::print(stderr,
            "ctxscope-cli: this machine has no cpuidle states, so --pm-qos-us changes nothing here "
            "(measured anyway, as the A/B's 'as is')\n");
    ProgressLine progress;
    InterruptScope interrupt;
    RunCallbacks callbacks;
    callbacks.progress = [&](const Progress& p) {
        progress.update(
            fmt::format("{} {} rep {}/{}", spec.bench, p.stage, p.repetition + 1, p.repetitions), p.fraction);
    };
    const nlohmann::json context = makeContext(readSysInfo(), topology, measurementClock());
    if (spec.wsBytes > 0 && findBenchmark(spec.bench)->maxTasks > 1) {
        auto point = runWorkingSet(
            spec, topology, [&](std::string_view stage, double f) { progress.update(std::string(stage), f); },
            interrupt.token());
        progress.clear();
        if (!point)
            return failed(point.error(), interrupt);
        if (o.output.tableOnStdout())
            fmt::print("{}", formatWorkingSetPoint(*point));
        nlohmann::json doc = makeReport(context, {}, false);
        doc["benchmarks"].push_back(workingSetPointToJson(*point, o.output.samples));
        return writeOutputs(o.output, doc,
            o.output.samples ? samplesToCsv({ point->roundTripRun }) : resultsToCsv(context, { point->roundTripRun }));
    }
    // With a condition, an A/B (measureSides): the same placement as is, then with it.
    auto measured = measureSides(spec, [&](const BenchSpec& one, std::size_t) -> Expected<RunResult> {
        if (one.conditioned() && o.output.tableOnStdout())
            fmt::print("with {}:\n", conditionText(one));
        auto result = runBenchmark(one, topology, callbacks, interrupt.token());
        progress.clear();
        if (!result)
            return result;
        if (o.output.tableOnStdout()) {
            fmt::print("{}", formatResults({ *result }));
            if (!result->keepAwakeTasks.empty())
                fmt::print("keep-awake: {} threads took {} of CPU time over the run's {:.2f} s (not counted as "
                           "interference)\n",
                    result->keepAwakeTasks.size(), formatDuration(result->keepAwakeCpuNs), result->seconds);
        }
        if (o.trace.wanted()) {
            auto traced = traceRun(o.trace, one, topology, *result, progress, interrupt);
            if (!traced)
                return traced.error();
            if (o.output.tableOnStdout())
                fmt::print("{}", formatTraceSummary(traced->summary));
            result->trace = std::move(traced->summary); // its block in the result's entry
            if (!result->interference) // /proc could not say what else ran: the trace can
                result->interference = traceInterference(*result->trace);
        }
        return result;
    });
    if (!measured)
        return failed(measured.error(), interrupt);
    const std::vector<RunResult>& results = measured->results;
    if (measured->ab && o.output.tableOnStdout()) {
        fmt::print("A/B: {}\n", measured->ab->sentence);
        for (const std::string& moved : measured->ab->movedSteps)
            fmt::print("  {}\n", moved);
    }
    const nlohmann::json report = makeReport(context, results, o.output.samples);
    return writeOutputs(o.output, report, o.output.samples ? samplesToCsv(results) : resultsToCsv(context, results));
}

} // namespace

Command addRunCommand(CLI::App& app)
{
    auto o = std::make_shared<RunOptions>();
    CLI::App* sub = app.add_subcommand("run", "Run one benchmark on this machine and print what it counted");
    sub->add_option("bench", o->spec.bench, "The benchmark: " + benchmarkNameList())->required();
    o->spec.addPlacementTo(sub);
    o->iterationsOption = sub->add_option("--iterations", o->iterations, "Ops per repetition (default: calibrated)");
    sub->add_option("--min-time", o->spec.minTime, "Seconds per repetition when calibrating")
        ->excludes(o->iterationsOption)
        ->capture_default_str();
    sub->add_option("--repetitions", o->spec.repetitions, "Repetitions (their spread is the CV warning)")
        ->capture_default_str();
    o->output.addTo(sub);
    o->trace.addTo(sub);
    o->trace.addBackendTo(sub);
    o->spinOption = sub->add_option("--spin-ns", o->spinNs,
        fmt::format(
            "spin-futex: nanoseconds a waiting task spins before it sleeps on the futex (0 to {})", kMaxSpinNs));
    o->spinOption->capture_default_str();
    sub->add_option("--ws", o->ws,
        "Working set per task (futex, pipe, ring, touch): 4096, 64K, 16M, 1G. Each task writes one byte per cache "
        "line of its own W bytes after taking the token; the hot touch(W) baseline runs too, and the switch cost is "
        "(round trip - tasks x touch) / switches");
    sub->add_option("--keep-awake", o->keepAwake,
        "CPUs to keep out of idle for the run: a SCHED_IDLE polling thread on each (it yields at once to any task, "
        "costs that CPU's idle power, and is never counted as interference). Measured as an A/B: as is, then kept "
        "awake");
    o->pmQosOption = sub->add_option("--pm-qos-us", o->pmQos,
        "Hold /dev/cpu_dma_latency at N microseconds for the run (0: the shallowest idle state), as cyclictest does; "
        "needs root. Measured as an A/B: as is, then held");
    return { sub, [o] { return run(*o); } };
}

} // namespace ctxscope::cli
