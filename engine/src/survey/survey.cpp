// SPDX-License-Identifier: MIT
// The survey's plan (the suite in its order, fitted to the budget) and its run.
#include "ctxscope/survey.h"

#include "ctxscope/runner.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/traced_run.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <chrono>
#include <fmt/core.h>

namespace ctxscope {

namespace {

std::string pairText(const PuPair& p)
{
    const std::string kinds = p.kinds.empty() ? std::string() : ", " + p.kinds;
    return p.relation == Relation::SamePu
        ? fmt::format("one PU{} (CPU {})", kinds, p.a)
        : fmt::format("{} pair{} (CPUs {},{})", toString(p.relation), kinds, p.a, p.b);
}

SurveyStep stepOf(const std::string& bench, BenchMode mode, const PuPair* pair, bool oneTask = false)
{
    SurveyStep s;
    s.spec.bench = bench;
    s.spec.mode = mode;
    s.spec.repetitions = kSurveyRepetitions;
    s.spec.minTimeSeconds = kSurveyMinTimeSeconds;
    const std::string what = oneTask ? bench : bench + " " + std::string(toString(mode));
    if (!pair) {
        s.spec.relation = Relation::Unpinned;
        s.relation = Relation::Unpinned;
        s.label = what + ", unpinned";
        return s;
    }
    s.spec.cpus = oneTask ? std::vector<int> { pair->a } : std::vector<int> { pair->a, pair->b };
    s.relation = pair->relation;
    s.label = what + ", " + pairText(*pair);
    return s;
}

// A step's estimate is fixed seconds plus seconds per second of repetition time.
struct Cost {
    double fixed = 0;
    double perMinTime = 0;
    double at(double minTime) const { return fixed + perMinTime * minTime; }
};

Cost costOf(const SurveyStep& s)
{
    if (s.kind == SurveyStepKind::Traced)
        return { kSurveyTraceSeconds, 0 };
    const double touched = static_cast<double>(s.spec.wsBytes) * static_cast<double>(s.spec.cpus.size());
    return { kSurveyRunOverheadSeconds + touched * kSurveyWsSecondsPerByte, kSurveyRepetitions + 1.0 };
}

// Steps the budget takes or leaves out together: a working set's round trip and its touch
// baseline (and when one is left out, every larger one after it).
struct Unit {
    std::vector<SurveyStep> steps;
    bool workingSet = false;
};

std::vector<Unit> suite(
    const SurveyPlan& plan, const PuPair& single, bool tracing, const std::vector<std::uint64_t>& wsSizes)
{
    std::vector<Unit> units;
    const auto one = [&](SurveyStep s) { units.push_back({ { std::move(s) }, false }); };
    for (const char* bench : { "syscall", "vdso", "coro-fcontext" })
        one(stepOf(bench, BenchMode::Thread, &single, true));
    const auto fourOn = [&](const PuPair* pair) {
        for (BenchMode mode : { BenchMode::Thread, BenchMode::Process })
            for (const char* bench : { "futex", "pipe" })
                one(stepOf(bench, mode, pair));
    };
    fourOn(&single);
    // Every other pair: each class's, and on a hybrid machine one PU of each other kind too.
    for (const PuPair& p : plan.pairs)
        if (p.a != single.a || p.b != single.b)
            fourOn(&p);
    fourOn(nullptr);
    // The farthest class's pair with both CPUs kept awake: the same placement without an idle exit.
    const PuPair* farthest = plan.pairs.back().relation == Relation::SamePu ? nullptr : &plan.pairs.back();
    const auto keptAwake = [&](SurveyStep s) {
        s.spec.keepAwakeCpus = s.spec.cpus;
        s.label = fmt::format(
            "futex thread{} kept awake, {}", s.kind == SurveyStepKind::Traced ? " traced" : "", pairText(*farthest));
        return s;
    };
    if (farthest)
        one(keptAwake(stepOf("futex", BenchMode::Thread, farthest)));
    for (const PuPair& p : plan.pairs)
        if (p.relation != Relation::SamePu)
            one(stepOf("spin", BenchMode::Thread, &p));
    if (tracing) {
        const auto traced = [](const PuPair& p) {
            SurveyStep s = stepOf("futex", BenchMode::Thread, &p);
            s.kind = SurveyStepKind::Traced;
            s.label = "futex thread traced, " + pairText(p);
            return s;
        };
        for (const PuPair& p : plan.pairs)
            one(traced(p));
        if (farthest)
            one(keptAwake(traced(*farthest)));
    }
    for (std::uint64_t w : wsSizes) {
        SurveyStep rt = stepOf("futex", BenchMode::Thread, &single);
        rt.spec.wsBytes = w;
        rt.label += fmt::format(", W = {} per task", formatBytes(w));
        SurveyStep touch = stepOf("touch", BenchMode::Thread, &single, true);
        touch.spec.wsBytes = w;
        touch.label += fmt::format(", W = {}", formatBytes(w));
        units.push_back({ { std::move(rt), std::move(touch) }, true });
    }
    return units;
}

} // namespace

double surveyRunEstimate(double minTimeSeconds, int repetitions)
{
    // The repetitions, and about as long again to calibrate.
    return kSurveyRunOverheadSeconds + (repetitions + 1) * minTimeSeconds;
}

Status checkSurveyBudget(double budgetSeconds)
{
    if (!(budgetSeconds >= kSurveyMinSeconds && budgetSeconds <= kSurveyMaxSeconds))
        return makeError(fmt::format("the survey's budget must be {} to {} seconds, not {}", kSurveyMinSeconds,
            kSurveyMaxSeconds, budgetSeconds));
    return {};
}

SurveyConditions surveyConditions()
{
    SurveyConditions c;
    if (Status allowed = tracingAllowed(); !allowed)
        c.tracing = allowed.error().message;
    c.availableBytes = memAvailableBytes();
    return c;
}

Expected<SurveyPlan> planSurvey(const Topology& topology, double budgetSeconds)
{
    return planSurvey(topology, budgetSeconds, surveyConditions());
}

Expected<SurveyPlan> planSurvey(const Topology& topology, double budgetSeconds, const SurveyConditions& conditions)
{
    if (Status budget = checkSurveyBudget(budgetSeconds); !budget)
        return budget.error();
    SurveyPlan plan;
    plan.budgetSeconds = budgetSeconds;
    plan.pairs = representativePairs(topology, 1);
    const auto onePu = std::find_if(
        plan.pairs.begin(), plan.pairs.end(), [](const PuPair& p) { return p.relation == Relation::SamePu; });
    if (onePu == plan.pairs.end())
        return makeError("no PU is allowed here: the survey has nowhere to run");
    const PuPair single = *onePu;
    if (const int level = topology.lastCacheLevel(); level > 0)
        plan.lastLevelCache = topology.cacheSize(level);
    const std::vector<std::uint64_t> sizes = surveyWorkingSets(topology, conditions.availableBytes, &plan.wsNote);
    if (sizes.empty())
        plan.skipped.push_back({ "the working-set knee", plan.wsNote });
    const std::vector<Unit> units = suite(plan, single, conditions.tracing.empty(), sizes);
    if (plan.pairs.size() == 1)
        plan.skipped.push_back({ "futex, pipe and spin across PUs", "only one PU is allowed here" });
    if (!conditions.tracing.empty())
        plan.skipped.push_back({ "the hand-over's traced segments per class", conditions.tracing });
    // Shorter repetitions while the whole suite would not fit in four fifths of the budget
    // (the rest is for the estimate's error); then whatever still does not fit is left out.
    Cost total;
    for (const Unit& u : units)
        for (const SurveyStep& s : u.steps) {
            total.fixed += costOf(s).fixed;
            total.perMinTime += costOf(s).perMinTime;
        }
    const double fitted = (budgetSeconds * 0.8 - total.fixed) / std::max(total.perMinTime, 1.0);
    plan.minTimeSeconds = std::clamp(fitted, kSurveyFloorMinTimeSeconds, kSurveyMinTimeSeconds);
    bool wsCut = false; // a working set was left out: so is every larger one
    for (const Unit& u : units) {
        double each = 0;
        for (const SurveyStep& s : u.steps)
            each += costOf(s).at(plan.minTimeSeconds);
        const bool over = plan.estimateSeconds + each > budgetSeconds;
        if (over || (u.workingSet && wsCut)) {
            wsCut = wsCut || u.workingSet;
            for (const SurveyStep& s : u.steps)
                plan.skipped.push_back({ s.label,
                    over ? fmt::format("over the budget of {} (about {} at the shortest repetitions)",
                        formatDuration(budgetSeconds * 1e9), formatDuration(costOf(s).at(plan.minTimeSeconds) * 1e9))
                         : "a smaller working set was already over the budget" });
            continue;
        }
        plan.estimateSeconds += each;
        if (u.workingSet)
            plan.wsSizes.push_back(u.steps.front().spec.wsBytes);
        for (SurveyStep s : u.steps) {
            s.spec.minTimeSeconds = plan.minTimeSeconds;
            s.estimateSeconds = costOf(s).at(plan.minTimeSeconds);
            plan.steps.push_back(std::move(s));
        }
    }
    return plan;
}

namespace {

// The untraced run a traced step explains: the futex thread run of the same CPUs and condition,
// no working set.
const RunResult* untracedOf(const SurveyStep& step, const std::vector<RunResult>& results)
{
    const auto it = std::find_if(results.begin(), results.end(), [&](const RunResult& r) {
        return r.bench == step.spec.bench && r.mode == step.spec.mode && r.spec.wsBytes == 0
            && r.spec.cpus == step.spec.cpus && r.spec.keepAwakeCpus == step.spec.keepAwakeCpus;
    });
    return it == results.end() ? nullptr : &*it;
}

} // namespace

Expected<SurveyResult> runSurvey(const SurveyPlan& plan, const Topology& topology,
    const std::function<void(const SurveyProgress&)>& progress, std::stop_token stop)
{
    if (!topology.isThisSystem())
        return makeError("the survey runs on this machine's own topology, not " + topology.origin());
    SurveyResult out;
    out.plan = plan;
    out.skipped = plan.skipped;
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed
        = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    RunContext context;
    double measured = 0; // wall time of the steps so far
    double predicted = 0; // their estimates
    double left = 0; // the estimates of the steps not run yet
    for (const SurveyStep& s : plan.steps)
        left += s.estimateSeconds;
    const int steps = static_cast<int>(plan.steps.size());
    int firstNotRun = steps; // the first step a stop request left undone
    for (int i = 0; i < steps; ++i) {
        const SurveyStep& step = plan.steps[static_cast<std::size_t>(i)];
        // The next step's estimate: the planned time, scaled by how the steps so far compared.
        const double scale = predicted > 0 ? measured / predicted : 1.0;
        const double next = step.estimateSeconds * scale;
        left -= step.estimateSeconds;
        if (stop.stop_requested()) {
            out.cancelled = true;
            firstNotRun = i;
            break;
        }
        const RunResult* untraced = step.kind == SurveyStepKind::Traced ? untracedOf(step, out.results) : nullptr;
        if (step.kind == SurveyStepKind::Traced && !untraced) {
            out.skipped.push_back({ step.label, "its untraced run did not finish, so there is nothing to explain" });
            continue;
        }
        if (step.spec.bench == "touch" && step.spec.wsBytes > 0
            && std::none_of(out.results.begin(), out.results.end(),
                [&](const RunResult& r) { return r.bench == "futex" && r.spec.wsBytes == step.spec.wsBytes; })) {
            out.skipped.push_back({ step.label, "its round trip did not finish, so the baseline would serve nothing" });
            continue;
        }
        if (elapsed() + next > plan.budgetSeconds) {
            out.skipped.push_back({ step.label,
                fmt::format("the budget of {} would be exceeded: {} spent, this run is estimated at {}",
                    formatDuration(plan.budgetSeconds * 1e9), formatDuration(elapsed() * 1e9),
                    formatDuration(next * 1e9)) });
            continue;
        }
        if (progress)
            progress({ i, steps, step.label, elapsed(), elapsed() + next + left * scale });
        const auto began = std::chrono::steady_clock::now();
        Status outcome;
        if (untraced) {
            TracedRunOptions options;
            options.marks = traceComments(*untraced, tracedOps(options, untraced->stats.mean));
            auto traced = runTraced(step.spec, topology, *untraced, options, {}, stop);
            if (traced)
                out.traces.push_back(
                    { step.relation, step.spec.cpus, step.spec.keepAwakeCpus, std::move(traced->summary) });
            else
                outcome = traced.error();
        } else {
            auto r = runBenchmark(step.spec, topology, {}, stop, &context);
            if (r)
                out.results.push_back(std::move(*r));
            else
                outcome = r.error();
        }
        if (!outcome) {
            if (stop.stop_requested()) {
                out.cancelled = true;
                firstNotRun = i;
                break;
            }
            out.skipped.push_back({ step.label, "the run failed: " + outcome.error().message });
            continue;
        }
        measured += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        predicted += step.estimateSeconds;
        if (progress && !untraced)
            progress({ i, steps, step.label, elapsed(), elapsed() + left * measured / predicted, &out.results.back() });
    }
    for (int i = firstNotRun; i < steps; ++i)
        out.skipped.push_back({ plan.steps[static_cast<std::size_t>(i)].label, "interrupted before it finished" });
    out.knee = surveyKnee(out.results);
    out.seconds = elapsed();
    return out;
}

} // namespace ctxscope
