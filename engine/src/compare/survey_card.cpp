// SPDX-License-Identifier: MIT
#include "compare/survey_card.h"

#include "ctxscope/units.h"
#include "report/json_fields.h"
#include "report/trace_json.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace ctxscope::compare {

using nlohmann::json;
using report::FieldReader;

Status readSurveyBlock(const json& survey, MachineCard& card)
{
    FieldReader in(survey, "survey");
    card.surveyVersion = static_cast<int>(std::min<std::uint64_t>(in.optCount("suite_version").value_or(1), 1000));
    if (card.surveyVersion >= 2) {
        if (const json* w = in.optObject("working_set")) {
            FieldReader ws(*w, in.where("working_set"));
            card.kneeBytes = ws.optCount("knee_bytes");
            if (const json* points = ws.optArray("points"))
                for (const json& p : *points)
                    if (p.is_object() && p.contains("ws_bytes") && p["ws_bytes"].is_number_unsigned()) {
                        card.hasKnee = true;
                        card.largestWsBytes = std::max(card.largestWsBytes, p["ws_bytes"].get<std::uint64_t>());
                    }
            in.absorb(ws);
        }
        if (const json* traced = in.optArray("traced"))
            for (const json& t : *traced) {
                FieldReader one(t, in.where("traced"));
                SurveyTrace trace;
                const std::string relation = one.string("relation");
                trace.cpus = report::cpuNumbers(one, "cpus");
                if (one.optArray("keep_awake_cpus"))
                    trace.keepAwakeCpus = report::cpuNumbers(one, "keep_awake_cpus");
                FieldReader summary = one.child("trace");
                trace.summary = report::traceSummaryFromJson(summary);
                one.absorb(summary);
                if (one.ok()) {
                    if (auto r = relationFromString(relation))
                        trace.relation = *r;
                    else
                        one.fail("field '" + one.where("relation") + "' is not a relation class: '" + relation + "'");
                }
                in.absorb(one);
                card.traces.push_back(std::move(trace));
            }
    }
    if (!in.ok())
        return makeError(in.error());
    return {};
}

