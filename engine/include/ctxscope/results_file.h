// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/clock.h"
#include "ctxscope/expected.h"
#include "ctxscope/lesson.h"
#include "ctxscope/result.h"
#include "ctxscope/sweep.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology.h"
#include "ctxscope/working_set.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

inline constexpr int kReportFormatVersion = 1;

// The machine a results file came from, as the file says (host, CPU, hypervisor, caches).
struct ReportContext {
    std::string date; // ISO 8601, local time with offset
    std::string hostName;
    std::string cpuModel;
    int numCpus = 0;
    double mhzPerCpu = 0;
    bool hypervisor = false;
    std::string hypervisorVendor;
    nlohmann::json raw; // the whole context object as read or written
};

struct ResultsFile {
    ReportContext context;
    std::vector<RunResult> results;
};

// The name a result has in Google Benchmark's "benchmarks" array: bench/mode/relation, plus
// tasks for a ring and ws:BYTES for a working set. CPU numbers are left out so files from two machines match by class.
std::string benchmarkName(const RunResult& result);

// Google Benchmark's context block (date, host_name, num_cpus, mhz_per_cpu,
// cpu_scaling_enabled, caches) with a "ctxscope" object holding sysinfo and the clock.
nlohmann::json makeContext(const SysInfo& sys, const Topology& topology, const ClockInfo& clock);

// One "benchmarks" entry: Google Benchmark's fields (real_time is the median ns per op) and
// ours (bench, op, mode, cpus, relation, switches, stats, observed, warnings, ...).
nlohmann::json resultToJson(const RunResult& result, bool withSamples = false);
// The whole file: {"context": ..., "benchmarks": [...]}.
nlohmann::json makeReport(const nlohmann::json& context, const std::vector<RunResult>& results, bool withSamples);

// A working-set point: its round-trip entry plus ws_bytes, touch_ns, switch_ns (null and
// "cost_not_positive": true when the cost is at or below 0) and the cost's spread.
nlohmann::json workingSetPointToJson(const WorkingSetPoint& point, bool withSamples = false);
// The same point's own fields only (no round-trip entry): ws_bytes, tasks, switches_per_op,
// touch_ns, switch_ns, switch_ns_low, switch_ns_high, cost_not_positive,
// round_trip_quartiles, touch_quartiles, warnings.
nlohmann::json workingSetPointSummaryToJson(const WorkingSetPoint& point);
// A sweep's data cache instances: [{"level", "size", "line_size", "pus": [...]}].
nlohmann::json sweepCachesToJson(const SweepResult& sweep);
// A sweep as a whole: bench, mode, cpus, relation, tasks, points_per_octave, requested_to,
// last_level_cache, capped, caches, warnings and, with points, each point's summary.
nlohmann::json sweepToJson(const SweepResult& sweep, bool withPoints = true);
// A lesson's outcome: id, question, steps (labels), failures, conclusion (sentences).
nlohmann::json lessonToJson(const LessonResult& lesson);

// Reads a result back from its "benchmarks" entry. Unknown fields are ignored; a missing or
// mistyped required field is an error naming it.
Expected<RunResult> resultFromJson(const nlohmann::json& entry);
// Reads a whole results file (text). Errors name the problem and, for an entry, its index.
Expected<ResultsFile> readResults(std::string_view text);
// The checks readResults makes before it builds a JSON document, for any file of ours (the
// app's sessions too): a document cut short is refused at once, without parsing 100 MB, and
// a bracket bomb before it becomes gigabytes of nested arrays. `what` names the kind of file
// in the message ("results file", "session file").
Status checkJsonDocument(std::string_view text, std::string_view what);
Expected<ResultsFile> readResultsFile(const std::string& path);

// CSV in the C locale: '#' lines with the context, a header, one row per result.
std::string resultsToCsv(const nlohmann::json& context, const std::vector<RunResult>& results);
// One row per sample: name, repetition order, index, ns per op.
std::string samplesToCsv(const std::vector<RunResult>& results);

} // namespace ctxscope
