// SPDX-License-Identifier: MIT
// Shared pieces of the lesson definitions: building specs and phrasing measured numbers.
#pragma once

#include "ctxscope/lesson.h"
#include "ctxscope/units.h"

#include <functional>
#include <optional>
#include <stop_token>

namespace ctxscope::lesson {

BenchSpec spec(std::string bench, BenchMode mode, std::vector<int> cpus, const RunBudget& options);
BenchSpec unpinnedSpec(std::string bench, BenchMode mode, const RunBudget& options);

// The first allowed CPU: where single-PU experiments run.
int firstCpu(const Topology& topology);
// The pair of the farthest relation class this machine has across two PUs; none with one PU.
std::optional<PuPair> farthestPair(const Topology& topology);

const RunResult* findResult(const std::vector<RunResult>& results, const std::function<bool(const RunResult&)>& match);
const RunResult* findResult(
    const std::vector<RunResult>& results, std::string_view bench, BenchMode mode, Relation relation);

// "CPUs 0,1 (shared-l3)", or "unpinned (ran on CPUs 0-1)" ("on CPU 0" when it stayed on one).
std::string placementText(const RunResult& r);
// "CPU 3" or "CPUs 0-1": the CPUs an unpinned run was seen on.
std::string cpusSeenText(const RunResult& r);
// "2.43 µs" for the median per op.
std::string median(const RunResult& r);
// The sentence with its first letter in upper case ("2 of 3 runs" stays as it is).
std::string capitalized(std::string sentence);
// "1.98" switches per op observed, "~0" below 0.005.
std::string observedSwitches(const RunResult& r);
// A sentence about cross-vCPU wake-ups when the results came from a VM, else "". With a traced
// result across CPUs among them, the sentence quotes the trace's segments instead of asserting.
std::string vmNote(const std::vector<const RunResult*>& results);
// That sentence, for a lesson that knows it runs in a VM.
std::string vmNote();

// The cache-pollution lesson's working sets: 0, each cache level and 4x the last level, each
// at most kWorkingSetCap (cache_check.h), line-aligned, ascending, once; with a label each.
std::vector<std::pair<std::uint64_t, std::string>> cachePollutionSizes(const Topology& topology);

struct LessonDefinition {
    LessonInfo info;
    std::vector<LessonStep> (*plan)(const Topology&, const RunBudget&);
    std::vector<std::string> (*conclude)(const std::vector<RunResult>&);
    // A lesson that is no list of runs (info.wholeInWorker) runs itself whole; none for the others.
    Expected<LessonResult> (*runWhole)(
        const Topology&, const RunBudget&, const std::function<void(const LessonProgress&)>&, std::stop_token)
        = nullptr;
    // The conclusion's headline (lessonHeadline); none for a lesson read whole.
    std::optional<LessonHeadline> (*headline)(const std::vector<RunResult>&) = nullptr;
};

// One per file in engine/src/lesson/.
const LessonDefinition& modeSwitchLesson();
const LessonDefinition& pinningLesson();
const LessonDefinition& threadsVsProcessesLesson();
const LessonDefinition& pipePlacementLesson();
const LessonDefinition& runQueueLesson();
const LessonDefinition& cachePollutionLesson();
const LessonDefinition& coroutinesLesson();
const LessonDefinition& spinOrSleepLesson();
const LessonDefinition& livePlacementLesson();
const LessonDefinition& insideASwitchLesson();
const LessonDefinition& sleepingCpuLesson();

} // namespace ctxscope::lesson