namespace {

// What a card that cannot have a figure shows in its place.
std::string missing(const MachineCard& card)
{
    if (card.surveyVersion == 0)
        return "not a survey";
    if (card.surveyVersion == 1)
        return "not in suite version 1";
    return "absent";
}

MachineFigure kneeFigure(const std::vector<MachineCard>& cards)
{
    MachineFigure f { "working-set knee (futex, one PU)", std::nullopt, {}, {}, {} };
    for (const MachineCard& c : cards)
        f.values.push_back(c.surveyVersion < 2 ? missing(c)
                : !c.hasKnee                   ? std::string("not measured")
                : c.kneeBytes                  ? formatBytes(*c.kneeBytes)
                                               : "none up to " + formatBytes(c.largestWsBytes));
    return f;
}

std::vector<MachineFigure> lineFigures(const std::vector<MachineCard>& cards)
{
    // Per class, per card: the first spin run's line.
    std::map<Relation, std::vector<const RunResult*>> spins;
    bool anyLine = false;
    for (std::size_t m = 0; m < cards.size(); ++m)
        for (const RunResult& r : cards[m].results)
            if (r.bench == "spin" && r.spec.wsBytes == 0) {
                auto& row = spins[r.placement.relation];
                row.resize(cards.size(), nullptr);
                if (!row[m])
                    row[m] = &r;
                anyLine = anyLine || r.line.has_value();
            }
    std::vector<MachineFigure> out;
    if (!anyLine)
        return out;
    for (const auto& [relation, runs] : spins) {
        MachineFigure f { "spin line", relation, {}, {}, {} };
        for (std::size_t m = 0; m < cards.size(); ++m)
            f.values.push_back(!runs[m]           ? std::string("absent")
                    : runs[m]->line               ? sharedLineText(*runs[m]->line, false)
                    : cards[m].surveyVersion == 1 ? "not reported (suite version 1: the runner touched it first)"
                                                  : "not reported");
        out.push_back(std::move(f));
    }
    return out;
}

// A segment's name with its two events: several steps share a name ("switch-in" from idle, from
// another task, ...), and only the events tell them apart.
std::string segmentKey(const TraceSegment& s) { return s.name + " (" + s.fromEvent + " -> " + s.toEvent + ")"; }

// The segment of a key that most hand-overs took: the wakee's and the waker's sides can share a
// name and events ("in user space (sys_exit -> sys_enter)"), and the last one listed, the
// waker's of a few hand-overs, stood for the key (24.2 µs against the wakee's 844 ns).
const TraceSegment* segmentOf(const TraceSummary& t, const std::string& key)
{
    const TraceSegment* out = nullptr;
    for (const TraceSegment& s : t.segments)
        if (segmentKey(s) == key && (!out || s.count > out->count))
            out = &s;
    return out;
}

// A segment's verdict against the baseline's (MachineFigure::verdicts): each side's segment
// (null where the trace did not take it) and its trace's hand-overs.
struct SegmentSide {
    const TraceSegment* segment = nullptr;
    std::uint64_t handovers = 0;
    std::string label;
};

constexpr double kSegmentMatters = 1.10; // the bars' threshold
constexpr double kStepTakenMatters = 0.10; // a step one side takes this often and the other never

std::pair<std::string, std::string> segmentVerdict(const SegmentSide& base, const SegmentSide& other)
{
    const auto shareOf = [](const SegmentSide& s) {
        return s.segment && s.handovers > 0 ? static_cast<double>(s.segment->count) / static_cast<double>(s.handovers)
                                            : 0.0;
    };
    const std::string matters(toString(MachineVerdict::Matters));
    const std::string unclear(toString(MachineVerdict::Unclear));
    if (!base.segment || !other.segment) {
        const SegmentSide& taken = base.segment ? base : other;
        const SegmentSide& missed = base.segment ? other : base;
        const double share = shareOf(taken);
        if (share >= kStepTakenMatters)
            return { matters,
                fmt::format("Matters: {:.0f}% of the hand-overs on {} took this step, none on {}.", 100 * share,
                    taken.label, missed.label) };
        return { unclear,
            fmt::format("Unclear: only {:.1f}% of the hand-overs on {} took this step (none on {}): too few to say "
                        "it changed.",
                100 * share, taken.label, missed.label) };
    }
    // A way a handful of hand-overs took has a median of a handful: nothing to judge by.
    for (const SegmentSide* side : { &base, &other })
        if (shareOf(*side) < kRareSegmentShare)
            return { unclear,
                fmt::format("Unclear: only {} of the {} hand-overs on {} took this step: too few for its median to "
                            "say.",
                    formatCount(static_cast<double>(side->segment->count)),
                    formatCount(static_cast<double>(side->handovers)), side->label) };
    const SegmentSide& low = base.segment->p50Ns <= other.segment->p50Ns ? base : other;
    const SegmentSide& high = &low == &base ? other : base;
    const double lowMedian = low.segment->p50Ns;
    const double highMedian = high.segment->p50Ns;
    if (lowMedian > 0 && highMedian > lowMedian * kSegmentMatters && highMedian > low.segment->p90Ns)
        return { matters,
            fmt::format("Matters: the median on {}, {}, lies beyond {}'s p90, {} ({:.2f} times its median).",
                high.label, formatDuration(highMedian), low.label, formatDuration(low.segment->p90Ns),
                highMedian / lowMedian) };
    return { unclear,
        fmt::format("Unclear: one traced run a side, so a step's median has no interval; here the median on {}, {}, "
                    "is within {}'s p90, {}.",
            high.label, formatDuration(highMedian), low.label, formatDuration(low.segment->p90Ns)) };
}

std::vector<MachineFigure> segmentFigures(const std::vector<MachineCard>& cards, std::size_t baseline)
{
    // Per class (as is, then kept awake), the segments in the order first seen; per card, its
    // trace of that class and condition.
    using Group = std::pair<Relation, bool>; // the class, and whether its CPUs were kept awake
    std::map<Group, std::vector<std::string>> keys;
    for (const MachineCard& c : cards)
        for (const SurveyTrace& t : c.traces)
            for (const TraceSegment& s : t.summary.segments) {
                auto& list = keys[{ t.relation, !t.keepAwakeCpus.empty() }];
                if (std::find(list.begin(), list.end(), segmentKey(s)) == list.end())
                    list.push_back(segmentKey(s));
            }
    std::vector<MachineFigure> out;
    for (const auto& [group, list] : keys)
        for (const std::string& key : list) {
            const auto& [relation, kept] = group;
            MachineFigure f { (kept ? "kept awake, segment " : "segment ") + key, relation, {}, {}, {} };
            std::vector<std::optional<SegmentSide>> sides; // none where the card did not trace the class
            for (const MachineCard& c : cards) {
                const auto t = std::find_if(c.traces.begin(), c.traces.end(),
                    [&](const SurveyTrace& x) { return x.relation == relation && x.keepAwakeCpus.empty() != kept; });
                const TraceSegment* seg = t != c.traces.end() ? segmentOf(t->summary, key) : nullptr;
                f.values.push_back(seg        ? segmentMedianText(*seg, t->summary.handovers)
                        : t != c.traces.end() ? std::string("not taken")
                        : c.surveyVersion < 2 ? missing(c)
                                              : "not traced");
                sides.push_back(t != c.traces.end() ? std::optional(SegmentSide { seg, t->summary.handovers, c.label })
                                                    : std::nullopt);
            }
            for (std::size_t m = 0; m < cards.size(); ++m) {
                auto [verdict, why]
                    = m != baseline && sides[m] && sides[baseline] && (sides[m]->segment || sides[baseline]->segment)
                    ? segmentVerdict(*sides[baseline], *sides[m])
                    : std::pair<std::string, std::string> {};
                f.verdicts.push_back(std::move(verdict));
                f.whys.push_back(std::move(why));
            }
            out.push_back(std::move(f));
        }
    return out;
}

} // namespace

