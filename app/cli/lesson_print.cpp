// SPDX-License-Identifier: MIT
#include "lesson_print.h"

#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress_line.h"

#include "ctxscope/results_file.h"
#include "ctxscope/stats.h"
#include "ctxscope/units.h"
#include "ctxscope/value_json.h"

#include "ctxscope/trace.h"

#include <algorithm>
#include <optional>

#include <fmt/core.h>
#include <fmt/ranges.h>

namespace ctxscope::cli {

namespace {

// "runs 5.30 µs – 5.41 µs" from the repetition medians, the spread the conclusions quote.
std::string repetitionRange(const RunResult& r)
{
    if (r.repetitionMedians.size() < 2)
        return {};
    const auto [lo, hi] = std::minmax_element(r.repetitionMedians.begin(), r.repetitionMedians.end());
    return fmt::format("runs {} – {}", formatDuration(*lo), formatDuration(*hi));
}

double middle(const std::vector<double>& values) { return values.empty() ? 0 : summarize(values).p50; }

// The lessons that trace a step, for the refusal of --trace elsewhere.
std::string tracingLessons(const Topology& topology, const RunBudget& options)
{
    std::vector<std::string_view> ids;
    for (const LessonInfo& l : lessons())
        if (lessonTraces(l.id, topology, options, true))
            ids.push_back(l.id);
    return fmt::format("{}", fmt::join(ids, ", "));
}

// Every refusal of the trace options before anything runs. A lesson that always traces runs
// untraced without the privilege (and says so); one asked to trace is refused, as `run` is.
Status checkTrace(
    const std::string& id, const Topology& topology, const RunBudget& options, const TraceCliOptions& trace)
{
    auto steps = planLesson(id, topology, options);
    if (!steps)
        return {}; // runLesson says why
    auto step = std::find_if(steps->begin(), steps->end(), [](const LessonStep& s) { return s.traceable; });
    if (step == steps->end()) {
        if (!trace.wanted())
            return {};
        return makeError(fmt::format(
            "lesson {} traces nothing: --trace and --trace-out take {}", id, tracingLessons(topology, options)));
    }
    if (findLesson(id)->traces)
        return trace.checkInput(step->spec);
    return trace.check(step->spec);
}

// The trace --trace-out writes: the cross-CPU placement's, else the one-PU placement's.
struct KeptTrace {
    std::optional<RawTrace> raw;
    std::vector<std::string> comments;
    std::string placement;
    bool acrossCpus = false;

    void offer(const TracedRun& t)
    {
        const bool across = !t.run.placement.onePu();
        if (raw && acrossCpus && !across)
            return;
        raw = t.raw;
        comments = traceComments(t.run, t.summary.ops);
        placement = fmt::format("{} on CPUs {}", t.run.bench, fmt::join(t.run.placement.cpus, ","));
        acrossCpus = across;
    }
};

int writeKept(const KeptTrace& kept, const std::string& path)
{
    if (!kept.raw) {
        fmt::print(stderr, "ctxscope-cli: no step was traced, so {} was not written\n", path);
        return kOk;
    }
    if (Status written = writeTraceFile(*kept.raw, path, kept.comments); !written) {
        fmt::print(stderr, "ctxscope-cli: the trace could not be written: {}\n", written.error().message);
        return kMeasurementFailed;
    }
    fmt::print(stderr, "ctxscope-cli: wrote the trace of {} to {}\n", kept.placement, path);
    return kOk;
}

// lessonToJson's document, the machine's context (as a results file has it, so `compare` can
// weigh it) and the steps' results, each as `run --json` writes it.
nlohmann::json lessonDocument(const LessonResult& lesson, const Topology& topology)
{
    nlohmann::json doc = lessonToJson(lesson);
    doc["context"] = makeContext(readSysInfo(), topology, measurementClock());
    nlohmann::json results = nlohmann::json::array();
    for (const RunResult& r : lesson.results)
        results.push_back(resultToJson(r, false));
    doc["results"] = std::move(results);
    return doc;
}

} // namespace

int runAndPrintLesson(
    const std::string& id, const RunBudget& options, const std::string& json, const TraceCliOptions& trace)
{
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    if (Status traceable = checkTrace(id, *topology, options, trace); !traceable)
        return badInput(traceable.error().message);
    KeptTrace kept;
    LessonTracing tracing { trace.wanted(), trace.runOptions(), {} };
    if (!trace.out.empty())
        tracing.traced = [&](const LessonStep&, const TracedRun& t) { kept.offer(t); };
    const LessonInfo* info = findLesson(id);
    const bool text = json != "-";
    if (text)
        fmt::print("Lesson {}: {}\n", id, info ? info->question : "");
    ProgressLine progress;
    InterruptScope interrupt;
    auto result = runLesson(
        id, *topology, options,
        [&](const LessonProgress& p) {
            progress.update(fmt::format("[{}/{}] {}", p.step + 1, p.steps, p.label), p.fraction);
        },
        interrupt.token(), tracing);
    progress.clear();
    if (!result) {
        fmt::print(stderr, "ctxscope-cli: {}\n", result.error().message);
        return interrupt.requested() ? kInterrupted : kMeasurementFailed;
    }
    int status = result->results.empty() && result->phases.empty() ? kMeasurementFailed : kOk;
    if (!trace.out.empty())
        if (const int s = writeKept(kept, trace.out); s != kOk)
            status = s;
    if (!json.empty())
        if (const int s = writeText(json, lessonDocument(*result, *topology).dump(2) + "\n"); s != kOk)
            return s;
    if (!text)
        return status;
    for (const RunResult& r : result->results)
        fmt::print("  measured  {:<34} {:>10} per op  {}\n",
            fmt::format("{} {} {}{}{}", r.bench, toString(r.mode),
                relationText(r.placement.relation, r.placement.kinds),
                r.bench == "ring" ? fmt::format(" N={}", r.placement.tasks) : std::string(),
                r.spec.wsBytes > 0 ? " W=" + formatBytes(r.spec.wsBytes) : std::string()),
            formatDuration(r.stats.p50), repetitionRange(r));
    for (const RunResult& r : result->results)
        if (r.trace)
            fmt::print("\n  {} {} on CPUs {}, {}", r.bench, toString(r.mode), fmt::join(r.placement.cpus, ","),
                formatTraceSummary(*r.trace));
    for (const LessonPhase& p : result->phases)
        fmt::print("  watched   {:<44} {:>9} {}/s {:>9} switches/s{}\n", p.label, formatCount(middle(p.workPerS)),
            p.unit, formatCount(middle(p.switchesPerS)),
            p.runqueueWaitPerS.empty() ? std::string()
                                       : "  run-queue wait " + formatDuration(middle(p.runqueueWaitPerS) * 1e9) + "/s");
    for (const std::string& f : result->failures)
        fmt::print("  could not run: {}\n", f);
    for (const std::string& n : result->notes)
        fmt::print("  note: {}\n", n);
    fmt::print("\n");
    for (const std::string& sentence : result->conclusion)
        fmt::print("  * {}\n", sentence);
    fmt::print("\n");
    return status;
}

} // namespace ctxscope::cli
