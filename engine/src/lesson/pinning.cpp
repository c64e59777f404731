// SPDX-License-Identifier: MIT
// Lesson "pinning": does placement matter?
#include "lesson/lesson_util.h"

#include "ctxscope/placement.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    std::vector<LessonStep> steps;
    for (const PuPair& p : representativePairs(topology))
        steps.push_back({ fmt::format("futex threads, {} (CPUs {},{})", toString(p.relation), p.a, p.b),
            spec("futex", BenchMode::Thread, { p.a, p.b }, o) });
    steps.push_back({ "futex threads, unpinned", unpinnedSpec("futex", BenchMode::Thread, o) });
    return steps;
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<const RunResult*> ranked;
    for (const auto& r : results)
        if (r.bench == "futex")
            ranked.push_back(&r);
    if (ranked.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    std::sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return a->stats.p50 < b->stats.p50; });
    std::vector<std::string> out;
    std::string ranking;
    for (std::size_t i = 0; i < ranked.size(); ++i)
        ranking += fmt::format("{}{}. {}: {}", i ? "; " : "", i + 1, placementText(*ranked[i]), median(*ranked[i]));
    out.push_back("Futex round trips ranked by median: " + ranking + ".");
    const RunResult& best = *ranked.front();
    const RunResult& worst = *ranked.back();
    if (ranked.size() > 1 && !withinNoise(best, worst))
        out.push_back(
            fmt::format("Placement matters here: the slowest placement, {}, cost {:.1f} times the fastest, {}.",
                placementText(worst), worst.stats.p50 / best.stats.p50, placementText(best)));
    else if (ranked.size() > 1)
        out.push_back("Every placement measured the same within the noise: placement does not matter on this machine.");
    if (std::string note = vmNote(ranked); !note.empty())
        out.push_back(note);
    if (const RunResult* u
        = findResult(results, [](const RunResult& r) { return r.placement.relation == Relation::Unpinned; }))
        out.push_back(fmt::format("Left to the scheduler, the two threads ran on {} with {} migration{}.",
            cpusSeenText(*u), u->observed.migrations, u->observed.migrations == 1 ? "" : "s"));
    return out;
}

} // namespace

const LessonDefinition& pinningLesson()
{
    static const LessonDefinition d { { "pinning", "Does placement matter?",
                                          "futex threads: same-pu, each relation class the machine has, unpinned" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
