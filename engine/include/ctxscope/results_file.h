// SPDX-License-Identifier: MIT
// A results file: Google Benchmark's {"context": ..., "benchmarks": [...]} with ctxscope's
// fields, written and read back. The entries themselves are value_json.h's.
#pragma once

#include "ctxscope/clock.h"
#include "ctxscope/expected.h"
#include "ctxscope/result.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology.h"
#include "ctxscope/value_json.h"

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
    std::string kernel; // uname -r, "" when the file does not say
    int numCpus = 0;
    double mhzPerCpu = 0;
    bool hypervisor = false;
    std::string hypervisorVendor;
    int idleStates = -1; // cpuidle states of the machine (sysinfo's idle_states); -1 when it does not say
    nlohmann::json raw; // the whole context object as read or written
};

struct ResultsFile {
    ReportContext context;
    std::vector<RunResult> results;
};

// Google Benchmark's context block (date, host_name, num_cpus, mhz_per_cpu,
// cpu_scaling_enabled, caches) with a "ctxscope" object holding sysinfo and the clock.
nlohmann::json makeContext(const SysInfo& sys, const Topology& topology, const ClockInfo& clock);

// The whole file: {"context": ..., "benchmarks": [...]}.
nlohmann::json makeReport(const nlohmann::json& context, const std::vector<RunResult>& results, bool withSamples);

// The parts of readResults, for documents that hold results among other things (a saved
// session, a worker message): the machine of a "context" block, and the ctxscope entries of
// a "benchmarks" array (which may be empty here). Errors name the field, as readResults does.
Expected<ReportContext> reportContextFromJson(const nlohmann::json& context);
Expected<std::vector<RunResult>> resultsFromJson(const nlohmann::json& benchmarks);

// Reads a whole results file (text). Errors name the problem and, for an entry, its index.
Expected<ResultsFile> readResults(std::string_view text);
// The checks readResults makes before it builds a JSON document, for any file of ours (the
// app's sessions too): a document cut short is refused at once, without parsing 100 MB, and
// a bracket bomb before it becomes gigabytes of nested arrays. `what` names the kind of file
// in the message ("results file", "session file").
Status checkJsonDocument(std::string_view text, std::string_view what);
// The text of a file of ours: a regular file, at most the size a results file may be, read in
// one piece. Errors start with the path.
Expected<std::string> readResultsText(const std::string& path);
Expected<ResultsFile> readResultsFile(const std::string& path);

} // namespace ctxscope
