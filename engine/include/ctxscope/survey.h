// SPDX-License-Identifier: MIT
// The survey: a fixed suite that says what a machine's switches cost, in a time budget, for
// comparing machines (machine_compare.h). Suite version 1, in the order it runs (a run that
// would end past the budget is skipped with the reason, and so is every later one):
//   1. syscall and vdso on one PU; the coroutine floor (coro-fcontext) on one PU;
//   2. futex and pipe, thread then process, on one PU (both tasks on it);
//   3. the same four on one representative pair of each relation class the machine has
//      (representativePairs: one pair per class, never all pairs);
//   4. the same four unpinned (the scheduler places the tasks);
//   5. spin (one-way hand-over = round trip / 2) on each class's pair.
// Left out of this version, and listed as skipped with that reason: the working-set knee, the
// traced segments of the hand-over per class.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/placement.h"
#include "ctxscope/result.h"
#include "ctxscope/topology.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

inline constexpr int kSurveyVersion = 1;
// The default budget: with start-up and the context read, the survey ends within two minutes.
inline constexpr double kSurveySeconds = 100;
// The shortest budget accepted (tests use a few seconds).
inline constexpr double kSurveyMinSeconds = 1;
inline constexpr double kSurveyMaxSeconds = 3600;
// Each run: this many repetitions of up to kSurveyMinTimeSeconds, shortened (not below
// kSurveyFloorMinTimeSeconds) when the whole suite would not fit the budget.
inline constexpr int kSurveyRepetitions = 3;
inline constexpr double kSurveyMinTimeSeconds = 0.2;
inline constexpr double kSurveyFloorMinTimeSeconds = 0.01;
// A run's wall time beyond its repetitions (start-up, calibration, the perf and syscall
// checks), before the first run has measured it.
inline constexpr double kSurveyRunOverheadSeconds = 0.3;

struct SurveyStep {
    std::string label; // "futex thread, shared-l3 pair (CPUs 0,2)"
    BenchSpec spec;
    Relation relation = Relation::SamePu;
};

struct SurveySkip {
    std::string what;
    std::string why; // a sentence
};

struct SurveyPlan {
    std::vector<SurveyStep> steps; // in the order they run
    std::vector<PuPair> pairs; // the representative pair of each class
    std::vector<SurveySkip> skipped; // left out before anything runs
    double budgetSeconds = kSurveySeconds;
    double minTimeSeconds = kSurveyMinTimeSeconds; // per repetition
    int repetitions = kSurveyRepetitions;
    double estimateSeconds = 0; // of the steps planned
};

// Seconds one run is expected to take at this time per repetition, before any has run.
double surveyRunEstimate(double minTimeSeconds, int repetitions);

// The budget is kSurveyMinSeconds..kSurveyMaxSeconds, or an Error saying so.
Status checkSurveyBudget(double budgetSeconds);

// The suite for a topology (any: synthetic ones plan without running). The budget is checked:
// outside kSurveyMinSeconds..kSurveyMaxSeconds is an Error.
Expected<SurveyPlan> planSurvey(const Topology& topology, double budgetSeconds = kSurveySeconds);

struct SurveyProgress {
    int step = 0;
    int steps = 0;
    std::string_view label;
    double elapsedSeconds = 0;
    double estimateSeconds = 0; // of the whole survey, from the runs so far
    // Set once a step's run has finished (a second report for that step): its result.
    const RunResult* finished = nullptr;
};

struct SurveyResult {
    SurveyPlan plan;
    std::vector<RunResult> results;
    std::vector<SurveySkip> skipped; // the plan's, then those the budget or a failure left out
    double seconds = 0;
    bool cancelled = false;
};

// Runs the plan on this machine (the topology must be the live one). A run that fails is
// listed as skipped with its error; a stop request ends the survey with what finished.
Expected<SurveyResult> runSurvey(const SurveyPlan& plan, const Topology& topology,
    const std::function<void(const SurveyProgress&)>& progress = {}, std::stop_token stop = {});

// The card's "survey" block: suite_version, budget_seconds, seconds, min_time_seconds,
// repetitions, pairs (relation and CPUs), skipped (what, why), cancelled.
nlohmann::json surveyToJson(const SurveyResult& survey);

} // namespace ctxscope
