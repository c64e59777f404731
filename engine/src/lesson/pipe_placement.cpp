// SPDX-License-Identifier: MIT
// Lesson "pipe-placement": why do pipe benchmark scores jump between machines and VMs?
#include "lesson/handover_share.h"
#include "lesson/lesson_util.h"
#include "lesson/mixture.h"
#include "lesson/verdict.h"

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
        steps.push_back({ fmt::format("pipe processes, {} (CPUs {},{})",
                              relationText(pairs.back().relation, pairs.back().kinds), pairs.back().a, pairs.back().b),
            spec("pipe", BenchMode::Process, { pairs.back().a, pairs.back().b }, o) });
    for (int i = 0; i < kUnpinnedRepeats; ++i)
        steps.push_back(
            { fmt::format("pipe processes, unpinned (run {})", i + 1), unpinnedSpec("pipe", BenchMode::Process, o) });
    // With --trace, the first launch also says where the kernel put the woken process.
    steps[steps.size() - kUnpinnedRepeats].traceable = true;
    return steps;
}

// What the pinned placements say: how much where the processes run moves the score.
std::string pinnedVerdict(const std::vector<const RunResult*>& pinned)
{
    if (pinned.size() < 2)
        return "Fewer than two pinned placements could be measured, so how much placement moves the score cannot "
               "be said here.";
    const RunResult& lo = *pinned.front();
    const RunResult& hi = *pinned.back();
    const Comparison c = compare(lo, hi);
    if (!c.disturbed.empty())
        return noConclusion(c, "how much placement moves the score");
    switch (c.verdict) {
    case Verdict::Differs:
        return fmt::format("Pinned, the same benchmark cost {} as much on {} as on {}, only because of where the two "
                           "processes ran. A score from UnixBench or lat_ctx says as much about the scheduler and the "
                           "topology it was shown as about the CPU.",
            formatComparison(c), placementText(hi), placementText(lo));
    case Verdict::Same:
        return fmt::format("Pinned, the dearer placement cost {} the cheaper one: within 10% either way, so here a "
                           "pipe score says little about where the processes ran.",
            formatComparison(c));
    case Verdict::Unclear:
        break;
    }
    return fmt::format("The runs vary too much to say whether placement moves the score by 10% or more: pinned, {} "
                       "cost {} {}. Run the lesson again with more time.",
        placementText(hi), formatRange(c), placementText(lo));
}

// The unpinned launches: each one's median, and which pinned placement it looked like.
std::string unpinnedText(
    const std::vector<const RunResult*>& unpinned, const std::vector<const RunResult*>& pinned, bool pinnedDiffer)
{
    std::string list;
    std::vector<double> medians;
    for (const RunResult* r : unpinned) {
        list += fmt::format("{}{} on {}", list.empty() ? "" : "; ", withSpread(*r), cpusSeenText(*r));
        medians.push_back(r->stats.p50);
    }
    std::string out = fmt::format(
        "Left to the scheduler, {} launch{} scored {}.", unpinned.size(), unpinned.size() == 1 ? "" : "es", list);
    if (pinned.empty())
        return out;
    const Mixture m = mixtureOf(medians, pinned);
    out += " " + capitalized(describeMixture(m, pinned, "launches")) + ".";
    int kinds = m.unlike > 0 ? 1 : 0;
    for (int n : m.values)
        kinds += n > 0 ? 1 : 0;
    if (kinds > 1 && pinnedDiffer)
        out += " A benchmark that does not pin reports whichever of these the scheduler picked that time.";
    // Why, measured: where the kernel put the woken process in the traced launch.
    for (const RunResult* r : unpinned)
        if (std::string placed = placementSentence(*r); !placed.empty()) {
            placed.front() = 't'; // "The kernel put ..." inside the sentence
            return out + " In the traced launch, " + placed;
        }
    return out;
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<const RunResult*> pinned;
    std::vector<const RunResult*> unpinned;
    for (const auto& r : results)
        if (r.bench == "pipe")
            (r.placement.relation == Relation::Unpinned ? unpinned : pinned).push_back(&r);
    if (pinned.empty() && unpinned.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    std::sort(pinned.begin(), pinned.end(), [](auto* a, auto* b) { return a->stats.p50 < b->stats.p50; });
    std::vector<std::string> out;
    if (!pinned.empty()) {
        std::string list;
        for (const RunResult* r : pinned)
            list += (list.empty() ? "" : "; ") + placementText(*r) + ": " + withSpread(*r);
        out.push_back("Pipe round trips between two pinned processes: " + list + ".");
    }
    out.push_back(pinnedVerdict(pinned));
    if (!unpinned.empty())
        out.push_back(unpinnedText(unpinned, pinned,
            pinned.size() > 1 && compare(*pinned.front(), *pinned.back()).verdict == Verdict::Differs));
    std::vector<const RunResult*> all = pinned;
    all.insert(all.end(), unpinned.begin(), unpinned.end());
    if (std::string note = vmNote(all); !note.empty())
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
