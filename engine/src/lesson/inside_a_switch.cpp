// SPDX-License-Identifier: MIT
// Lesson "inside-a-switch": where does a hand-over's time go? A futex round trip on one PU and
// across the farthest class this machine has, each run untraced and then traced, and the
// hand-over cut into its steps at the scheduler's events (TraceSummary's segments).
#include "lesson/handover_share.h"
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include "ctxscope/placement.h"

#include <cmath>

#include <fmt/core.h>
#include <fmt/ranges.h>

namespace ctxscope::lesson {

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    std::vector<LessonStep> steps { { fmt::format("futex threads on one PU (CPU {})", cpu),
        spec("futex", BenchMode::Thread, { cpu, cpu }, o), true } };
    if (const auto p = farthestPair(topology))
        steps.push_back(
            { fmt::format("futex threads, {} (CPUs {},{})", relationText(p->relation, p->kinds), p->a, p->b),
                spec("futex", BenchMode::Thread, { p->a, p->b }, o), true });
    return steps;
}

// "On CPUs 0,1 (cross-package), a traced hand-over took 16.0 µs ...; 38% of it was ...".
std::string stepsSentence(const RunResult& r, const HandoverShares& shares)
{
    const StepShare& top = shares.steps.front();
    std::string out = fmt::format(
        "On {}, a traced hand-over took {} from the waker's wake call to the wakee back in user space "
        "(each step's median weighed by its share of the {} hand-overs); {:.0f}% of it was {} ({}, {}): {}",
        placementText(r), formatDuration(shares.ns), formatCount(static_cast<double>(shares.handovers)),
        top.share * 100, top.name, waysText(top), formatDuration(top.ns), stepMeaning(top.name));
    if (shares.steps.size() > 1)
        out += fmt::format("; next came {}", stepText(shares.steps[1]));
    return out + ".";
}

// What crossing to another CPU added: the steps a hand-over on one PU never takes.
std::string crossingSentence(const HandoverShares& one, const HandoverShares& across)
{
    std::vector<std::string> extra;
    double extraNs = 0;
    for (const StepShare& s : across.steps)
        if (!one.find(s.name)) {
            extra.push_back(s.name);
            extraNs += s.ns;
        }
    std::string out = fmt::format("Across CPUs the hand-over took {:.1f} times as long as on one PU ({} against {})",
        across.ns / one.ns, formatDuration(across.ns), formatDuration(one.ns));
    if (!extra.empty())
        out += fmt::format("; the steps only a hand-over to another CPU takes ({}) took {} of it ({:.0f}%)",
            fmt::join(extra, ", "), formatDuration(extraNs), 100 * extraNs / across.ns);
    return out + ".";
}

// How much dearer the traced runs were than the untraced ones, per traced placement.
std::string tracingCostSentence(const std::vector<const RunResult*>& traced)
{
    std::vector<std::string> costs;
    std::vector<std::string> faster; // tracing adds work: faster traced says a run was disturbed
    for (const RunResult* r : traced) {
        if (!(r->trace->untracedNsPerOp > 0) || !(r->trace->nsPerOp > 0))
            continue;
        const double change = r->trace->nsPerOp / r->trace->untracedNsPerOp - 1;
        if (change >= 0)
            costs.push_back(fmt::format("{:.0f}% dearer on {}", 100 * change, placementText(*r)));
        else
            faster.push_back(fmt::format("on {} ({} traced against {} untraced)", placementText(*r),
                formatDuration(r->trace->nsPerOp), formatDuration(r->trace->untracedNsPerOp)));
    }
    std::string out;
    if (!costs.empty())
        out = fmt::format("Traced, the mean round trip was {} than untraced: the steps are the traced runs', the "
                          "totals the untraced runs'.",
            fmt::join(costs, " and "));
    if (!faster.empty())
        out += fmt::format("{}The traced round trip was faster than the untraced one {}: tracing adds work, so one "
                           "of the two runs was disturbed; this is not a cost of tracing.",
            out.empty() ? "" : " ", fmt::join(faster, " and "));
    return out;
}