std::vector<std::string> segmentCauses(
    const std::vector<MachineCard>& cards, std::size_t baseline, const std::vector<MachineRow>& rows)
{
    // The trace of the class as is (a row with a condition is left out below).
    const auto traceOf = [](const MachineCard& c, Relation relation) -> const TraceSummary* {
        const auto t = std::find_if(c.traces.begin(), c.traces.end(),
            [&](const SurveyTrace& x) { return x.relation == relation && x.keepAwakeCpus.empty(); });
        return t == c.traces.end() ? nullptr : &t->summary;
    };
    // A step's median, 0 where the trace did not take it (an idle exit gone, say).
    const auto medianOf = [](const TraceSummary& t, const std::string& key) {
        const TraceSegment* s = segmentOf(t, key);
        return s ? s->p50Ns : 0.0;
    };
    const auto stateOf
        = [](const TraceSummary& t) { return t.idleStates.empty() ? std::string("idle") : t.idleStates.front().name; };
    std::vector<std::string> out;
    for (const MachineRow& row : rows) {
        if (row.bench != "futex" || row.mode != BenchMode::Thread || row.wsBytes != 0 || !row.condition.empty())
            continue;
        const TraceSummary* base = traceOf(cards[baseline], row.relation);
        if (!base)
            continue;
        for (std::size_t m = 0; m < cards.size(); ++m) {
            const MachineCell& cell = row.cells[m];
            const TraceSummary* other = traceOf(cards[m], row.relation);
            if (m == baseline || !other || !cell.ratio || cell.verdict != MachineVerdict::Matters)
                continue;
            // Every step either trace took, the one whose median moved most.
            std::string moved;
            double most = 0;
            for (const TraceSummary* t : { base, other })
                for (const TraceSegment& s : t->segments) {
                    const std::string key = segmentKey(s);
                    const double by = std::abs(medianOf(*other, key) - medianOf(*base, key));
                    if (by > most) {
                        most = by;
                        moved = key;
                    }
                }
            if (moved.empty())
                continue;
            const double a = medianOf(*base, moved);
            const double b = medianOf(*other, moved);
            const auto text = [](double ns) { return ns > 0 ? formatDuration(ns) : std::string("not taken"); };
            std::string sentence
                = fmt::format("futex thread, {}: {:.2f} times as long on {} as on {}; of the traced hand-over's "
                              "steps, {} moved most: {} on {}, {} on {}",
                    relationText(row.relation, row.kinds), *cell.ratio, cards[m].label, cards[baseline].label, moved,
                    text(a), cards[baseline].label, text(b), cards[m].label);
            if (moved.starts_with("idle exit "))
                sentence += fmt::format(": an idle-exit difference (the wakee's CPU left {} on {}, {} on {})",
                    a > 0 ? stateOf(*base) : "no idle state", cards[baseline].label,
                    b > 0 ? stateOf(*other) : "no idle state", cards[m].label);
            out.push_back(sentence + ".");
        }
    }
    return out;
}

std::vector<MachineFigure> surveyFigures(const std::vector<MachineCard>& cards, std::size_t baseline)
{
    std::vector<MachineFigure> out;
    if (std::none_of(cards.begin(), cards.end(), [](const MachineCard& c) { return c.surveyVersion >= 2; }))
        return out;
    if (std::any_of(cards.begin(), cards.end(), [](const MachineCard& c) { return c.hasKnee; }))
        out.push_back(kneeFigure(cards));
    for (MachineFigure& f : lineFigures(cards))
        out.push_back(std::move(f));
    for (MachineFigure& f : segmentFigures(cards, baseline))
        out.push_back(std::move(f));
    // The other figures have no verdict: one empty per machine.
    for (MachineFigure& f : out) {
        f.verdicts.resize(cards.size());
        f.whys.resize(cards.size());
    }
    return out;
}

} // namespace ctxscope::compare
