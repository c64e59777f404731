// SPDX-License-Identifier: MIT
// Lesson "run-queue": what does waiting for a CPU cost?
#include "lesson/lesson_util.h"

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
        if (first && last && first != last && first->perSwitchNs && last->perSwitchNs) {
            const double ratio = *last->perSwitchNs / *first->perSwitchNs;
            out.push_back(fmt::format("From {} to {} tasks the lap grew {:.1f} times and the cost per switch {}.",
                first->placement.tasks, last->placement.tasks, last->stats.p50 / first->stats.p50,
                ratio > 1.2 ? fmt::format(
                    "rose {:.1f} times: more tasks wait in the run queue and evict each other's cache", ratio)
                    : ratio < 0.83 ? fmt::format("fell to {:.2f} of it", ratio)
                                   : "stayed about the same: each switch costs the same, the lap is just longer"));
        }
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
