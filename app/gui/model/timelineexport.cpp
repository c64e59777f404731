// SPDX-License-Identifier: MIT
#include "timelineexport.h"

namespace ctxscope::gui {

namespace {

using nlohmann::json;

constexpr int kTasksTrack = 0;
constexpr int kInterruptsTrack = 1;

double micros(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

std::string taskName(const TimelineData& data, std::int32_t pid)
{
    if (pid == 0)
        return "idle";
    const std::string comm = data.name(pid);
    return (comm.empty() ? std::string("task") : comm) + " (" + std::to_string(pid) + ")";
}

json named(const char* what, int pu, int track, const std::string& name)
{
    json e { { "ph", "M" }, { "name", what }, { "pid", pu }, { "args", { { "name", name } } } };
    if (track >= 0)
        e["tid"] = track;
    return e;
}

} // namespace

json perfettoTrace(const TimelineData& data, const std::vector<std::string>& comments)
{
    json events = json::array();
    const std::uint64_t from = data.beginNs();
    const std::uint64_t to = data.endNs() + 1;
    for (int pu : data.pus()) {
        events.push_back(named("process_name", pu, -1, "CPU " + std::to_string(pu)));
        events.push_back(json {
            { "ph", "M" }, { "name", "process_sort_index" }, { "pid", pu }, { "args", { { "sort_index", pu } } } });
        events.push_back(named("thread_name", pu, kTasksTrack, "running"));
        events.push_back(named("thread_name", pu, kInterruptsTrack, "interrupts"));
        for (const TimelineSlice& s : data.visible(pu, from, to, 0))
            events.push_back({ { "ph", "X" }, { "name", taskName(data, s.pid) }, { "cat", "sched" }, { "pid", pu },
                { "tid", kTasksTrack }, { "ts", micros(s.beginNs) }, { "dur", micros(s.endNs - s.beginNs) },
                { "args", { { "pid", s.pid } } } });
        for (const TimelineMark& m : data.marks(pu, from, to, 0)) {
            if (m.kind == TimelineMark::Kind::Migration) {
                events.push_back(
                    { { "ph", "i" }, { "s", "t" }, { "name", "migrated from CPU " + std::to_string(m.fromPu) },
                        { "cat", "sched" }, { "pid", pu }, { "tid", kTasksTrack }, { "ts", micros(m.beginNs) },
                        { "args", { { "task", taskName(data, m.pid) } } } });
                continue;
            }
            events.push_back({ { "ph", "X" }, { "name", m.kind == TimelineMark::Kind::Irq ? "irq" : "softirq" },
                { "cat", "irq" }, { "pid", pu }, { "tid", kInterruptsTrack }, { "ts", micros(m.beginNs) },
                { "dur", micros(m.endNs - m.beginNs) }, { "args", { { "interrupted", taskName(data, m.pid) } } } });
        }
    }
    std::uint64_t flow = 0;
    for (const TimelineWake& w : data.wakes(from, to)) {
        ++flow;
        const std::string name = "wake " + taskName(data, w.wakee);
        events.push_back({ { "ph", "s" }, { "id", flow }, { "name", name }, { "cat", "wakeup" }, { "pid", w.fromPu },
            { "tid", kTasksTrack }, { "ts", micros(w.wakingNs) } });
        events.push_back({ { "ph", "f" }, { "bp", "e" }, { "id", flow }, { "name", name }, { "cat", "wakeup" },
            { "pid", w.toPu }, { "tid", kTasksTrack }, { "ts", micros(w.runNs) } });
    }
    return json { { "traceEvents", std::move(events) }, { "displayTimeUnit", "ns" },
        { "metadata", { { "ctxscope", comments }, { "clock", "CLOCK_MONOTONIC (the trace clock)" } } } };
}

} // namespace ctxscope::gui
