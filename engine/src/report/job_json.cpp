// SPDX-License-Identifier: MIT
// JSON for what a sweep or a lesson yields as a whole (its runs use resultToJson).
#include "ctxscope/results_file.h"

namespace ctxscope {

using nlohmann::json;

json workingSetPointSummaryToJson(const WorkingSetPoint& p)
{
    auto orNull = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    return { { "ws_bytes", p.wsBytes }, { "tasks", p.tasks }, { "switches_per_op", p.switchesPerOp },
        { "touch_ns", p.touch.p50 }, { "switch_ns", orNull(p.switchCostNs) },
        { "switch_ns_low", orNull(p.switchCostLowNs) }, { "switch_ns_high", orNull(p.switchCostHighNs) },
        { "cost_not_positive", p.costNotPositive },
        { "round_trip_quartiles", { p.roundTrip.p25, p.roundTrip.p50, p.roundTrip.p75 } },
        { "touch_quartiles", { p.touch.p25, p.touch.p50, p.touch.p75 } }, { "warnings", p.warnings } };
}

json sweepCachesToJson(const SweepResult& sweep)
{
    json caches = json::array();
    for (const CacheInfo& c : sweep.caches)
        caches.push_back({ { "level", c.level }, { "size", c.size }, { "line_size", c.lineSize }, { "pus", c.pus } });
    return caches;
}

json sweepToJson(const SweepResult& s, bool withPoints)
{
    const BenchSpec& base = s.spec.base;
    json j { { "bench", base.bench }, { "mode", std::string(toString(base.mode)) }, { "cpus", s.placement.cpus },
        { "relation", std::string(toString(s.placement.relation)) }, { "tasks", s.placement.tasks },
        { "points_per_octave", s.spec.pointsPerOctave }, { "requested_to", s.plan.requestedTo },
        { "last_level_cache", s.plan.lastLevelCache }, { "capped", s.plan.capped },
        { "stopped_for_time", s.plan.stoppedForTime }, { "caches", sweepCachesToJson(s) }, { "warnings", s.warnings } };
    if (withPoints) {
        json points = json::array();
        for (const WorkingSetPoint& p : s.points)
            points.push_back(workingSetPointSummaryToJson(p));
        j["points"] = std::move(points);
    }
    return j;
}

json lessonToJson(const LessonResult& l)
{
    json steps = json::array();
    for (const LessonStep& step : l.steps)
        steps.push_back(step.label);
    json j { { "id", l.id }, { "question", l.question }, { "steps", std::move(steps) }, { "failures", l.failures },
        { "conclusion", l.conclusion } };
    if (!l.notes.empty())
        j["notes"] = l.notes;
    if (!l.phases.empty()) {
        json phases = json::array();
        for (const LessonPhase& p : l.phases)
            phases.push_back(lessonPhaseToJson(p));
        j["phases"] = std::move(phases);
    }
    return j;
}

json lessonPhaseToJson(const LessonPhase& p)
{
    json j { { "label", p.label }, { "cpus", p.cpus }, { "seconds", p.seconds }, { "unit", p.unit },
        { "work_per_s", p.workPerS }, { "switches_per_s", p.switchesPerS },
        { "runqueue_wait_per_s", p.runqueueWaitPerS }, { "involuntary_per_s", p.involuntaryPerS },
        { "migrations_per_s", p.migrationsPerS }, { "migrations_lower_bound", p.migrationsLowerBound },
        { "cpus_seen", p.cpusSeen } };
    if (p.relation)
        j["relation"] = std::string(toString(*p.relation));
    return j;
}

} // namespace ctxscope
