// SPDX-License-Identifier: MIT
// Lesson "threads-vs-processes": are thread switches cheaper?
#include "lesson/lesson_util.h"

#include <cmath>
#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    std::vector<LessonStep> steps;
    for (const char* bench : { "futex", "pipe" })
        for (BenchMode mode : { BenchMode::Thread, BenchMode::Process })
            steps.push_back(
                { fmt::format("{} {}s on one PU", bench, toString(mode)), spec(bench, mode, { cpu, cpu }, o) });
    return steps;
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<std::string> out;
    for (const char* bench : { "futex", "pipe" }) {
        const RunResult* t = findResult(results, bench, BenchMode::Thread, Relation::SamePu);
        const RunResult* p = findResult(results, bench, BenchMode::Process, Relation::SamePu);
        if (!t || !p)
            continue;
        const double diff = p->stats.p50 - t->stats.p50;
        const double pct = 100.0 * diff / t->stats.p50;
        std::string verdict = withinNoise(*t, *p)
            ? "within the noise of repeated runs, so no difference can be claimed here"
            : std::abs(pct) < 3 ? "steady but negligible: the switch itself costs the same"
            : diff > 0          ? "processes are dearer: switching also changes the address space (page tables, TLB)"
                                : "threads are dearer here, against the usual expectation";
        out.push_back(fmt::format("{}: threads {} vs processes {} per round trip, a difference of {} ({:+.0f}%): {}.",
            bench, median(*t), median(*p), formatDuration(std::abs(diff)), pct, verdict));
    }
    if (out.empty())
        out.push_back("No thread/process pair of this lesson could run here; see the failures.");
    return out;
}

} // namespace

const LessonDefinition& threadsVsProcessesLesson()
{
    static const LessonDefinition d { { "threads-vs-processes", "Are thread switches cheaper?",
                                          "futex and pipe, thread vs process, same-pu" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
