// SPDX-License-Identifier: MIT
// The survey: a fixed suite that says what a machine's switches cost, in a time budget, for
// comparing machines (machine_compare.h). Suite version 2, in the order it runs (the plan leaves
// out what its estimate does not fit in the budget, and a run that would end past the budget is
// skipped: each with the reason):
//   1. syscall and vdso on one PU; the coroutine floor (coro-fcontext) on one PU;
//   2. futex and pipe, thread then process, on one PU (both tasks on it);
//   3. the same four on one representative pair of each relation class the machine has
//      (representativePairs: one pair per class, never all pairs; on a hybrid machine one per
//      class and kind pair, and one PU of each other kind);
//   4. the same four unpinned (the scheduler places the tasks); then futex thread on the farthest
//      class's pair kept awake (--keep-awake on both CPUs: the same placement with no idle exit,
//      its A/B against step 3's run of that pair in surveyFigureLines);
//   5. spin (one-way hand-over = round trip / 2) on each class's pair, its line alone in a fresh
//      page first touched by task 0, pinned, before task 1 starts; the result's "line" says on
//      which NUMA node the page was and who touched it first (RunResult::line);
//   6. where this process may trace (tracingAllowed), a traced futex thread run on one PU and on
//      each class's pair: the hand-over's segments per class (SurveyTrace), then the farthest
//      class's pair kept awake; else skipped with the engine's sentence;
//   7. the working-set knee: futex thread on one PU with each task touching W after taking the
//      token, and the touch(W) baseline, at W = 4 KiB, 16 KiB, ... x4 up to twice the last-level
//      cache (at most kSurveyMaxWsBytes, and a quarter of the memory available); the knee is the
//      first W whose switch cost is clearly above its cost at the smallest W (surveyKnee). The
//      largest sizes go first when the budget is short.
// Version 1 cards (steps 1-5, the spin line first touched by the runner, unreported) still read.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/handover.h"
#include "ctxscope/placement.h"
#include "ctxscope/result.h"
#include "ctxscope/topology.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/working_set.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

inline constexpr int kSurveyVersion = 2;
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

// The working-set knee's sizes: from this, x4 each, to twice the last-level cache.
inline constexpr std::uint64_t kSurveyFirstWsBytes = 4096;
// Whatever the caches say, no task touches more than this (twice the largest plausible share of
// a last-level cache per core, cache_check.h); also the end when no plausible size is known.
inline constexpr std::uint64_t kSurveyMaxWsBytes = std::uint64_t { 64 } << 20;
// What a working-set run adds to a run's estimate per byte its tasks touch (faulting the buffers
// in and touching them during calibration), before any has run.
inline constexpr double kSurveyWsSecondsPerByte = 2e-9;
// A traced run's estimate: its ops (about 0.25 s), the trace instance's buffers, collecting and
// decoding the events.
inline constexpr double kSurveyTraceSeconds = 2.0;

enum class SurveyStepKind {
    Run, // a run whose result goes into the card
    Traced, // the traced run after the untraced futex run of the same placement (step 6)
};

struct SurveyStep {
    std::string label; // "futex thread, shared-l3 pair (CPUs 0,2)"
    BenchSpec spec;
    Relation relation = Relation::SamePu;
    SurveyStepKind kind = SurveyStepKind::Run;
    double estimateSeconds = 0; // at the plan's time per repetition
};

struct SurveySkip {
    std::string what;
    std::string why; // a sentence
};

struct SurveyPlan {
    std::vector<SurveyStep> steps; // in the order they run
    std::vector<PuPair> pairs; // the representative pair of each class
    std::vector<std::uint64_t> wsSizes; // the knee's working sets the plan runs, ascending
    std::uint64_t lastLevelCache = 0; // the plausible size of one instance; 0 when none is known
    std::string wsNote; // a sentence: why the sizes end where they end, when not at twice the cache
    std::vector<SurveySkip> skipped; // left out before anything runs
    double budgetSeconds = kSurveySeconds;
    double minTimeSeconds = kSurveyMinTimeSeconds; // per repetition
    int repetitions = kSurveyRepetitions;
    double estimateSeconds = 0; // of the steps planned
};

// Seconds one run is expected to take at this time per repetition, before any has run.
double surveyRunEstimate(double minTimeSeconds, int repetitions);

// What the plan depends on beyond the topology, read from this process and machine by
// surveyConditions(); tests give their own.
struct SurveyConditions {
    std::string tracing; // tracingAllowed()'s sentence when this process may not trace; "" when it may
    std::optional<std::uint64_t> availableBytes; // memory for the working sets (MemAvailable); none: unknown
};
SurveyConditions surveyConditions();

