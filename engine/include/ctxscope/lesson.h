// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/budget.h"
#include "ctxscope/expected.h"
#include "ctxscope/placement.h"
#include "ctxscope/result.h"
#include "ctxscope/runner.h"
#include "ctxscope/topology.h"
#include "ctxscope/traced_run.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

// A teaching preset (docs/user-guide.md, "Lessons"): a question, a few experiments on this machine, and a
// conclusion in plain words computed from what was just measured.
struct LessonInfo {
    std::string_view id;
    std::string_view question;
    std::string_view experiments;
    // Not a list of runs: the lesson runs whole through runLesson (the CLI, the worker's
    // `lesson` command) and its steps are phases, never single runs to start one by one.
    bool wholeInWorker = false;
    // Traces its traceable steps on every run (inside-a-switch); the other lessons with
    // traceable steps trace them only when asked (LessonTracing::asked).
    bool traces = false;
};

const std::vector<LessonInfo>& lessons();
const LessonInfo* findLesson(std::string_view id);

struct LessonStep {
    std::string label; // what this experiment shows, e.g. "futex thread, shared-l3 (0,1)"
    BenchSpec spec;
    // When the lesson traces, the step runs once more inside a private ftrace instance after its
    // untraced run, and its result carries the hand-over's segments (RunResult::trace).
    bool traceable = false;
};

// One phase of a lesson that watches a running workload (live-placement) instead of running
// benchmarks: where its threads were put and what the watch saw, one value per interval.
struct LessonPhase {
    std::string label; // "both threads on CPU 0"
    std::vector<int> cpus; // one per workload thread, in its thread order; empty: unpinned
    std::optional<Relation> relation; // of the CPUs; none when unpinned
    double seconds = 0; // watched
    std::string unit; // of the workload's work, plural: "round trips"
    std::vector<double> workPerS; // the workload's own rate
    std::vector<double> switchesPerS; // voluntary + involuntary, its threads summed
    std::vector<double>
        runqueueWaitPerS; // seconds runnable but waiting per second, its threads summed; empty without schedstat
    double involuntaryPerS = 0; // over the phase, its threads summed
    double migrationsPerS = 0; // over the phase, its threads summed
    bool migrationsLowerBound = false; // counted from last-CPU changes (see ThreadRates)
    std::vector<int> cpusSeen; // every CPU its threads were seen on
};

struct LessonProgress {
    int step = 0; // 0-based
    int steps = 0;
    std::string_view label;
    double fraction = 0; // of the whole lesson
    // Once the step is done (fraction (step + 1) / steps): its result, or why it failed.
    const RunResult* finished = nullptr;
    std::string_view failure;
    const LessonPhase* phase = nullptr; // a watching lesson's finished phase
};

struct LessonResult {
    std::string id;
    std::string question;
    std::vector<LessonStep> steps;
    std::vector<RunResult> results; // one per step that ran; results[i].spec matches steps
    std::vector<std::string> failures; // steps that could not run, each a sentence
    std::vector<std::string> conclusion; // sentences with the numbers just measured
    // Sentences about how the experiments were chosen, e.g. that the cache sizes this machine
    // reports are implausible and the working sets were capped.
    std::vector<std::string> notes;
    std::vector<LessonPhase> phases; // a watching lesson's (wholeInWorker) phases; none for the others
};

// Where the topology a lesson is planned on comes from: this machine, loaded live here; or a
// worker on another machine (over ssh), whose hello described that machine's own live
// topology and whose worker checks each of the lesson's runs against it before measuring.
enum class PlanTopology { ThisMachine, WorkersHello };

// The experiments a lesson runs on this topology (also what the GUI shows before running).
// Refused for a topology that is no machine's own (a file, a synthetic description).
Expected<std::vector<LessonStep>> planLesson(std::string_view id, const Topology& topology, const RunBudget& options,
    PlanTopology from = PlanTopology::ThisMachine);

// How a lesson traces its traceable steps (docs/lessons.md, inside-a-switch).
struct LessonTracing {
    bool asked = false; // trace them in a lesson that does not always trace (lesson pinning --trace)
    TracedRunOptions options; // the ops and buffer of each traced run (its marks are the placement's)
    // Each traced run as it ends, its events included (--trace-out writes one of them).
    std::function<void(const LessonStep&, const TracedRun&)> traced;
};

// Whether this lesson traces with these options: it has traceable steps on this topology and
// always traces, or was asked to.
bool lessonTraces(std::string_view id, const Topology& topology, const RunBudget& options, bool asked);

// Runs every step; a step that fails is recorded and the others still run. Cancelled
// lessons return an Error. Where the lesson traces but this process may not, each step runs
// untraced and a note quotes why.
Expected<LessonResult> runLesson(std::string_view id, const Topology& topology, const RunBudget& options,
    const std::function<void(const LessonProgress&)>& progress = {}, std::stop_token stop = {},
    const LessonTracing& tracing = {});

// The conclusion in one line, for a room to read (the app's verdict card in presentation mode):
// "Across CPUs sharing an L3: 8.40× slower than on one PU", and the 95% interval of the
// ratio it quotes. A headline never quotes a ratio it cannot stand behind: a disturbed or
// unclear comparison says so in words and carries no interval.
struct LessonHeadline {
    enum class Kind {
        Differs, // the ratio matters; [low, high] is its 95% interval
        Same, // within 10% either way; [low, high] is the interval that says so
        Unclear, // the runs vary too much to say
        Disturbed, // a run it compares was disturbed: no conclusion
    };
    std::string text;
    Kind kind = Kind::Unclear;
    double low = 0; // Differs and Same only
    double high = 0;
};

// The headline for results already measured, a pure function of them like concludeLesson. None
// for a lesson that draws no single comparison (its conclusion is read whole), or when the
// runs it compares are missing.
std::optional<LessonHeadline> lessonHeadline(std::string_view id, const std::vector<RunResult>& results);

// A condition's A/B (run --keep-awake, --pm-qos-us): the same placement measured as is (`asIs`)
// and with the condition (`with`), weighed as every lesson weighs two runs: the ratio of the
// medians (with / as is), its 95% interval and the verdict.
struct ConditionAb {
    std::string condition; // "keep-awake 0,1"
    double ratio = 1;
    double low = 1;
    double high = 1;
    std::string verdict; // "matters", "the same", "unclear"
    std::string sentence; // the comparison in words, with both medians
    // Traced on both sides: each step whose typical time moved, "idle exit: 7.0 µs -> gone (0 of
    // 9,812 hand-overs)", largest move first.
    std::vector<std::string> movedSteps;
};
ConditionAb compareCondition(const RunResult& asIs, const RunResult& with);

// The conclusion sentences for results already measured (also used when a lesson's results
// are loaded back from a file). A pure function of the results: it runs nothing and reads
// nothing of this machine, so every lesson's wording can be tested on synthetic results.
std::vector<std::string> concludeLesson(std::string_view id, const std::vector<RunResult>& results);

} // namespace ctxscope
