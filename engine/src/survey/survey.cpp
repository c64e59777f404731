// SPDX-License-Identifier: MIT
#include "ctxscope/survey.h"

#include "ctxscope/runner.h"
#include "ctxscope/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fmt/core.h>

namespace ctxscope {

namespace {

std::string pairText(const PuPair& p)
{
    return p.relation == Relation::SamePu ? fmt::format("one PU (CPU {})", p.a)
                                          : fmt::format("{} pair (CPUs {},{})", toString(p.relation), p.a, p.b);
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

const std::vector<SurveySkip>& notInThisVersion()
{
    static const std::vector<SurveySkip> skips {
        { "the working-set knee (futex on one PU up to the last-level cache)", "not in this suite version" },
        { "the hand-over's traced segments per class", "not in this suite version" },
        { "the spin line's NUMA node",
            "not in this suite version: each spin run has a fresh page of its own, first touched by the runner "
            "before the measuring tasks start" },
    };
    return skips;
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

Expected<SurveyPlan> planSurvey(const Topology& topology, double budgetSeconds)
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
    std::vector<SurveyStep> steps;
    for (const char* bench : { "syscall", "vdso", "coro-fcontext" })
        steps.push_back(stepOf(bench, BenchMode::Thread, &single, true));
    const auto fourOn = [&](const PuPair* pair) {
        for (BenchMode mode : { BenchMode::Thread, BenchMode::Process })
            for (const char* bench : { "futex", "pipe" })
                steps.push_back(stepOf(bench, mode, pair));
    };
    fourOn(&single);
    for (const PuPair& p : plan.pairs)
        if (p.relation != Relation::SamePu)
            fourOn(&p);
    fourOn(nullptr);
    for (const PuPair& p : plan.pairs)
        if (p.relation != Relation::SamePu)
            steps.push_back(stepOf("spin", BenchMode::Thread, &p));
    if (plan.pairs.size() == 1)
        plan.skipped.push_back({ "futex, pipe and spin across PUs", "only one PU is allowed here" });
    // Shorter repetitions while the whole suite would not fit in four fifths of the budget
    // (the rest is for the estimate's error); then whatever still does not fit is left out.
    const double perRun = budgetSeconds * 0.8 / static_cast<double>(steps.size());
    const double fitted = (perRun - kSurveyRunOverheadSeconds) / (kSurveyRepetitions + 1);
    plan.minTimeSeconds = std::clamp(fitted, kSurveyFloorMinTimeSeconds, kSurveyMinTimeSeconds);
    const double each = surveyRunEstimate(plan.minTimeSeconds, kSurveyRepetitions);
    for (SurveyStep& s : steps) {
        s.spec.minTimeSeconds = plan.minTimeSeconds;
        if (plan.estimateSeconds + each > budgetSeconds) {
            plan.skipped.push_back({ s.label,
                fmt::format("over the budget of {} (about {} a run at the shortest repetitions)",
                    formatDuration(budgetSeconds * 1e9), formatDuration(each * 1e9)) });
            continue;
        }
        plan.estimateSeconds += each;
        plan.steps.push_back(std::move(s));
    }
    for (const SurveySkip& s : notInThisVersion())
        plan.skipped.push_back(s);
    return plan;
}

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
    const double predicted = surveyRunEstimate(plan.minTimeSeconds, plan.repetitions);
    double measured = 0; // wall time of the runs so far
    int done = 0;
    const int steps = static_cast<int>(plan.steps.size());
    int firstNotRun = steps; // the first step a stop request left undone
    for (int i = 0; i < steps; ++i) {
        const SurveyStep& step = plan.steps[static_cast<std::size_t>(i)];
        // The next run's estimate: the planned time, scaled by how the runs so far compared.
        const double scale = done > 0 ? measured / (predicted * done) : 1.0;
        const double next = predicted * scale;
        if (stop.stop_requested()) {
            out.cancelled = true;
            firstNotRun = i;
            break;
        }
        if (elapsed() + next > plan.budgetSeconds) {
            out.skipped.push_back({ step.label,
                fmt::format("the budget of {} would be exceeded: {} spent, this run is estimated at {}",
                    formatDuration(plan.budgetSeconds * 1e9), formatDuration(elapsed() * 1e9),
                    formatDuration(next * 1e9)) });
            continue;
        }
        if (progress)
            progress({ i, steps, step.label, elapsed(), elapsed() + next * (steps - i) });
        auto r = runBenchmark(step.spec, topology, {}, stop, &context);
        if (!r) {
            if (stop.stop_requested()) {
                out.cancelled = true;
                firstNotRun = i;
                break;
            }
            out.skipped.push_back({ step.label, "the run failed: " + r.error().message });
            continue;
        }
        measured += r->seconds;
        ++done;
        out.results.push_back(std::move(*r));
        if (progress)
            progress({ i, steps, step.label, elapsed(), elapsed() + (measured / done) * (steps - i - 1),
                &out.results.back() });
    }
    for (int i = firstNotRun; i < steps; ++i)
        out.skipped.push_back({ plan.steps[static_cast<std::size_t>(i)].label, "interrupted before it finished" });
    out.seconds = elapsed();
    return out;
}

nlohmann::json surveyToJson(const SurveyResult& survey)
{
    nlohmann::json pairs = nlohmann::json::array();
    for (const PuPair& p : survey.plan.pairs)
        pairs.push_back({ { "relation", std::string(toString(p.relation)) }, { "cpus", { p.a, p.b } } });
    nlohmann::json skipped = nlohmann::json::array();
    for (const SurveySkip& s : survey.skipped)
        skipped.push_back({ { "what", s.what }, { "why", s.why } });
    return { { "suite_version", kSurveyVersion }, { "budget_seconds", survey.plan.budgetSeconds },
        { "estimate_seconds", survey.plan.estimateSeconds }, { "seconds", survey.seconds },
        { "min_time_seconds", survey.plan.minTimeSeconds }, { "repetitions", survey.plan.repetitions },
        { "pairs", std::move(pairs) }, { "skipped", std::move(skipped) }, { "cancelled", survey.cancelled } };
}

} // namespace ctxscope