// The lesson's two placements among the results: futex on one PU, and pinned across CPUs.
std::pair<const RunResult*, const RunResult*> placements(const std::vector<RunResult>& results)
{
    return { findResult(results, [](const RunResult& r) { return r.bench == "futex" && r.placement.onePu(); }),
        findResult(results, [](const RunResult& r) {
            return r.bench == "futex" && !r.placement.onePu() && r.placement.relation != Relation::Unpinned;
        }) };
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    const auto [one, across] = placements(results);
    if (!one && !across)
        return { "No experiment of this lesson could run here; see the failures." };
    std::vector<std::string> out;
    if (one && across) {
        const Comparison c = compare(*one, *across);
        const std::string costs
            = fmt::format("Untraced, a futex round trip (two hand-overs) cost {} on {} and {} on {}", withSpread(*one),
                placementText(*one), withSpread(*across), placementText(*across));
        out.push_back(c.disturbed.empty()
                ? fmt::format("{}: across CPUs it cost {} the one on one PU.", costs, formatComparison(c))
                : costs + ". " + noConclusion(c, "what crossing CPUs costs"));
    } else
        for (const RunResult* r : { one, across })
            if (r)
                out.push_back(fmt::format(
                    "Untraced, a futex round trip (two hand-overs) cost {} on {}.", withSpread(*r), placementText(*r)));
    std::vector<const RunResult*> traced;
    std::optional<HandoverShares> oneShares;
    std::optional<HandoverShares> acrossShares;
    for (const RunResult* r : { one, across }) {
        if (!r || !r->trace)
            continue;
        traced.push_back(r);
        auto shares = handoverShares(*r);
        if (!shares) {
            out.push_back(fmt::format("The trace on {} holds no hand-over between the two threads that it could cut "
                                      "into steps.",
                placementText(*r)));
            continue;
        }
        out.push_back(stepsSentence(*r, *shares));
        (r == one ? oneShares : acrossShares) = std::move(shares);
    }
    if (traced.empty())
        out.push_back("No placement was traced, so the steps inside a hand-over are not measured here, only the "
                      "totals above (ctxscope-cli lesson inside-a-switch traces them where it may: as root, or with "
                      "a tracefs your group may write).");
    if (oneShares && acrossShares)
        out.push_back(crossingSentence(*oneShares, *acrossShares));
    if (acrossShares && acrossShares->steps.front().name == "idle exit")
        out.push_back("The wakee's CPU leaving idle was the largest step: the lesson sleeping-cpu keeps that CPU "
                      "awake and measures what removing the idle exit changes.");
    if (std::string cost = tracingCostSentence(traced); !cost.empty())
        out.push_back(cost);
    for (const RunResult* r : traced)
        for (const std::string& note : r->trace->notes)
            out.push_back(fmt::format("The trace on {} says: {}", placementText(*r), note));
    std::vector<const RunResult*> all;
    for (const RunResult* r : { across, one })
        if (r)
            all.push_back(r);
    if (std::string note = vmNote(all); !note.empty())
        out.push_back(note);
    return out;
}

// "Across CPUs sharing an L3: 7.10× slower; switch-in is 62% of a hand-over": the untraced
// round trips compared, and the largest step of the traced cross-CPU hand-over where the line
// stays within kHeadlineBytes (else "…: 7.10× slower than on one PU").
std::optional<LessonHeadline> headline(const std::vector<RunResult>& results)
{
    const auto [one, across] = placements(results);
    if (!one || !across)
        return std::nullopt;
    const Comparison c = compare(*one, *across);
    const std::string where = capitalized(relationPhrase(across->placement.relation));
    std::string figure = fmt::format("{}: {}× slower than on one PU", where, formatRatio(c.ratio));
    if (across->trace)
        if (const auto shares = handoverShares(*across)) {
            std::string withStep = fmt::format("{}: {}× slower; {} is {:.0f}% of a hand-over", where,
                formatRatio(c.ratio), shares->steps.front().name, 100 * shares->steps.front().share);
            if (withStep.size() <= kHeadlineBytes)
                figure = std::move(withStep);
        }
    return headlineOf(c, std::move(figure), "Across CPUs costs no more than on one PU here: within 10%",
        "Across CPUs: the runs vary too much to say");
}

} // namespace

const LessonDefinition& insideASwitchLesson()
{
    static const LessonDefinition d { { "inside-a-switch", "Where does a hand-over's time go?",
                                          "futex threads on one PU and across the farthest class, each untraced "
                                          "and then traced (needs tracing; untraced without it)",
                                          false, true },
        plan, conclude, nullptr, headline };
    return d;
}

} // namespace ctxscope::lesson
