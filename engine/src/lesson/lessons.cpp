// SPDX-License-Identifier: MIT
// The lesson registry and the loop that runs a lesson's experiments.
#include "ctxscope/lesson.h"
#include "ctxscope/trace_session.h"

#include "ctxscope/cache_check.h"
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include <algorithm>

#include <fmt/format.h>

namespace ctxscope {

namespace {

const std::vector<const lesson::LessonDefinition*>& definitions()
{
    static const std::vector<const lesson::LessonDefinition*> all {
        &lesson::modeSwitchLesson(),
        &lesson::pinningLesson(),
        &lesson::threadsVsProcessesLesson(),
        &lesson::cachePollutionLesson(),
        &lesson::pipePlacementLesson(),
        &lesson::coroutinesLesson(),
        &lesson::spinOrSleepLesson(),
        &lesson::runQueueLesson(),
        &lesson::livePlacementLesson(),
        &lesson::insideASwitchLesson(),
        &lesson::sleepingCpuLesson(),
    };
    return all;
}

const lesson::LessonDefinition* findDefinition(std::string_view id)
{
    for (const auto* d : definitions())
        if (d->info.id == id)
            return d;
    return nullptr;
}

Error unknownLesson(std::string_view id)
{
    std::vector<std::string_view> known;
    for (const auto* d : definitions())
        known.push_back(d->info.id);
    return makeError(fmt::format("unknown lesson '{}' (lessons: {})", id, fmt::join(known, ", ")));
}

bool anyTraceable(const std::vector<LessonStep>& steps)
{
    return std::any_of(steps.begin(), steps.end(), [](const LessonStep& s) { return s.traceable; });
}

// The step's traced run after its untraced one: its segments go into the untraced result.
Status traceStep(const LessonStep& step, const Topology& topology, const LessonTracing& tracing,
    const RunCallbacks& callbacks, std::stop_token stop, RunResult& untraced)
{
    TracedRunOptions options = tracing.options;
    options.marks = traceComments(untraced, tracedOps(options, untraced.stats.mean));
    auto traced = runTraced(step.spec, topology, untraced, options, callbacks, stop);
    if (!traced)
        return traced.error();
    if (tracing.traced)
        tracing.traced(step, *traced);
    untraced.trace = std::move(traced->summary);
    // Where /proc could not say what else ran, the trace can.
    if (!untraced.interference)
        untraced.interference = traceInterference(*untraced.trace);
    return {};
}

} // namespace

const std::vector<LessonInfo>& lessons()
{
    static const std::vector<LessonInfo> all = [] {
        std::vector<LessonInfo> v;
        for (const auto* d : definitions())
            v.push_back(d->info);
        return v;
    }();
    return all;
}

const LessonInfo* findLesson(std::string_view id)
{
    const auto* d = findDefinition(id);
    return d ? &d->info : nullptr;
}

Expected<std::vector<LessonStep>> planLesson(
    std::string_view id, const Topology& topology, const RunBudget& options, PlanTopology from)
{
    const auto* d = findDefinition(id);
    if (!d)
        return unknownLesson(id);
    if (from == PlanTopology::ThisMachine && !topology.isThisSystem())
        return makeError("a lesson measures this machine; " + topology.origin() + " is not it");
    return d->plan(topology, options);
}

bool lessonTraces(std::string_view id, const Topology& topology, const RunBudget& options, bool asked)
{
    const auto* d = findDefinition(id);
    if (!d || !(asked || d->info.traces))
        return false;
    auto steps = planLesson(id, topology, options);
    return steps && anyTraceable(*steps);
}

Expected<LessonResult> runLesson(std::string_view id, const Topology& topology, const RunBudget& options,
    const std::function<void(const LessonProgress&)>& progress, std::stop_token stop, const LessonTracing& tracing)
{
    auto steps = planLesson(id, topology, options);
    if (!steps)
        return steps.error();
    const auto* d = findDefinition(id);
    if (d->runWhole)
        return d->runWhole(topology, options, progress, stop);
    LessonResult out;
    out.id = std::string(d->info.id);
    out.question = std::string(d->info.question);
    out.steps = std::move(*steps);
    // Working sets come from the cache sizes: say when those were not plausible.
    const bool usesCaches
        = std::any_of(out.steps.begin(), out.steps.end(), [](const LessonStep& s) { return s.spec.wsBytes > 0; });
    if (std::string caches = checkCaches(topology).sentence(); usesCaches && !caches.empty())
        out.notes.push_back(std::move(caches));
    const bool traces = anyTraceable(out.steps) && (d->info.traces || tracing.asked);
    const Status allowed = traces ? tracingAllowed() : Status {};
    if (!allowed)
        out.notes.push_back(
            "Tracing is not allowed here, so the lesson ran untraced: " + allowed.error().message + ".");
    const int n = static_cast<int>(out.steps.size());
    for (int i = 0; i < n; ++i) {
        const LessonStep& step = out.steps[static_cast<std::size_t>(i)];
        const bool traced = step.traceable && traces && allowed;
        // A traced step's untraced run is the first half of its progress, the traced run the second.
        const double share = traced ? 0.5 : 1.0;
        const std::string tracedLabel = step.label + ", traced";
        RunCallbacks callbacks;
        RunCallbacks tracedCallbacks;
        if (progress) {
            progress(LessonProgress { i, n, step.label, static_cast<double>(i) / n, nullptr, {} });
            callbacks.progress = [&](const Progress& p) {
                progress(LessonProgress { i, n, step.label, (i + p.fraction * share) / n, nullptr, {} });
            };
            tracedCallbacks.progress = [&](const Progress& p) {
                progress(LessonProgress { i, n, tracedLabel, (i + share + p.fraction * share) / n, nullptr, {} });
            };
        }
        auto r = runBenchmark(step.spec, topology, callbacks, stop);
        if (r && traced && !stop.stop_requested())
            if (Status t = traceStep(step, topology, tracing, tracedCallbacks, stop, *r); !t)
                out.failures.push_back(tracedLabel + ": " + t.error().message);
        if (stop.stop_requested())
            return makeError("the lesson was cancelled");
        if (r)
            out.results.push_back(std::move(*r));
        else
            out.failures.push_back(step.label + ": " + r.error().message);
        if (progress)
            progress(LessonProgress { i, n, step.label, static_cast<double>(i + 1) / n,
                r ? &out.results.back() : nullptr, r ? std::string_view() : std::string_view(out.failures.back()) });
    }
    out.conclusion = concludeLesson(id, out.results);
    return out;
}

std::vector<std::string> concludeLesson(std::string_view id, const std::vector<RunResult>& results)
{
    const auto* d = findDefinition(id);
    if (!d)
        return { unknownLesson(id).message };
    // A disturbed run comes first, with its cause: what follows draws no conclusion from it.
    std::vector<std::string> out = lesson::disturbedNotes(results);
    for (std::string& sentence : d->conclude(results))
        out.push_back(std::move(sentence));
    return out;
}

std::optional<LessonHeadline> lessonHeadline(std::string_view id, const std::vector<RunResult>& results)
{
    const auto* d = findDefinition(id);
    if (!d || !d->headline)
        return std::nullopt;
    return d->headline(results);
}

} // namespace ctxscope
