// SPDX-License-Identifier: MIT
#include "report/trace_json.h"

#include <nlohmann/json.hpp>

namespace ctxscope {

namespace {

nlohmann::json otherTasksJson(const std::vector<TraceOtherTask>& tasks)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : tasks)
        out.push_back({ { "pid", t.pid }, { "comm", t.comm }, { "cpu", t.cpu }, { "handovers", t.handovers },
            { "ns", t.ns }, { "measured", t.measured }, { "keep_awake", t.keepAwake } });
    return out;
}

} // namespace

// A contract scripts rely on (docs/measurement.md).
nlohmann::json traceSummaryToJson(const TraceSummary& s)
{
    nlohmann::json segments = nlohmann::json::array();
    for (const auto& seg : s.segments)
        segments.push_back({ { "name", seg.name }, { "from_event", seg.fromEvent }, { "to_event", seg.toEvent },
            { "cross_cpu", seg.crossCpu }, { "p50_ns", seg.p50Ns }, { "p90_ns", seg.p90Ns }, { "mean_ns", seg.meanNs },
            { "count", seg.count } });
    nlohmann::json losses = nlohmann::json::array();
    for (const auto& l : s.losses)
        losses.push_back({ { "cpu", l.cpu }, { "overrun", l.overrun }, { "dropped", l.dropped },
            { "missed_in_pages", l.missedInPages } });
    nlohmann::json j = {
        { "backend", s.backend },
        { "ops", s.ops },
        { "ns_per_op", s.nsPerOp },
        { "untraced_ns_per_op", s.untracedNsPerOp },
        { "lost_events", s.lostEvents },
        { "lost_per_cpu", losses },
        { "events", s.events },
        { "handovers", s.handovers },
        { "segments", segments },
        { "segment_ns_per_op", s.segmentNsPerOp },
        { "switch_outs", s.switchOuts },
        { "switches_per_op", s.switchOutsPerOp },
        { "tasks", s.tasks },
        { "cpus", s.cpus },
        { "missing_events", s.missingEvents },
        { "notes", s.notes },
    };
    if (s.rusageSwitchesPerOp)
        j["rusage_switches_per_op"] = *s.rusageSwitchesPerOp;
    const TraceTargetStates& t = s.targetStates;
    j["target_states"] = { { "idle", t.idle }, { "preempting", t.preempting }, { "waiting", t.waiting },
        { "waiting_behind_others", t.waitingBehindOthers }, { "unknown", t.unknown } };
    j["waited_behind"] = otherTasksJson(s.waitedBehind);
    j["preempted"] = otherTasksJson(s.preempted);
    j["others"] = otherTasksJson(s.others);
    nlohmann::json cpuTime = nlohmann::json::array();
    for (const auto& c : s.cpuTime)
        cpuTime.push_back({ { "cpu", c.cpu }, { "span_ns", c.spanNs }, { "other_ns", c.otherNs },
            { "keep_awake_ns", c.keepAwakeNs } });
    j["cpu_time"] = cpuTime;
    j["keep_awake_tasks"] = s.keepAwakeTasks;
    nlohmann::json idle = nlohmann::json::array();
    for (const auto& x : s.idleStates) {
        nlohmann::json one = { { "state", x.state }, { "name", x.name }, { "count", x.count }, { "p50_ns", x.p50Ns },
            { "p90_ns", x.p90Ns }, { "note", x.note } };
        one["declared_exit_ns"] = x.declaredExitNs ? nlohmann::json(*x.declaredExitNs) : nlohmann::json(nullptr);
        idle.push_back(std::move(one));
    }
    j["idle_states"] = idle;
    j["idle_driver"] = s.idleDriver;
    j["placement"] = { { "waker_cpu", s.placement.wakerCpu }, { "idle_cpu", s.placement.idleCpu },
        { "busy_cpu", s.placement.busyCpu }, { "migrated", s.placement.migrated } };
    return j;
}

namespace report {

using nlohmann::json;

namespace {

std::vector<long> taskIds(FieldReader& in, const char* key)
{
    std::vector<long> out;
    if (const json* a = in.optArray(key))
        for (const json& v : *a) {
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > (1LL << 30)) {
                in.fail("field '" + in.where(key) + "' should hold task ids");
                break;
            }
            out.push_back(static_cast<long>(v.get<std::int64_t>()));
        }
    return out;
}

std::vector<TraceOtherTask> otherTasks(FieldReader& in, const char* key)
{
    std::vector<TraceOtherTask> out;
    if (!in.optArray(key))
        return out;
    eachObject(in, key, [&](FieldReader& t) {
        TraceOtherTask x;
        x.pid = taskId(t, "pid");
        x.comm = t.string("comm");
        x.cpu = static_cast<int>(t.optNumber("cpu").value_or(-1));
        x.handovers = t.optCount("handovers").value_or(0);
        x.ns = nonNegative(t, "ns");
        x.measured = t.optBoolean("measured").value_or(false);
        x.keepAwake = t.optBoolean("keep_awake").value_or(false);
        out.push_back(std::move(x));
    });
    return out;
}

} // namespace

