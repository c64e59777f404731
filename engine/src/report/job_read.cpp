// SPDX-License-Identifier: MIT
// Reading back what a sweep or a lesson yields as a whole (job_json.cpp writes it).
#include "ctxscope/value_json.h"

#include "report/json_fields.h"

#include <fmt/core.h>

namespace ctxscope {

using nlohmann::json;
using report::FieldReader;

namespace {

std::vector<std::string> strings(FieldReader& in, const char* key)
{
    std::vector<std::string> out;
    for (const json& s : in.array(key)) {
        if (!s.is_string()) {
            in.fail(in.where(key) + " should hold sentences");
            break;
        }
        out.push_back(s.get<std::string>());
    }
    return out;
}

// workingSetPointSummaryToJson's fields; touch_ns is the touch's median again.
WorkingSetPoint pointSummaryFrom(FieldReader& in)
{
    WorkingSetPoint p;
    p.wsBytes = in.count("ws_bytes");
    p.tasks = static_cast<int>(in.countUpTo("tasks", kMaxRingTasks));
    p.switchesPerOp = in.number("switches_per_op");
    p.switchCostNs = in.optNumber("switch_ns");
    p.switchCostLowNs = in.optNumber("switch_ns_low");
    p.switchCostHighNs = in.optNumber("switch_ns_high");
    p.costNotPositive = in.boolean("cost_not_positive");
    p.roundTrip = report::quartilesFrom(in, "round_trip_quartiles");
    p.touch = report::quartilesFrom(in, "touch_quartiles");
    p.warnings = strings(in, "warnings");
    return p;
}

} // namespace

Expected<SweepResult> sweepFromJson(const json& sweep)
{
    auto caches = sweepCachesFromJson(sweep);
    if (!caches)
        return caches.error();
    FieldReader in(sweep, "sweep");
    SweepResult s;
    s.caches = std::move(*caches);
    s.spec.base.bench = in.string("bench");
    const std::string mode = in.string("mode");
    const std::string relation = in.string("relation");
    for (const json& cpu : in.array("cpus")) {
        if (!cpu.is_number_integer() || cpu.get<int>() < 0) {
            in.fail(in.where("cpus") + " should hold CPU numbers");
            break;
        }
        s.placement.cpus.push_back(cpu.get<int>());
    }
    s.placement.tasks = static_cast<int>(in.countUpTo("tasks", kMaxRingTasks));
    s.spec.pointsPerOctave = static_cast<int>(in.countUpTo("points_per_octave", kMaxPointsPerOctave));
    s.plan.requestedTo = in.count("requested_to");
    s.plan.lastLevelCache = in.count("last_level_cache");
    s.plan.capped = in.boolean("capped");
    s.plan.stoppedForTime = in.optBoolean("stopped_for_time").value_or(false); // files before the time limit lack it
    s.warnings = strings(in, "warnings");
    if (const json* points = in.optArray("points"))
        for (std::size_t i = 0; i < points->size() && in.ok(); ++i) {
            FieldReader p((*points)[i], fmt::format("sweep.points[{}]", i));
            s.points.push_back(pointSummaryFrom(p));
            in.absorb(p);
        }
    if (!in.ok())
        return makeError(in.error());
    const auto parsedMode = benchModeFromString(mode);
    if (!parsedMode)
        return makeError("sweep.mode should be thread or process, not '" + mode + "'");
    s.spec.base.mode = *parsedMode;
    const auto parsedRelation = relationFromString(relation);
    if (!parsedRelation)
        return makeError("sweep.relation: unknown relation class '" + relation + "'");
    s.placement.relation = *parsedRelation;
    return s;
}

Expected<LessonResult> lessonFromJson(const json& lesson)
{
    FieldReader in(lesson, "lesson");
    LessonResult l;
    l.id = in.string("id");
    l.question = in.string("question");
    for (std::string& label : strings(in, "steps"))
        l.steps.push_back(LessonStep { std::move(label), {} });
    l.failures = strings(in, "failures");
    l.conclusion = strings(in, "conclusion");
    if (in.optArray("notes"))
        l.notes = strings(in, "notes");
    if (const json* phases = in.optArray("phases"))
        for (std::size_t i = 0; i < phases->size() && in.ok(); ++i) {
            auto p = lessonPhaseFromJson((*phases)[i], fmt::format("lesson.phases[{}]", i));
            if (!p)
                return p.error();
            l.phases.push_back(std::move(*p));
        }
    if (!in.ok())
        return makeError(in.error());
    return l;
}

Expected<LessonPhase> lessonPhaseFromJson(const json& phase, const std::string& path)
{
    if (!phase.is_object())
        return makeError(path + " should be an object");
    FieldReader in(phase, path);
    LessonPhase p;
    p.label = in.string("label");
    p.cpus = report::cpuNumbers(in, "cpus");
    if (auto relation = in.optString("relation")) {
        p.relation = relationFromString(*relation);
        if (!p.relation)
            in.fail(in.where("relation") + ": unknown relation class '" + *relation + "'");
    }
    p.seconds = in.number("seconds");
    p.unit = in.string("unit");
    p.workPerS = report::numberList(in, "work_per_s");
    p.switchesPerS = report::numberList(in, "switches_per_s");
    p.runqueueWaitPerS = report::numberList(in, "runqueue_wait_per_s");
    p.involuntaryPerS = in.number("involuntary_per_s");
    p.migrationsPerS = in.number("migrations_per_s");
    p.migrationsLowerBound = in.boolean("migrations_lower_bound");
    p.cpusSeen = report::cpuNumbers(in, "cpus_seen");
    if (!in.ok())
        return makeError(in.error());
    return p;
}

} // namespace ctxscope
