// SPDX-License-Identifier: MIT
// Lesson "pinning": does placement matter?
#include "lesson/kinds.h"
#include "lesson/lesson_util.h"
#include "lesson/mixture.h"
#include "lesson/verdict.h"

#include "ctxscope/placement.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    std::vector<LessonStep> steps;
    const auto pairs = representativePairs(topology);
    for (const PuPair& p : pairs)
        steps.push_back({ fmt::format("futex threads, {} (CPUs {},{})", relationText(p.relation, p.kinds), p.a, p.b),
            spec("futex", BenchMode::Thread, { p.a, p.b }, o) });
    // With --trace, the farthest placement's hand-over is the one the VM sentence quotes.
    if (!pairs.empty() && pairs.back().relation != Relation::SamePu)
        steps.back().traceable = true;
    steps.push_back({ "futex threads, unpinned", unpinnedSpec("futex", BenchMode::Thread, o) });
    return steps;
}

// The verdict between the fastest and the slowest pinned placement, in words.
std::string placementVerdict(const RunResult& best, const RunResult& worst)
{
    const Comparison c = compare(best, worst);
    if (!c.disturbed.empty())
        return noConclusion(c, "whether placement matters");
    switch (c.verdict) {
    case Verdict::Differs:
        return fmt::format("Placement matters here: the slowest pinned placement, {}, cost {} the fastest, {}.",
            placementText(worst), formatComparison(c), placementText(best));
    case Verdict::Same:
        return fmt::format("The slowest pinned placement cost {} the fastest: within 10% either way, so placement "
                           "does not matter on this machine.",
            formatComparison(c));
    case Verdict::Unclear:
        break;
    }
    return fmt::format(
        "The runs vary too much to say whether placement matters by 10% or more here: the slowest pinned "
        "placement cost {} the fastest. Run the lesson again with more time.",
        formatRange(c));
}

// Where the unpinned threads ran and which pinned placement each repetition looked like.
// The mixture means something only where the pinned placements differ.
std::string unpinnedText(const RunResult& u, const std::vector<const RunResult*>& pinned, Verdict pinnedVerdict)
{
    std::string out = fmt::format("Left to the scheduler, the two threads ran on {} with {} migration{}: {}.",
        cpusSeenText(u), u.observed.migrations, u.observed.migrations == 1 ? "" : "s", withSpread(u));
    if (pinned.empty())
        return out;
    const Mixture m = mixtureOf(u.repetitionMedians, pinned);
    if (pinnedVerdict == Verdict::Same && m.unlike == 0)
        return out
            + " Its runs cost what the pinned placements cost, and those are within 10% of each other: here it "
              "does not matter where the scheduler puts the threads.";
    if (const std::string runs = describeMixture(m, pinned, "runs"); !runs.empty())
        out += " " + capitalized(runs) + ".";
    if (const std::string samples = describeSampleMixture(u, pinned); !samples.empty())
        out += " " + capitalized(samples) + ".";
    int kinds = 0;
    for (int n : m.values)
        kinds += n > 0 ? 1 : 0;
    if (pinnedVerdict == Verdict::Differs && kinds + (m.unlike > 0 ? 1 : 0) > 1)
        out += " Someone who does not pin gets any of these costs from one run to the next: the unpinned median is "
               "one draw from a mixture, not a property of the machine.";
    else if (kinds == 1 && m.unlike == 0 && pinned.size() > 1)
        out += " Here the scheduler kept to one placement in every run, which it need not do next time.";
    return out;
}

std::vector<const RunResult*> pinnedByMedian(const std::vector<RunResult>& results)
{
    std::vector<const RunResult*> pinned;
    for (const auto& r : results)
        if (r.bench == "futex" && r.placement.relation != Relation::Unpinned)
            pinned.push_back(&r);
    std::sort(pinned.begin(), pinned.end(), [](auto* a, auto* b) { return a->stats.p50 < b->stats.p50; });
    return pinned;
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    const std::vector<const RunResult*> pinned = pinnedByMedian(results);
    const RunResult* unpinned = findResult(
        results, [](const RunResult& r) { return r.bench == "futex" && r.placement.relation == Relation::Unpinned; });
    if (pinned.empty() && !unpinned)
        return { "No experiment of this lesson could run here; see the failures." };
    std::vector<std::string> out;
    if (!pinned.empty()) {
        std::string ranking;
        for (std::size_t i = 0; i < pinned.size(); ++i)
            ranking
                += fmt::format("{}{}. {}: {}", i ? "; " : "", i + 1, placementText(*pinned[i]), withSpread(*pinned[i]));
        out.push_back("Pinned futex round trips ranked by median: " + ranking + ".");
    }
    const Verdict verdict = pinned.size() > 1 ? compare(*pinned.front(), *pinned.back()).verdict : Verdict::Unclear;
    if (pinned.size() > 1)
        out.push_back(placementVerdict(*pinned.front(), *pinned.back()));
    else
        out.push_back("Fewer than two pinned placements could be measured, so placements cannot be compared here.");
    // A hybrid machine: the same hand-over on two kinds of core (nothing on a machine with one).
    if (const auto kinds = kindFinding(results))
        out.push_back(kindSentence(*kinds));
    std::vector<const RunResult*> all = pinned;
    if (unpinned)
        all.push_back(unpinned);
    if (std::string note = vmNote(all); !note.empty())
        out.push_back(note);
    if (unpinned)
        out.push_back(unpinnedText(*unpinned, pinned, verdict));
    return out;
}

// "Across CPUs sharing an L3: 8.40× slower than on one PU": the slowest pinned placement
// against the fastest, as placementVerdict judges them.
std::optional<LessonHeadline> headline(const std::vector<RunResult>& results)
{
    const std::vector<const RunResult*> pinned = pinnedByMedian(results);
    if (pinned.size() < 2)
        return std::nullopt;
    const RunResult& best = *pinned.front();
    const RunResult& worst = *pinned.back();
    const Comparison c = compare(best, worst);
    return headlineOf(c,
        fmt::format("{}: {}× slower than {}", capitalized(relationPhrase(worst.placement.relation)),
            formatRatio(c.ratio), relationPhrase(best.placement.relation)),
        "Placement does not matter here: within 10%", "Placement: the runs vary too much to say");
}

} // namespace

const LessonDefinition& pinningLesson()
{
    static const LessonDefinition d {
        { "pinning", "Does placement matter?",
            "futex threads: same-pu, each relation class the machine has (on a hybrid machine each "
            "class's kind pairs and one PU of each kind), unpinned" },
        plan, conclude, nullptr, headline
    };
    return d;
}

} // namespace ctxscope::lesson