TraceSummary traceSummaryFromJson(FieldReader& in)
{
    TraceSummary s;
    s.backend = in.optString("backend").value_or("ftrace");
    if (s.backend != "ftrace" && s.backend != "bpf")
        in.fail(in.where("backend") + " is '" + s.backend + "', not ftrace or bpf");
    s.ops = in.count("ops");
    s.nsPerOp = in.number("ns_per_op");
    s.untracedNsPerOp = in.optNumber("untraced_ns_per_op").value_or(0);
    s.lostEvents = in.count("lost_events");
    s.events = in.optCount("events").value_or(0);
    s.handovers = in.optCount("handovers").value_or(0);
    s.segmentNsPerOp = in.optNumber("segment_ns_per_op").value_or(0);
    s.switchOuts = in.optCount("switch_outs").value_or(0);
    s.switchOutsPerOp = in.optNumber("switches_per_op").value_or(0);
    s.rusageSwitchesPerOp = in.optNumber("rusage_switches_per_op");
    for (const json& l : in.optArray("lost_per_cpu") ? in.array("lost_per_cpu") : json::array()) {
        FieldReader loss(l, in.where("lost_per_cpu"));
        TraceCpuLoss x;
        x.cpu = static_cast<int>(loss.countUpTo("cpu", 65535));
        x.overrun = loss.count("overrun");
        x.dropped = loss.count("dropped");
        x.missedInPages = loss.optCount("missed_in_pages").value_or(0);
        in.absorb(loss);
        s.losses.push_back(x);
    }
    for (const json& g : in.array("segments")) {
        FieldReader seg(g, in.where("segments"));
        TraceSegment x;
        x.name = seg.string("name");
        x.fromEvent = seg.string("from_event");
        x.toEvent = seg.string("to_event");
        x.crossCpu = seg.optBoolean("cross_cpu").value_or(false);
        x.p50Ns = seg.number("p50_ns");
        x.p90Ns = seg.number("p90_ns");
        x.meanNs = seg.optNumber("mean_ns").value_or(0);
        x.count = seg.count("count");
        in.absorb(seg);
        s.segments.push_back(std::move(x));
    }
    s.tasks = taskIds(in, "tasks");
    s.cpus = cpuNumbers(in, "cpus");
    s.missingEvents = sentences(in, "missing_events");
    s.notes = sentences(in, "notes");
    if (in.optObject("target_states")) {
        FieldReader t = in.child("target_states");
        s.targetStates.idle = t.count("idle");
        s.targetStates.preempting = t.count("preempting");
        s.targetStates.waiting = t.count("waiting");
        s.targetStates.waitingBehindOthers = t.count("waiting_behind_others");
        s.targetStates.unknown = t.optCount("unknown").value_or(0);
        in.absorb(t);
    }
    s.waitedBehind = otherTasks(in, "waited_behind");
    s.preempted = otherTasks(in, "preempted");
    s.others = otherTasks(in, "others");
    if (in.optArray("cpu_time"))
        eachObject(in, "cpu_time", [&](FieldReader& c) {
            TraceCpuTime x;
            x.cpu = static_cast<int>(c.countUpTo("cpu", 65535));
            x.spanNs = nonNegative(c, "span_ns");
            x.otherNs = nonNegative(c, "other_ns");
            x.keepAwakeNs = c.optNumber("keep_awake_ns").value_or(0);
            s.cpuTime.push_back(x);
        });
    s.keepAwakeTasks = taskIds(in, "keep_awake_tasks");
    if (in.optArray("idle_states"))
        eachObject(in, "idle_states", [&](FieldReader& x) {
            TraceIdleState st;
            st.state = static_cast<int>(x.optNumber("state").value_or(-1));
            st.name = x.string("name");
            st.declaredExitNs = x.optNumber("declared_exit_ns");
            st.note = x.optString("note").value_or("");
            st.count = x.count("count");
            st.p50Ns = nonNegative(x, "p50_ns");
            st.p90Ns = nonNegative(x, "p90_ns");
            s.idleStates.push_back(std::move(st));
        });
    s.idleDriver = in.optString("idle_driver").value_or("");
    if (in.optObject("placement")) {
        FieldReader p = in.child("placement");
        s.placement.wakerCpu = p.count("waker_cpu");
        s.placement.idleCpu = p.count("idle_cpu");
        s.placement.busyCpu = p.count("busy_cpu");
        s.placement.migrated = p.count("migrated");
        in.absorb(p);
    }
    return s;
}

} // namespace report

} // namespace ctxscope
