// SPDX-License-Identifier: MIT
// A condition's A/B: the same placement as is and with --keep-awake or --pm-qos-us, weighed with
// the lessons' one comparison (verdict.h), and, when both sides were traced, the steps that moved.
#include "lesson/handover_share.h"
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

namespace ctxscope {

namespace {

std::vector<std::string> movedSteps(const RunResult& a, const RunResult& b)
{
    if (!a.trace || !b.trace)
        return {};
    const auto sa = lesson::handoverShares(a);
    const auto sb = lesson::handoverShares(b);
    if (!sa || !sb)
        return {};
    struct Move {
        std::string text;
        double by = 0;
    };
    std::vector<Move> moves;
    for (const auto& step : sa->steps) {
        const lesson::StepShare* after = sb->find(step.name);
        const double now = after ? after->ns : 0;
        if (std::abs(now - step.ns) < 0.1 * std::max(step.ns, now))
            continue;
        moves.push_back({ after ? fmt::format("{}: {} -> {}", step.name, formatDuration(step.ns), formatDuration(now))
                                : fmt::format("{}: {} -> gone (0 of {} hand-overs)", step.name, formatDuration(step.ns),
                                    formatCount(static_cast<double>(sb->handovers))),
            std::abs(now - step.ns) });
    }
    for (const auto& step : sb->steps)
        if (!sa->find(step.name))
            moves.push_back(
                { fmt::format("{}: new, {} ({} of {} hand-overs)", step.name, formatDuration(step.ns),
                      formatCount(static_cast<double>(step.count)), formatCount(static_cast<double>(sb->handovers))),
                    step.ns });
    std::stable_sort(moves.begin(), moves.end(), [](const Move& x, const Move& y) { return x.by > y.by; });
    std::vector<std::string> out;
    for (auto& m : moves)
        out.push_back(std::move(m.text));
    return out;
}

} // namespace

ConditionAb compareCondition(const RunResult& asIs, const RunResult& with)
{
    const lesson::Comparison c = lesson::compare(asIs, with);
    ConditionAb out;
    out.condition = conditionText(with.spec);
    out.ratio = c.ratio;
    out.low = c.low;
    out.high = c.high;
    out.verdict = !c.disturbed.empty()          ? "unclear"
        : c.verdict == lesson::Verdict::Differs ? "matters"
        : c.verdict == lesson::Verdict::Same    ? "the same"
                                                : "unclear";
    // The medians in a sentence of their own: each carries its runs in parentheses already.
    const std::string medians
        = fmt::format("With it {}; as is {}.", lesson::withSpread(with), lesson::withSpread(asIs));
    if (!c.disturbed.empty())
        out.sentence = fmt::format(
            "With {}: {}. {}", out.condition, lesson::noConclusion(c, "what " + out.condition + " changes"), medians);
    else if (c.verdict == lesson::Verdict::Unclear)
        out.sentence = fmt::format("With {}, the {} op took {} as long: {} whether it changes it by 10% or more. {}",
            out.condition, asIs.bench, lesson::formatRange(c), lesson::unclearWhy(), medians);
    else
        out.sentence = fmt::format("With {}, the {} op took {} as long: it {}. {}", out.condition, asIs.bench,
            lesson::formatComparison(c),
            c.verdict == lesson::Verdict::Differs ? "matters" : "changes nothing by 10% or more", medians);
    out.movedSteps = movedSteps(asIs, with);
    return out;
}

} // namespace ctxscope
