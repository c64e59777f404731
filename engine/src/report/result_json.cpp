// SPDX-License-Identifier: MIT
// RunResult <-> one entry of Google Benchmark's "benchmarks" array, with ctxscope's fields.
#include "ctxscope/traced_run.h"
#include "ctxscope/value_json.h"

#include "report/interference_json.h"
#include "report/json_fields.h"
#include "report/shared_line_json.h"
#include "report/trace_json.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

namespace ctxscope {

using nlohmann::json;
using report::cpuNumbers;
using report::FieldReader;
using report::numberList;

std::string benchmarkName(const RunResult& r)
{
    std::string name
        = r.bench + "/" + std::string(toString(r.mode)) + "/" + std::string(toString(r.placement.relation));
    if (!r.placement.kinds.empty())
        name += "/kinds:" + r.placement.kinds; // runs on a hybrid machine differ by kind
    if (r.placement.tasks > 2 || r.bench == "ring")
        name += fmt::format("/tasks:{}", r.placement.tasks);
    if (r.spec.wsBytes > 0)
        name += fmt::format("/ws:{}", r.spec.wsBytes);
    if (r.spec.spinNs)
        name += fmt::format("/spin_ns:{}", *r.spec.spinNs);
    if (!r.spec.keepAwakeCpus.empty())
        name += fmt::format("/keep_awake:{}", fmt::join(r.spec.keepAwakeCpus, ","));
    if (r.spec.pmQosUs)
        name += fmt::format("/pm_qos_us:{}", *r.spec.pmQosUs);
    return name;
}

namespace {

// OS indices of CPUs; what the worker protocol accepts too.

json summaryToJson(const Summary& s)
{
    return { { "count", s.count }, { "min", s.min }, { "p50", s.p50 }, { "mean", s.mean }, { "p90", s.p90 },
        { "p99", s.p99 }, { "p999", s.p999 }, { "max", s.max }, { "stddev", s.stddev }, { "cv", s.cv } };
}

Summary summaryFromJson(FieldReader& in)
{
    Summary s;
    s.count = in.count("count");
    s.min = in.number("min");
    s.p50 = in.number("p50");
    s.mean = in.number("mean");
    s.p90 = in.number("p90");
    s.p99 = in.number("p99");
    s.p999 = in.number("p999");
    s.max = in.number("max");
    s.stddev = in.number("stddev");
    s.cv = in.number("cv");
    return s;
}

json observedToJson(const Observed& o)
{
    json tasks = json::array();
    for (const auto& t : o.tasks) {
        json j { { "task", t.task }, { "id", t.id }, { "pinned_cpu", t.pinnedCpu }, { "cpus_seen", t.cpusSeen },
            { "cpu_changes", t.cpuChanges }, { "voluntary", t.voluntarySwitches },
            { "involuntary", t.involuntarySwitches }, { "cpu_ns", t.cpuNs } };
        if (t.perfContextSwitches)
            j["perf_context_switches"] = *t.perfContextSwitches;
        if (t.perfMigrations)
            j["perf_migrations"] = *t.perfMigrations;
        tasks.push_back(std::move(j));
    }
    json j { { "voluntary_switches_per_op", o.voluntaryPerOp }, { "cpu_ns_per_op", o.cpuNsPerOp },
        { "involuntary_switches_per_op", o.involuntaryPerOp }, { "switches_per_op", o.switchesPerOp() },
        { "migrations", o.migrations }, { "cpus_seen", o.cpusSeen }, { "perf_status", o.perfStatus },
        { "tasks", std::move(tasks) } };
    j["perf_switches_per_op"] = o.perfSwitchesPerOp ? json(*o.perfSwitchesPerOp) : json(nullptr);
    j["perf_migrations"] = o.perfMigrations ? json(*o.perfMigrations) : json(nullptr);
    // The perf counters run in a check phase of their own; its size and its time per op
    // (the counters' price) travel with them.
    j["perf_check_ops"] = o.perfCheckOps;
    j["perf_check_ns_per_op"] = o.perfCheckNsPerOp;
    return j;
}

Observed observedFromJson(FieldReader& in)
{
    Observed o;
    o.voluntaryPerOp = in.number("voluntary_switches_per_op");
    o.involuntaryPerOp = in.number("involuntary_switches_per_op");
    o.cpuNsPerOp = in.optNumber("cpu_ns_per_op").value_or(0);
    o.perfSwitchesPerOp = in.optNumber("perf_switches_per_op");
    if (auto m = in.optCount("perf_migrations"))
        o.perfMigrations = *m;
    o.perfStatus = in.optString("perf_status").value_or("");
    if (auto n = in.optCount("perf_check_ops"))
        o.perfCheckOps = *n;
    o.perfCheckNsPerOp = in.optNumber("perf_check_ns_per_op").value_or(0);
    o.migrations = in.count("migrations");
    o.cpusSeen = cpuNumbers(in, "cpus_seen");
    return o; // per-task details are informative only and not read back
}

} // namespace

json resultToJson(const RunResult& r, bool withSamples)
{
    const double perSwitch = r.perSwitchNs.value_or(0);
    json j {
        // Google Benchmark's fields, so its compare.py reads our files.
        { "name", benchmarkName(r) },
        { "run_name", benchmarkName(r) },
        { "run_type", "iteration" },
        { "repetitions", r.repetitions },
        { "repetition_index", 0 },
        { "threads", r.placement.tasks },
        { "iterations", r.iterations },
        { "real_time", r.stats.p50 },
        { "cpu_time", r.observed.cpuNsPerOp },
        { "time_unit", "ns" },
        // ctxscope's own.
        { "bench", r.bench },
        { "op", r.op },
        { "mode", std::string(toString(r.mode)) },
        { "cpus", r.placement.cpus },
        { "relation", std::string(toString(r.placement.relation)) },
        { "tasks", r.placement.tasks },
        { "ws_bytes", r.spec.wsBytes },
        { "policy", std::string(toString(r.policy)) },
        { "switches_per_op", r.switchesPerOp },
        { "per_switch_ns", r.perSwitchNs ? json(perSwitch) : json(nullptr) },
        { "ops_per_sample", r.opsPerSample },
        { "stats", summaryToJson(r.stats) },
        { "percentiles_from_histogram", r.percentilesFromHistogram },
        { "repetition_medians", r.repetitionMedians },
        { "repetition_cv", r.repetitionCv },
        { "total_samples", r.totalSamples },
        { "observed", observedToJson(r.observed) },
        { "warnings", r.warnings },
        { "seconds", r.seconds },
        { "clock",
            { { "source", std::string(toString(r.clock.source)) }, { "read_cost_ns", r.clock.readCostNs },
                { "resolution_ns", r.clock.resolutionNs }, { "tsc_ghz", r.clock.tscGhz }, { "why", r.clock.why } } },
    };
    if (!r.placement.kinds.empty())
        j["kinds"] = r.placement.kinds;
    if (r.handoffsPerOp > 0) {
        j["handoffs_per_op"] = r.handoffsPerOp;
        j["per_handoff_ns"] = r.perHandoffNs.value_or(0);
    }
    if (r.spec.spinNs)
        j["spin_ns"] = *r.spec.spinNs;
    if (r.interference)
        j["interference"] = report::interferenceToJson(*r.interference);
    if (r.trace)
        j["trace"] = traceSummaryToJson(*r.trace);
    if (r.spec.conditioned()) {
        json c = { { "text", conditionText(r.spec) }, { "keep_awake_cpus", r.spec.keepAwakeCpus },
            { "keep_awake_tasks", r.keepAwakeTasks }, { "keep_awake_cpu_ns", r.keepAwakeCpuNs } };
        c["pm_qos_us"] = r.spec.pmQosUs ? json(*r.spec.pmQosUs) : json(nullptr);
        j["condition"] = std::move(c);
    }
    if (r.line)
        j["line"] = report::sharedLineToJson(*r.line);
    if (r.handoffs)
        j["handoffs"] = { { "total", r.handoffs->total }, { "slept", r.handoffs->slept },
            { "slept_share", r.handoffs->sleptShare() } };
    json hist = json::array();
    for (const auto& b : r.histogram)
        hist.push_back({ b.lower, b.upper, b.count });
    j["histogram"] = std::move(hist);
    if (withSamples)
        j["samples"] = r.samples;
    return j;
}

Expected<RunResult> resultFromJson(const json& entry)
{
    FieldReader in(entry, "");
    const std::string name = entry.is_object() && entry.contains("name") && entry["name"].is_string()
        ? "result '" + entry["name"].get<std::string>() + "': "
        : std::string();
    RunResult r;
    r.bench = in.string("bench");
    if (in.ok() && !findBenchmark(r.bench))
        in.fail("unknown benchmark '" + r.bench + "' in " + in.where("bench"));
    r.op = in.string("op");
    const std::string mode = in.string("mode");
    const std::string relation = in.string("relation");
    const std::string policy = in.optString("policy").value_or("other");
    if (in.ok()) {
        auto m = benchModeFromString(mode);
        auto rel = relationFromString(relation);
        auto pol = schedPolicyFromString(policy);
        if (!m)
            in.fail("field '" + in.where("mode") + "' should be thread or process, not '" + mode + "'");
        else if (!rel)
            in.fail("field '" + in.where("relation") + "' is not a relation class: '" + relation + "'");
        else if (!pol)
            in.fail("field '" + in.where("policy") + "' should be other or fifo, not '" + policy + "'");
        else {
            r.mode = *m;
            r.placement.relation = *rel;
            r.policy = *pol;
        }
    }
    r.placement.cpus = cpuNumbers(in, "cpus");
    r.placement.kinds = in.optString("kinds").value_or("");
    r.placement.tasks = static_cast<int>(in.countUpTo("tasks", kMaxRingTasks));
    r.spec.wsBytes = in.optCount("ws_bytes").value_or(0);
    r.iterations = in.count("iterations");
    r.repetitions = static_cast<int>(in.countUpTo("repetitions", kMaxRepetitions));
    r.switchesPerOp = in.number("switches_per_op");
    r.perSwitchNs = in.optNumber("per_switch_ns");
    r.handoffsPerOp = in.optNumber("handoffs_per_op").value_or(0);
    r.perHandoffNs = in.optNumber("per_handoff_ns");
    if (!(r.handoffsPerOp > 0))
        r.perHandoffNs.reset();
    r.spec.spinNs = in.optCount("spin_ns");
    if (const json* h = in.optObject("handoffs")) {
        FieldReader handoffs(*h, in.where("handoffs"));
        r.handoffs = HandoffCount { handoffs.count("total"), handoffs.count("slept") };
        in.absorb(handoffs);
    }
    if (const json* l = in.optObject("line")) {
        FieldReader line(*l, in.where("line"));
        r.line = report::sharedLineFromJson(line);
        in.absorb(line);
    }
    if (const json* i = in.optObject("interference")) {
        FieldReader interference(*i, in.where("interference"));
        r.interference = report::interferenceFromJson(interference);
        in.absorb(interference);
    }
    if (const json* c = in.optObject("condition")) {
        FieldReader condition(*c, in.where("condition"));
        r.spec.keepAwakeCpus = cpuNumbers(condition, "keep_awake_cpus");
        if (const auto us = condition.optCount("pm_qos_us"))
            r.spec.pmQosUs = static_cast<int>(std::min<std::uint64_t>(*us, kMaxPmQosUs));
        r.keepAwakeCpuNs = condition.optNumber("keep_awake_cpu_ns").value_or(0);
        if (const json* tasks = condition.optArray("keep_awake_tasks"))
            for (const json& t : *tasks)
                if (t.is_number_integer())
                    r.keepAwakeTasks.push_back(t.get<long>());
        in.absorb(condition);
    }
    if (const json* t = in.optObject("trace")) {
        FieldReader trace(*t, in.where("trace"));
        r.trace = report::traceSummaryFromJson(trace);
        in.absorb(trace);
    }
    r.opsPerSample = in.count("ops_per_sample");
    FieldReader stats = in.child("stats");
    r.stats = summaryFromJson(stats);
    in.absorb(stats);
    FieldReader observed = in.child("observed");
    r.observed = observedFromJson(observed);
    in.absorb(observed);
    r.repetitionMedians = numberList(in, "repetition_medians");
    r.repetitionCv = in.optNumber("repetition_cv").value_or(0);
    r.totalSamples = in.optCount("total_samples").value_or(0);
    r.percentilesFromHistogram = in.optBoolean("percentiles_from_histogram").value_or(false);
    r.seconds = in.optNumber("seconds").value_or(0);
    r.samples = numberList(in, "samples");
    if (const json* w = in.optArray("warnings"))
        for (const auto& s : *w)
            if (s.is_string())
                r.warnings.push_back(s.get<std::string>());
    if (const json* h = in.optArray("histogram")) {
        for (const auto& b : *h) {
            if (b.is_array() && b.size() == 3 && b[0].is_number() && b[1].is_number() && b[2].is_number_unsigned())
                r.histogram.push_back({ b[0].get<double>(), b[1].get<double>(), b[2].get<std::uint64_t>() });
            else
                in.fail("field '" + in.where("histogram") + "' should hold [lower, upper, count] triples");
        }
    }
    if (const json* c = in.optObject("clock")) {
        FieldReader clock(*c, in.where("clock"));
        r.clock.source = clock.optString("source").value_or("") == "tsc" ? ClockSource::Tsc : ClockSource::Monotonic;
        r.clock.readCostNs = clock.optNumber("read_cost_ns").value_or(0);
        r.clock.resolutionNs = clock.optNumber("resolution_ns").value_or(0);
        r.clock.tscGhz = clock.optNumber("tsc_ghz").value_or(0);
        r.clock.why = clock.optString("why").value_or("");
        in.absorb(clock);
    }
    if (!in.ok())
        return makeError(name + in.error());
    if (r.stats.p50 <= 0 || r.opsPerSample == 0)
        return makeError("result " + benchmarkName(r) + " has no measurement (median or ops per sample is 0)");
    r.spec.bench = r.bench;
    r.spec.mode = r.mode;
    r.spec.cpus = r.placement.cpus;
    r.spec.relation = r.placement.relation;
    r.spec.tasks = r.placement.tasks;
    r.spec.repetitions = r.repetitions;
    r.spec.policy = r.policy;
    return r;
}

json workingSetPointToJson(const WorkingSetPoint& p, bool withSamples)
{
    json j = resultToJson(p.roundTripRun, withSamples);
    // The point's own fields beside the round trip's (whose tasks, switches_per_op and
    // warnings stay; the point's warnings are added to them).
    const json own = workingSetPointSummaryToJson(p);
    for (const auto& [key, value] : own.items())
        if (!j.contains(key))
            j[key] = value;
    for (const auto& w : p.warnings)
        j["warnings"].push_back(w);
    return j;
}

} // namespace ctxscope
