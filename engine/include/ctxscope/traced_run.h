// SPDX-License-Identifier: MIT
// A traced run: after an untraced run, the same benchmark once more inside a private ftrace
// instance, the trace covering exactly its measured ops. It explains the untraced figures and
// never replaces them.
#pragma once

#include "ctxscope/handover.h"
#include "ctxscope/result.h"
#include "ctxscope/runner.h"
#include "ctxscope/topology.h"
#include "ctxscope/trace_session.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace ctxscope {

// How a traced run cuts its hand-overs. Ftrace records every event into a private instance and
// cuts them afterwards (a trace file, the timeline's window, examples; every placement). Bpf cuts
// them in the kernel as they happen (HandoverProbe): a run whose tasks are each pinned to a CPU,
// no events kept, a fraction of ftrace's cost. Auto: bpf where it can (every task pinned, BPF
// allowed), else ftrace.
enum class TraceBackend { Ftrace, Bpf, Auto };
std::string_view toString(TraceBackend backend);
std::optional<TraceBackend> traceBackendFrom(std::string_view name);

struct TracedRunOptions {
    std::uint64_t ops = 0; // 0: about 0.25 s of the untraced run's ops, 1,000 to 20,000
    std::size_t bufferKbPerCpu = 0; // 0: TraceOptions' default
    std::vector<std::string> marks; // written into the trace as it starts: what it shows
    TraceBackend backend = TraceBackend::Ftrace;
    // The events themselves are wanted (a trace file): auto records them with ftrace, and bpf,
    // which keeps none, is refused (traceRefusal).
    bool eventsWanted = false;
};

// The CPUs of these (a placement's or a spec's, one per task), sorted and each once, when every
// task is pinned (the BPF backend's runs); none otherwise (no CPUs given, or a task not pinned).
std::vector<int> pinnedTracedCpus(const std::vector<int>& cpus);

inline constexpr std::uint64_t kMaxTracedOps = 1'000'000;
inline constexpr std::size_t kMaxTraceBufferKb = 1024 * 1024;

struct TracedRun {
    RunResult run; // the traced run's own figures
    RawTrace raw; // what the kernel recorded (trace.dat is made of it)
    Trace trace; // decoded
    TraceSummary summary;
};

// Why this spec has nothing to trace or these options are out of range (the bpf backend for a
// run on more than one CPU included), as a sentence; "" when it can be traced. Checks no
// privilege (tracingAllowed and bpfUnavailable do).
std::string traceRefusal(const BenchSpec& spec, const TracedRunOptions& options);

// Every refusal of a traced run that does not depend on this machine's privileges, in the
// order the CLI's --trace and the worker's traced runs give them: traceRefusal's, then the trace
// file's format (`out`: the file the events go to, "" for none). traceAllowed follows it.
Status traceInputCheck(const BenchSpec& spec, const TracedRunOptions& options, const std::string& out);

// Whether this machine lets the spec be traced as `options` ask, as a sentence: bpf needs BPF
// (bpfUnavailable); auto needs nothing more where it will cut the hand-overs in the kernel (the
// spec's tasks pinned, no events wanted, BPF allowed); otherwise ftrace must be allowed
// (tracingAllowed). The CLI's --trace and the worker's traced runs both ask it.
Status traceAllowed(const BenchSpec& spec, const TracedRunOptions& options);

// What a trace says about itself (marks in the trace, comments in its text file): the machine,
// the placement, the ops.
std::vector<std::string> traceComments(const RunResult& untraced, std::uint64_t ops);

// The ops a traced run takes after an untraced run of this mean.
std::uint64_t tracedOps(const TracedRunOptions& options, double untracedNsPerOp);

Expected<TracedRun> runTraced(const BenchSpec& spec, const Topology& topology, const RunResult& untraced,
    const TracedRunOptions& options, const RunCallbacks& callbacks = {}, std::stop_token stop = {});

// The "trace" block of a result: {"ops", "ns_per_op", "lost_events", "segments": [...], ...}.
// Defined beside its reader, report::traceSummaryFromJson (report/trace_json.cpp).
nlohmann::json traceSummaryToJson(const TraceSummary& summary);

// The text a person reads: the cost of tracing, the segments, the checks.
std::string formatTraceSummary(const TraceSummary& summary);

} // namespace ctxscope
