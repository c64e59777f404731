// SPDX-License-Identifier: MIT
#include "report/trace_json.h"

#include <nlohmann/json.hpp>

namespace ctxscope {

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

} // namespace

TraceSummary traceSummaryFromJson(FieldReader& in)
{
    TraceSummary s;
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
    return s;
}

} // namespace report

} // namespace ctxscope
