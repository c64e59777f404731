// SPDX-License-Identifier: MIT
// Lesson "run-queue": what does waiting for a CPU cost?
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

constexpr int kSizes[] = { 2, 4, 8, 16 };

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    const auto allowed = topology.allowedPus();
    std::vector<LessonStep> steps;
    for (int n : kSizes) {
        BenchSpec one = spec("ring", BenchMode::Thread, { cpu }, o);
        one.tasks = n;
        steps.push_back({ fmt::format("ring of {} on one PU", n), one });
    }
    if (allowed.size() > 1) {
        for (int n : kSizes) {
            std::vector<int> spread;
            for (int i = 0; i < n; ++i)
                spread.push_back(allowed[static_cast<std::size_t>(i) % allowed.size()]);
            BenchSpec all = spec("ring", BenchMode::Thread, spread, o);
            all.tasks = n;
            steps.push_back({ fmt::format("ring of {} over CPUs {}", n, formatCpuList(allowed)), all });
        }
    }
    return steps;
}

// The cost per switch from the smallest ring to the largest, judged like every comparison
// (verdict.h): a lap holds N switches, so the lap ratio's interval scales by N_first / N_last.
// An unclear cost per switch is a sentence of its own, with its range and no point ratio.
std::vector<std::string> growthSentences(const RunResult& first, const RunResult& last)
{
    const Comparison lap = compare(first, last);
    const std::string costs = fmt::format("From {} to {} tasks the lap cost {} and then {}.", first.placement.tasks,
        last.placement.tasks, median(first), median(last));
    if (!lap.disturbed.empty())
        return { costs, noConclusion(lap, "how the cost per switch changed") };
    if (lap.ratio <= 0)
        return { costs };
    const double scale = *last.perSwitchNs / *first.perSwitchNs / lap.ratio;
    Comparison perSwitch = lap;
    perSwitch.ratio *= scale;
    perSwitch.low *= scale;
    perSwitch.high *= scale;
    // A point interval (no spread to resample) stays unclear, as compare() has it.
    if (lap.low != lap.high)
        perSwitch.verdict = verdictOf(perSwitch.low, perSwitch.high);
    std::string how;
    switch (perSwitch.verdict) {
    case Verdict::Differs:
        how = perSwitch.ratio > 1 ? fmt::format(
                  "rose {}: more tasks wait in the run queue and evict each other's cache", formatComparison(perSwitch))
                                  : fmt::format("fell to {} of it", formatComparison(perSwitch));
        break;
    case Verdict::Same:
        how = fmt::format(
            "stayed within 10% ({}): each switch costs the same, the lap is just longer", formatComparison(perSwitch));
        break;
    case Verdict::Unclear:
        return { fmt::format("From {} to {} tasks the lap took {} as long.", first.placement.tasks,
                     last.placement.tasks, formatComparison(lap)),
            fmt::format("The cost per switch came to {} its first value: {} whether it changed by 10% or more.",
                formatRange(perSwitch), unclearWhy()) };
    }
    return { fmt::format("From {} to {} tasks the lap took {} as long and the cost per switch {}.",
        first.placement.tasks, last.placement.tasks, formatComparison(lap), how) };
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<std::string> out;
    for (bool onePu : { true, false }) {
        std::string row;
        const RunResult* first = nullptr;
        const RunResult* last = nullptr;
        for (const auto& r : results) {
            if (r.bench != "ring" || r.placement.onePu() != onePu)
                continue;
            row += fmt::format("{}N={}: lap {}, {} per switch", row.empty() ? "" : "; ", r.placement.tasks, median(r),
                formatDuration(r.perSwitchNs.value_or(0)));
            first = first ? first : &r;
            last = &r;
        }
        if (row.empty())
            continue;
        out.push_back(
            std::string(onePu ? "All tasks on one PU" : "Tasks spread over the allowed PUs") + ": " + row + ".");
        if (first && last && first != last && first->perSwitchNs && last->perSwitchNs)
            for (std::string& s : growthSentences(*first, *last))
                out.push_back(std::move(s));
    }
    if (out.empty())
        out.push_back("No ring of this lesson could run here; see the failures.");
    return out;
}

} // namespace

const LessonDefinition& runQueueLesson()
{
    static const LessonDefinition d { { "run-queue", "What does waiting for a CPU cost?",
                                          "ring with N = 2, 4, 8, 16 tasks on one PU, and on all allowed PUs" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
