// SPDX-License-Identifier: MIT
// The worker's commands, each run in the session's job thread with progress streamed.
#include "protocol/worker_jobs.h"
#include "ctxscope/trace_session.h"

#include "ctxscope/condition_sides.h"
#include "ctxscope/events.h"
#include "ctxscope/thread_affinity.h"
#include "ctxscope/traced_run.h"

#include <algorithm>

namespace ctxscope::worker {

using namespace protocol;

namespace {

// The PUs a spec's tasks may run on: its placement, or every allowed PU when the scheduler
// places them (or when the spec is refused: the job reports that itself).
std::vector<int> measuredBy(const BenchSpec& spec, const Topology& topology)
{
    auto placement = checkSpec(spec, topology);
    if (!placement || placement->cpus.empty())
        return topology.allowedPus();
    return placement->cpus;
}

void addAll(std::vector<int>& to, const std::vector<int>& cpus)
{
    for (int cpu : cpus)
        if (std::find(to.begin(), to.end(), cpu) == to.end())
            to.push_back(cpu);
    std::sort(to.begin(), to.end());
}

std::vector<std::string> warningOf(const KeepThreadOff& keep)
{
    return keep.warning().empty() ? std::vector<std::string> {} : std::vector<std::string> { keep.warning() };
}

std::string failureLine(std::uint64_t id, const JobContext& c, const Error& error)
{
    return c.stop.stop_requested() ? cancelledLine(id) : errorLine(id, error.message);
}

TracedRunOptions tracedRunOptions(const RunTrace& trace)
{
    TracedRunOptions options;
    options.ops = trace.ops;
    options.bufferKbPerCpu = trace.bufferKbPerCpu;
    options.backend = trace.backend;
    options.eventsWanted = !trace.out.empty();
    return options;
}

// A run with "trace": what it cannot trace is said before anything runs.
Status traceCheck(const RunCommand& command)
{
    if (!command.trace)
        return {};
    const TracedRunOptions options = tracedRunOptions(*command.trace);
    if (Status input = traceInputCheck(command.spec, options, command.trace->out); !input)
        return input;
    return traceAllowed(command.spec, options);
}

} // namespace

namespace {

// One side of a run (the run itself, or a side of its condition's A/B): measured, then traced
// when asked. Its events stream before its result; the result keeps the untraced figures and
// carries the traced run's segments.
Expected<RunResult> measureSide(
    const RunCommand& command, const BenchSpec& spec, const JobContext& c, bool last, const KeepThreadOff& keep)
{
    RunCallbacks callbacks;
    callbacks.samples = [&](const SampleBatch& b) {
        for (const std::string& line : samplesLines(command.id, b))
            c.write(line);
    };
    callbacks.progress = [&](const Progress& p) { c.write(progressLine(command.id, p)); };
    RunContext context;
    context.controllerPid = c.controllerPid;
    auto result = runBenchmark(spec, c.topology, callbacks, c.stop, &context);
    if (!result)
        return result;
    for (std::string& w : warningOf(keep))
        result->warnings.push_back(std::move(w));
    if (!command.trace)
        return result;
    TracedRunOptions options = tracedRunOptions(*command.trace);
    options.marks = { "ctxscope worker: traced run of command " + std::to_string(command.id) };
    RunCallbacks traced;
    traced.progress = [&](const Progress& p) {
        Progress q = p;
        q.stage = "traced";
        c.write(progressLine(command.id, q));
    };
    auto t = runTraced(spec, c.topology, *result, options, traced, c.stop);
    if (!t)
        return t.error();
    if (t->summary.backend != "bpf") // cut in the kernel: no events to send
        for (const std::string& line : traceEventsLines(command.id, t->trace, command.trace->windowEvents))
            c.write(line);
    // The whole recording to the file asked for (an A/B's: the condition's side, measured last);
    // a file that cannot be written costs the run nothing.
    if (const std::string& out = command.trace->out; !out.empty() && last)
        if (Status written = writeTraceFile(t->raw, out, traceComments(*result, t->summary.ops)); !written)
            result->warnings.push_back("the traced run's trace file was not written: " + written.error().message);
    result->trace = std::move(t->summary);
    return result;
}

} // namespace

std::string runJob(const RunCommand& command, const JobContext& c)
{
    if (Status traceable = traceCheck(command); !traceable)
        return errorLine(command.id, traceable.error().message);
    if (Status sides = checkConditionSides(command.spec); !sides)
        return errorLine(command.id, sides.error().message);
    // A condition's own checks (its CPUs) before the side as is runs, as `run` makes them.
    if (command.spec.conditioned())
        if (auto placed = checkSpec(command.spec, c.topology); !placed)
            return errorLine(command.id, placed.error().message);
    const KeepThreadOff keep(c.topology, c.readerTid, measuredBy(command.spec, c.topology));
    if (!command.asIsFirst) { // the condition's side alone: a lesson measures its own side as is
        auto result = measureSide(command, command.spec, c, true, keep);
        return result ? resultLine(command.id, *result) : failureLine(command.id, c, result.error());
    }
    // With a condition, an A/B (measureSides): the side as is goes out as soon as it is measured.
    const std::size_t sides = conditionSides(command.spec).size();
    auto measured = measureSides(command.spec, [&](const BenchSpec& side, std::size_t index) {
        auto result = measureSide(command, side, c, index + 1 == sides, keep);
        if (result && index + 1 < sides)
            c.write(eventLine(ResultEvent { command.id, *result, 0, true }));
        return result;
    });
    if (!measured)
        return failureLine(command.id, c, measured.error());
    return eventLine(
        ResultEvent { command.id, std::move(measured->results.back()), 0, false, std::move(measured->ab) });
}

std::string sweepJob(const SweepCommand& command, const JobContext& c)
{
    const KeepThreadOff keep(c.topology, c.readerTid, measuredBy(command.spec.base, c.topology));
    auto sweep = runSweep(
        command.spec, c.topology,
        [&](const SweepProgress& p) {
            c.write(p.finished ? sweepPointLine(command.id, p.point, p.points, *p.finished)
                               : sweepProgressLine(command.id, p));
        },
        c.stop);
    if (!sweep)
        return failureLine(command.id, c, sweep.error());
    for (std::string& w : warningOf(keep))
        sweep->warnings.push_back(std::move(w));
    return sweepResultLine(command.id, *sweep);
}

std::string matrixJob(const MatrixCommand& command, const JobContext& c)
{
    std::vector<int> measured;
    if (command.fill == MatrixMode::AllPairs)
        measured = c.topology.allowedPus();
    for (const PuPair& p : representativePairs(c.topology))
        addAll(measured, { p.a, p.b });
    const KeepThreadOff keep(c.topology, c.readerTid, measured);
    auto matrix = runMatrix(
        command.bench, command.mode, command.fill, c.topology, command.options,
        [&](const MatrixProgress& p) {
            c.write(
                p.finished || !p.failure.empty() ? matrixCellLine(command.id, p) : matrixProgressLine(command.id, p));
        },
        c.stop);
    if (!matrix)
        return failureLine(command.id, c, matrix.error());
    // The finished cells already went out as matrix_cell lines; a cancel is answered as for any job.
    if (matrix->cancelled)
        return failureLine(command.id, c, makeError("the matrix was cancelled"));
    return matrixResultLine(command.id, *matrix, warningOf(keep));
}

std::string lessonJob(const LessonCommand& command, const JobContext& c)
{
    std::vector<int> measured;
    const LessonInfo* info = findLesson(command.lesson);
    if (auto steps = planLesson(command.lesson, c.topology, command.options))
        for (const LessonStep& step : *steps)
            // A watching lesson's steps are phases: their specs hold only where they pin.
            addAll(measured, info && info->wholeInWorker ? step.spec.cpus : measuredBy(step.spec, c.topology));
    const KeepThreadOff keep(c.topology, c.readerTid, measured);
    auto lesson = runLesson(
        command.lesson, c.topology, command.options,
        [&](const LessonProgress& p) {
            c.write(p.finished || p.phase || !p.failure.empty() ? lessonStepLine(command.id, p)
                                                                : lessonProgressLine(command.id, p));
        },
        c.stop);
    if (!lesson)
        return failureLine(command.id, c, lesson.error());
    return lessonResultLine(command.id, *lesson, warningOf(keep));
}

std::string surveyJob(const SurveyCommand& command, const JobContext& c)
{
    auto plan = planSurvey(c.topology, command.budgetSeconds);
    if (!plan)
        return errorLine(command.id, plan.error().message);
    // Off the PUs of the pinned runs, as for a matrix (the unpinned ones go where the scheduler puts them).
    std::vector<int> measured;
    for (const SurveyStep& step : plan->steps)
        addAll(measured, step.spec.cpus);
    const KeepThreadOff keep(c.topology, c.readerTid, measured);
    auto survey = runSurvey(
        *plan, c.topology,
        [&](const SurveyProgress& p) {
            c.write(p.finished ? surveyStepLine(command.id, p) : surveyProgressLine(command.id, p));
        },
        c.stop);
    if (!survey)
        return failureLine(command.id, c, survey.error());
    // The finished runs already went out as survey_step lines; a cancel is answered as for any job.
    if (survey->cancelled)
        return failureLine(command.id, c, makeError("the survey was cancelled"));
    return surveyResultLine(command.id, *survey, warningOf(keep));
}

} // namespace ctxscope::worker