// The knee's working sets for a topology: x4 from kSurveyFirstWsBytes to twice its plausible
// last-level cache, at most kSurveyMaxWsBytes, two tasks' buffers within a quarter of
// `availableBytes`. `note` gets the sentence of SurveyPlan::wsNote.
std::vector<std::uint64_t> surveyWorkingSets(
    const Topology& topology, std::optional<std::uint64_t> availableBytes, std::string* note = nullptr);

// The budget is kSurveyMinSeconds..kSurveyMaxSeconds, or an Error saying so.
Status checkSurveyBudget(double budgetSeconds);

// The suite for a topology (any: synthetic ones plan without running). The budget is checked:
// outside kSurveyMinSeconds..kSurveyMaxSeconds is an Error. Without conditions, this process's.
Expected<SurveyPlan> planSurvey(const Topology& topology, double budgetSeconds = kSurveySeconds);
Expected<SurveyPlan> planSurvey(const Topology& topology, double budgetSeconds, const SurveyConditions& conditions);

struct SurveyProgress {
    int step = 0;
    int steps = 0;
    std::string_view label;
    double elapsedSeconds = 0;
    double estimateSeconds = 0; // of the whole survey, from the runs so far
    // Set once a step's run has finished (a second report for that step): its result.
    const RunResult* finished = nullptr;
};

// A traced run's segments for one class (step 6).
struct SurveyTrace {
    Relation relation = Relation::SamePu;
    std::vector<int> cpus;
    std::vector<int> keepAwakeCpus; // the CPUs kept awake through the traced run; empty: as is
    TraceSummary summary;
};

// The working-set knee (step 7): the switch cost at each W on one PU, and the first W whose cost
// is clearly above the smallest W's: kClearCostRise times, the quartile spreads apart, both
// points clear (a positive cost whose spread stays above 0, repetitions within 5%).
struct SurveyKnee {
    std::vector<WorkingSetPoint> points; // ascending W, without their runs
    std::vector<bool> clear; // one per point
    std::optional<std::uint64_t> kneeBytes; // none: no clear rise (or too few clear points)
    std::string sentence; // what was found, in words
};

// The knee from a survey's results: each futex thread run on one PU with a working set, with the
// touch run of the same W (one without its touch run is left out).
SurveyKnee surveyKnee(const std::vector<RunResult>& results);

struct SurveyResult {
    SurveyPlan plan;
    std::vector<RunResult> results;
    std::vector<SurveyTrace> traces; // one per class traced, in the plan's order
    SurveyKnee knee;
    std::vector<SurveySkip> skipped; // the plan's, then those the budget or a failure left out
    double seconds = 0;
    bool cancelled = false;
};

// Runs the plan on this machine (the topology must be the live one). A run that fails is
// listed as skipped with its error; a stop request ends the survey with what finished. A traced
// step reports its start but no finished result (its segments go into SurveyResult::traces).
Expected<SurveyResult> runSurvey(const SurveyPlan& plan, const Topology& topology,
    const std::function<void(const SurveyProgress&)>& progress = {}, std::stop_token stop = {});

// The card's "survey" block: suite_version, budget_seconds, estimate_seconds, seconds,
// min_time_seconds, repetitions, pairs (relation and CPUs), skipped (what, why), cancelled, and
// from version 2: working_set {sizes, last_level_cache, note, points (workingSetPointSummaryToJson
// each, with "clear"), knee_bytes (null: none), knee (the sentence)} and traced [{relation,
// cpus, keep_awake_cpus (only when kept awake), trace (traceSummaryToJson)}].
nlohmann::json surveyToJson(const SurveyResult& survey);

// A trace's segments and their medians: "wake call -> sched_waking 310 ns; IPI sent 1.2 µs; ...".
std::string segmentsText(const TraceSummary& summary);
// A segment's median as the survey's line and compare's figures give it: a way of a step that
// fewer than kRareSegmentShare of the hand-overs took says how few ("38.6 µs (1 of 39,451
// hand-overs)"), so that one hand-over's wait behind another program does not read as typical.
inline constexpr double kRareSegmentShare = 0.01;
std::string segmentMedianText(const TraceSegment& segment, std::uint64_t handovers);

// The text summary's lines about steps 4-7: the farthest class kept awake against as is (the
// condition's A/B, compareCondition), each spin run's line, the segments per class, the knee
// (shared by the CLI and tests).
std::vector<std::string> surveyFigureLines(const SurveyResult& survey);

} // namespace ctxscope
