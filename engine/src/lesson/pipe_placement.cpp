// SPDX-License-Identifier: MIT
// Lesson "pipe-placement": why do pipe benchmark scores jump between machines and VMs?
#include "lesson/lesson_util.h"

#include "ctxscope/placement.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

constexpr int kUnpinnedRepeats = 3;

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    std::vector<LessonStep> steps { { "pipe processes on one PU", spec("pipe", BenchMode::Process, { cpu, cpu }, o) } };
    // The farthest pair the machine has: what a scheduler may pick when it spreads the tasks.
    const auto pairs = representativePairs(topology);
    if (!pairs.empty() && pairs.back().relation != Relation::SamePu)
        steps.push_back({ fmt::format("pipe processes, {} (CPUs {},{})", toString(pairs.back().relation),
                              pairs.back().a, pairs.back().b),
            spec("pipe", BenchMode::Process, { pairs.back().a, pairs.back().b }, o) });
    for (int i = 0; i < kUnpinnedRepeats; ++i)
        steps.push_back(
            { fmt::format("pipe processes, unpinned (run {})", i + 1), unpinnedSpec("pipe", BenchMode::Process, o) });
    return steps;
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<const RunResult*> pipes;
    for (const auto& r : results)
        if (r.bench == "pipe")
            pipes.push_back(&r);
    if (pipes.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    std::vector<std::string> out;
    std::string list;
    for (const RunResult* r : pipes)
        list += (list.empty() ? "" : "; ") + placementText(*r) + ": " + median(*r);
    out.push_back("Pipe round trips between two processes: " + list + ".");
    auto [lo, hi]
        = std::minmax_element(pipes.begin(), pipes.end(), [](auto* a, auto* b) { return a->stats.p50 < b->stats.p50; });
    out.push_back(
        fmt::format("The same benchmark scored from {} to {}, {:.1f} times apart, only because of where the "
                    "two processes ran. A score from UnixBench or lat_ctx says as much about the scheduler and "
                    "the topology it was shown as about the CPU.",
            median(**lo), median(**hi), (*hi)->stats.p50 / (*lo)->stats.p50));
    if (std::string note = vmNote(pipes); !note.empty())
        out.push_back(note);
    return out;
}

} // namespace

const LessonDefinition& pipePlacementLesson()
{
    static const LessonDefinition d { { "pipe-placement", "Why do pipe benchmark scores jump between machines and VMs?",
                                          "pipe process: same-pu, cross-core, unpinned (repeated)" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
