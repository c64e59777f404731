// SPDX-License-Identifier: MIT
// The watch's JSON lines: what `watch --json` writes and the worker streams.
#include "ctxscope/topology.h"
#include "ctxscope/watch.h"

#include <nlohmann/json.hpp>

namespace ctxscope {

namespace {

using nlohmann::json;

json optionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

} // namespace

json watchSampleToJson(const WatchSample& s)
{
    json threads = json::array();
    for (const auto& t : s.threads) {
        threads.push_back({ { "tid", t.tid }, { "name", t.name }, { "state", std::string(1, t.state) },
            { "cpu", t.cpu ? json(*t.cpu) : json(nullptr) }, { "affinity", formatCpuList(t.affinity) },
            { "voluntary_per_s", t.voluntaryPerS }, { "involuntary_per_s", t.involuntaryPerS },
            { "cpu_share", t.cpuShare }, { "runqueue_wait_per_s", optionalNumber(t.runqueueWaitPerS) },
            { "migrations_per_s", t.migrationsPerS }, { "migrations_lower_bound", t.migrationsLowerBound } });
        if (t.sched)
            threads.back()["sched"] = threadSchedToJson(*t.sched);
    }
    json ended = json::array();
    for (const auto& e : s.ended)
        ended.push_back({ { "tid", e.tid }, { "name", e.name } });
    json cpus = json::array();
    for (const auto& c : s.cpus)
        cpus.push_back({ { "cpu", c.cpu }, { "busy_share", c.busyShare } });
    return { { "type", "watch_sample" }, { "pid", s.pid }, { "name", s.name }, { "kernel", s.kernel },
        { "seconds", s.seconds }, { "interval_s", s.intervalS }, { "mono_ns", s.monoNs }, { "threads", threads },
        { "appeared", s.appeared }, { "ended", ended }, { "backend", toString(s.backend) },
        { "system", { { "context_switches_per_s", optionalNumber(s.systemSwitchesPerS) }, { "cpus", cpus } } } };
}

json watchSummaryToJson(const WatchSummary& s)
{
    json threads = json::array();
    for (const auto& t : s.threads) {
        threads.push_back(
            { { "tid", t.tid }, { "name", t.name }, { "seconds", t.seconds }, { "voluntary_per_s", t.voluntaryPerS },
                { "involuntary_per_s", t.involuntaryPerS }, { "cpu_share", t.cpuShare },
                { "runqueue_wait_per_s", optionalNumber(t.runqueueWaitPerS) }, { "migrations_per_s", t.migrationsPerS },
                { "migrations_lower_bound", t.migrationsLowerBound }, { "cpus_seen", formatCpuList(t.cpusSeen) },
                { "affinity", formatCpuList(t.affinity) }, { "ended", t.ended } });
        if (t.sched)
            threads.back()["sched"] = threadSchedToJson(*t.sched);
    }
    return { { "type", "watch_summary" }, { "pid", s.pid }, { "name", s.name }, { "seconds", s.seconds },
        { "samples", s.samples }, { "threads", threads }, { "backend", toString(s.backend) },
        { "ending", s.ending.empty() ? json(nullptr) : json(s.ending) } };
}

} // namespace ctxscope
