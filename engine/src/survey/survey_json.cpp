// SPDX-License-Identifier: MIT
// The card's "survey" block, and the summary's lines about the line, the segments and the knee.
#include "ctxscope/lesson.h"
#include "ctxscope/survey.h"
#include "ctxscope/traced_run.h"
#include "ctxscope/units.h"
#include "ctxscope/value_json.h"

#include <nlohmann/json.hpp>

#include <fmt/core.h>

#include <map>
#include <string>

namespace ctxscope {

namespace {

std::string cpusText(const std::vector<int>& cpus)
{
    std::string s;
    for (int cpu : cpus)
        s += fmt::format("{}{}", s.empty() ? "" : ",", cpu);
    return s;
}

} // namespace

nlohmann::json surveyToJson(const SurveyResult& survey)
{
    using json = nlohmann::json;
    json pairs = json::array();
    for (const PuPair& p : survey.plan.pairs) {
        pairs.push_back({ { "relation", std::string(toString(p.relation)) }, { "cpus", { p.a, p.b } } });
        if (!p.kinds.empty())
            pairs.back()["kinds"] = p.kinds;
    }
    json skipped = json::array();
    for (const SurveySkip& s : survey.skipped)
        skipped.push_back({ { "what", s.what }, { "why", s.why } });
    json points = json::array();
    for (std::size_t i = 0; i < survey.knee.points.size(); ++i) {
        json p = workingSetPointSummaryToJson(survey.knee.points[i]);
        p["clear"] = static_cast<bool>(survey.knee.clear[i]);
        points.push_back(std::move(p));
    }
    const json workingSet { { "sizes", survey.plan.wsSizes }, { "last_level_cache", survey.plan.lastLevelCache },
        { "note", survey.plan.wsNote }, { "points", std::move(points) },
        { "knee_bytes", survey.knee.kneeBytes ? json(*survey.knee.kneeBytes) : json(nullptr) },
        { "knee", survey.knee.sentence } };
    json traced = json::array();
    for (const SurveyTrace& t : survey.traces) {
        json one { { "relation", std::string(toString(t.relation)) }, { "cpus", t.cpus },
            { "trace", traceSummaryToJson(t.summary) } };
        if (!t.keepAwakeCpus.empty())
            one["keep_awake_cpus"] = t.keepAwakeCpus;
        traced.push_back(std::move(one));
    }
    return { { "suite_version", kSurveyVersion }, { "budget_seconds", survey.plan.budgetSeconds },
        { "estimate_seconds", survey.plan.estimateSeconds }, { "seconds", survey.seconds },
        { "min_time_seconds", survey.plan.minTimeSeconds }, { "repetitions", survey.plan.repetitions },
        { "pairs", std::move(pairs) }, { "skipped", std::move(skipped) }, { "cancelled", survey.cancelled },
        { "working_set", workingSet }, { "traced", std::move(traced) } };
}

std::string segmentMedianText(const TraceSegment& segment, std::uint64_t handovers)
{
    std::string out = formatDuration(segment.p50Ns);
    if (handovers > 0 && static_cast<double>(segment.count) < kRareSegmentShare * static_cast<double>(handovers))
        out += fmt::format(" ({} of {} hand-overs)", formatCount(static_cast<double>(segment.count)),
            formatCount(static_cast<double>(handovers)));
    return out;
}

std::string segmentsText(const TraceSummary& summary)
{
    // Several steps share a name ("switch-in" from idle, from another task...): those say their
    // two events, as compare's survey figures do.
    std::map<std::string, int> named;
    for (const TraceSegment& seg : summary.segments)
        ++named[seg.name];
    std::string s;
    for (const TraceSegment& seg : summary.segments)
        s += fmt::format("{}{}{} {}", s.empty() ? "" : "; ", seg.name,
            named[seg.name] > 1 ? " (" + seg.fromEvent + " -> " + seg.toEvent + ")" : std::string(),
            segmentMedianText(seg, summary.handovers));
    return s.empty() ? std::string("no hand-over found in the trace") : s;
}

std::vector<std::string> surveyFigureLines(const SurveyResult& survey)
{
    std::vector<std::string> out;
    // The farthest class kept awake, against the same pair as is (step 4's A/B).
    for (const RunResult& with : survey.results)
        if (with.spec.conditioned())
            for (const RunResult& asIs : survey.results)
                if (!asIs.spec.conditioned() && asIs.bench == with.bench && asIs.mode == with.mode
                    && asIs.spec.wsBytes == with.spec.wsBytes && asIs.spec.cpus == with.spec.cpus) {
                    out.push_back(fmt::format("{} {}, {} (CPUs {}): {}", with.bench, toString(with.mode),
                        toString(with.placement.relation), cpusText(with.placement.cpus),
                        compareCondition(asIs, with).sentence));
                    break;
                }
    for (const RunResult& r : survey.results)
        if (r.line)
            out.push_back(fmt::format("spin, {} (CPUs {}): {}.", toString(r.placement.relation),
                cpusText(r.placement.cpus), sharedLineText(*r.line)));
    for (const SurveyTrace& t : survey.traces)
        out.push_back(fmt::format("hand-over segments, {} (CPUs {}){}, medians over {} hand-overs: {}.",
            toString(t.relation), cpusText(t.cpus),
            t.keepAwakeCpus.empty() ? std::string() : ", kept awake (CPUs " + cpusText(t.keepAwakeCpus) + ")",
            t.summary.handovers, segmentsText(t.summary)));
    if (!survey.plan.wsSizes.empty())
        out.push_back("working-set knee: " + survey.knee.sentence);
    return out;
}

} // namespace ctxscope
