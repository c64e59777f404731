// SPDX-License-Identifier: MIT
// Lesson "threads-vs-processes": are thread switches cheaper?
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

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
        const Comparison c = compare(*t, *p);
        if (!c.disturbed.empty()) {
            out.push_back(fmt::format("{}: threads {} vs processes {} per round trip. {}", bench, withSpread(*t),
                withSpread(*p), noConclusion(c, "whether processes cost more")));
            continue;
        }
        std::string verdict;
        switch (c.verdict) {
        case Verdict::Same:
            verdict = "within 10% either way, so the switch itself costs about the same";
            break;
        case Verdict::Differs:
            verdict = c.ratio > 1 ? "processes are dearer: switching also changes the address space (page tables, TLB)"
                                  : "threads are dearer here, against the usual expectation";
            break;
        case Verdict::Unclear:
            verdict = unclearWhy() + " whether the difference reaches 10%, so no difference can be claimed here";
            break;
        }
        out.push_back(fmt::format("{}: threads {} vs processes {} per round trip; processes cost {} the threads: {}.",
            bench, withSpread(*t), withSpread(*p), c.verdict == Verdict::Unclear ? formatRange(c) : formatComparison(c),
            verdict));
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
