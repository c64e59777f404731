// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/budget.h"
#include "ctxscope/expected.h"
#include "ctxscope/matrix.h"
#include "ctxscope/pin.h"
#include "ctxscope/results_file.h"
#include "ctxscope/runner.h"
#include "ctxscope/sched_watch.h"
#include "ctxscope/survey.h"
#include "ctxscope/sweep.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/traced_run.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// The worker stream: newline-delimited JSON between a controller (the GUI) and
// `ctxscope-cli worker`. Every message is one JSON object on one line with a "type"; every
// line stays within kMaxLineBytes. docs/protocol.md describes each and has examples.
// The worker messages are values in events.h: written by eventLine, read by parseEvent.
//
//   controller -> worker
//     {"type":"run","id":1,"spec":SPEC}   optional "trace":{"ops":0,"buffer_kb":0,"events":200000}
//     {"type":"sweep","id":2,"spec":SPEC,"from_bytes":0,"to_bytes":1048576,"points_per_octave":1}
//         from_bytes, to_bytes (none: 4x the last-level cache), points_per_octave optional
//     {"type":"matrix","id":3,"bench":"futex","mode":"thread","fill":"classes","min_time":0.1,"repetitions":3}
//         fill "classes" (default) or "all-pairs"; mode, min_time, repetitions optional
//     {"type":"lesson","id":4,"lesson":"mode-switch","min_time":0.1,"repetitions":3}
//     {"type":"survey","id":9,"budget":100}   budget optional (kSurveySeconds; kSurveyMinSeconds..kSurveyMaxSeconds)
//     {"type":"processes","id":5,"seconds":1}   seconds optional
//     {"type":"watch","id":6,"pid":1234,"interval":0.5,"duration":0,"trace":false,"events":0}   all but pid optional
//         events (with trace): after each watch_sample, the interval's latest `events` scheduler
//         events of the watched threads as trace_events lines (0: none; at most kMaxWatchEvents)
//         lean (protocol 8): watch_delta lines instead of watch_sample (watch_delta.h)
//     {"type":"watch_focus","id":6,"tids":[1240,1241]}   {"type":"watch_focus","id":6,"all":true}
//         the lean watch's threads whose peers and bins are sent; "all": once, every thread whole
//     {"type":"pin","id":7,"tid":1240,"cpus":[0]}  or  {"type":"pin","id":8,"pid":1234,"cpus":[0,1]}
//         "kernel_threads":true (optional) also moves a kernel thread or PID 1 (--kernel-threads)
//     {"type":"cancel","id":2}   {"type":"quit"}
//   SPEC: {"bench":"futex","mode":"thread","cpus":[0,1],"relation":"smt","tasks":0,
//          "iterations":N | "min_time":S,"repetitions":5,"policy":"other","ops_per_sample":0,"ws_bytes":0}
//
//   worker -> controller (id: the command's)
//     hello      {"protocol":10,"ctxscope_version","pid","topology_xml","context","benchmarks","tracing","bpf"}
//                (tracing: why this worker may not trace, "" when it may; bpf: the same for BPF)
//     progress   {"id","stage","fraction"} plus, for run: "repetition","repetitions";
//                sweep: "point","points","ws_bytes"; matrix: "pair","pairs","cpus"; lesson and survey: "step","steps"
//     samples    {"id","repetition","first","ns_per_op":[...]}                         (run)
//     trace_events {"id","first","window","recorded","t0_ns","kinds":[names],"dt_ns":[...],"cpu":[...],
//                "kind":[...],"pid":[...],"other":[...],"aux":[...],"value":[...],"comms":{"pid":name}}
//                (a traced run: the last `window` of its `recorded` events, columns, before its result;
//                a watch with "events": after each watch_sample, that interval's, `recorded` counting
//                those left out)
//     result     {"id","result":RESULT}  (run; a traced run's RESULT has "trace": the segments)
//     sweep_point  {"id","index","points","point":POINT}  one per working set, as it finishes
//     sweep_result {"id","sweep":{"bench","mode","cpus","relation","tasks","points_per_octave",
//                  "requested_to","last_level_cache","capped","stopped_for_time",
//                  "caches":[{"level","size","line_size","pus"}],
//                  "warnings":[...],"points":[POINT without its run fields]}}
//     matrix_cell  {"id","index","pairs","cell":CELL,"result":RESULT}  one per pair as it is measured;
//                  a pair that could not run: "cell": null, "error": sentence
//     matrix_result {"id","matrix":{"bench","mode","fill","pus","cells":[CELL...],"failures"},"warnings":[...]}
//                  (cells: every pair; when that line would be too long, the measured ones only and
//                  "filled_omitted": N; a filled cell has the median of the measured cell of its class)
//     lesson_step  {"id","step","steps","label","result":RESULT}; a step that failed: "error" instead
//     lesson_result {"id","lesson":{"id","question","steps":[labels],"failures":[...],
//                  "conclusion":[sentences]},"warnings":[...]}
//     survey_step  {"id","step","steps","label","result":RESULT}  one per run of the survey as it finishes
//     survey_result {"id","survey":SURVEY,"warnings":[...]}  SURVEY: the card's "survey" block (surveyToJson);
//                  the card is the hello's context, the steps' results and this block (makeReport)
//     processes  {"id","interval_s","processes":[{"pid","name","uid","own","kernel","threads",
//                "voluntary_per_s","involuntary_per_s"}]}  busiest first
//     watch_sample {"id","pid","name","seconds","interval_s","threads":[{"tid","name","state","cpu",
//                "affinity","voluntary_per_s","involuntary_per_s","cpu_share","runqueue_wait_per_s",
//                "migrations_per_s","migrations_lower_bound"}],"appeared":[tid],"ended":[{"tid","name"}],
//                "system":{"context_switches_per_s","cpus":[{"cpu","busy_share"}]},"backend",
//                "backend_fallback" (only where the default could not use BPF: why)}
//     watch_delta {"id", watch_sample's fields, "threads": only those new or changed,"gone":[tid]}
//                (a lean watch: sched blocks with "log2_size","log2_grew":[[bin,count]], peers only in focus)
//     watch_summary {"id","pid","name","seconds","samples","ending","threads":[{"tid","name","seconds",
//                "voluntary_per_s","involuntary_per_s","cpu_share","runqueue_wait_per_s","migrations_per_s",
//                "migrations_lower_bound","cpus_seen","affinity","ended"}]}  a watch's last line
//     pinned     {"id","changes":[{"tid","name","before","after"}]}  (CPU lists as "0-3,5")
//     cancelled  {"id"}     error {"id" (null: the line could not be read),"message"}     bye {}
//   RESULT: one results-file entry (value_json.h resultToJson; samples only in a run's result).
//   POINT: workingSetPointToJson (a RESULT plus ws_bytes, touch_ns, switch_ns, ...).
//   CELL: {"cpus":[a,b],"relation","median_ns","per_switch_ns","measured"} (matrixToJson).
//
// One command (run, sweep, matrix, lesson or survey) at a time; "cancel" ends it with "cancelled".
// A line that could not be read gets an error reply (with the line's id when it had one);
// the worker never exits because of one. A result's "warnings" (for a matrix or a lesson,
// the message's) say when the worker's reading thread had to share the measured PUs.
namespace ctxscope::protocol {

// 2: sweep, matrix and lesson commands and their messages; ws_bytes in a spec.
// 3: processes, watch and pin, and their messages.
// 4: tracing: "trace" in run and watch, trace_events, the hello's "tracing".
// 5: survey, survey_step and survey_result; a run's "trace" may name an "out" file.
// 6: a traced watch's "events": its threads' scheduler events after each sample.
// 7: a spec's conditions ("keep_awake", "pm_qos_us") and a run's A/B: two results, each with "ab".
// 8: a lean watch ("lean" in watch): watch_delta lines and the watch_focus command.
// 9: a traced watch without "backend" takes the cheapest the worker may use (bpf where allowed).
// 10: a run's "trace" may name its "backend" (bpf: hand-overs cut in the kernel, no events); the
//     hello's "bpf" says why this worker may not use BPF.
inline constexpr int kVersion = 10;
inline constexpr std::size_t kMaxLineBytes = 1U << 20;
// The error for an input line longer than kMaxLineBytes.
std::string longLineMessage(std::size_t bytes);

// The traced run after the untraced one (ctxscope-cli run --trace): its segments come in the
// result's "trace" block, its last `windowEvents` events in trace_events messages before it.
inline constexpr std::size_t kDefaultTraceWindowEvents = 200'000;
inline constexpr std::size_t kMaxTraceWindowEvents = 1'000'000;
struct RunTrace {
    std::uint64_t ops = 0; // 0: as run --trace picks them (TracedRunOptions)
    std::size_t bufferKbPerCpu = 0; // 0: TraceOptions' default
    std::size_t windowEvents = kDefaultTraceWindowEvents;
    // Where the worker writes the traced run's whole recording on its own machine (trace.dat,
    // or the text format for .txt/.ftrace, as --trace-out); empty: nowhere. The app gives a file
    // of its session's, which File -> Export trace copies.
    std::string out {};
    // How the traced run cuts its hand-overs (as run --trace-backend): ftrace (the default: the
    // events, which the timeline shows), bpf (in the kernel, pinned tasks, no events: no
    // trace_events lines, and no `out`) or auto (bpf where it can, ftrace with `out`).
    TraceBackend backend = TraceBackend::Ftrace;
};
struct RunCommand {
    std::uint64_t id = 0;
    BenchSpec spec;
    std::optional<RunTrace> trace {};
    // A spec with a condition is measured as an A/B, as is first (measureSides), as `run` does;
    // false: with the condition only (a lesson's step: the lesson measures its own side as is).
    bool asIsFirst = true;
};
struct SweepCommand {
    std::uint64_t id = 0;
    SweepSpec spec;
};
struct MatrixCommand {
    std::uint64_t id = 0;
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    MatrixMode fill = MatrixMode::Classes;
    RunBudget options;
};
struct LessonCommand {
    std::uint64_t id = 0;
    std::string lesson;
    RunBudget options;
};
// The survey (survey.h) of the worker's machine within `budgetSeconds` (a job: one at a time).
struct SurveyCommand {
    std::uint64_t id = 0;
    double budgetSeconds = kSurveySeconds;
};
// Every process with its switches per second over `seconds` (a job: one at a time).
struct ProcessesCommand {
    std::uint64_t id = 0;
    double seconds = 1.0;
};
// Watch a process: a watch_sample every `interval` seconds until `duration` (0: until
// cancelled) or the process ends, then a watch_summary (a job: one at a time).
struct WatchCommand {
    std::uint64_t id = 0;
    long pid = 0;
    double interval = 0.5;
    double duration = 0;
    bool trace = false; // each thread's "sched" block from the scheduler's events (watch --trace)
    std::size_t events = 0; // with trace: each interval's latest events, as trace_events lines
    // With trace, "backend": the one named, bpf (counts kept in the kernel; no events) or
    // ftrace; none: the cheapest the worker may use (chooseWatchBackend), ftrace with events.
    std::optional<SchedBackend> backend {};
    // watch_delta lines instead of watch_sample: the threads that changed, peers and bins only
    // for those in focus (WatchFocusCommand; none until the first), histograms as growth.
    bool lean = false;
};
// Which threads of lean watch `id` get their peers and bins from the next sample on (replacing
// the previous focus), and with `everything` the next sample carries every thread whole.
struct WatchFocusCommand {
    std::uint64_t id = 0;
    std::vector<long> tids;
    bool everything = false;
};
inline constexpr std::size_t kMaxWatchEvents = 200'000;
// Set the affinity of thread `id` (or with `process`, of every thread of process `id`); done
// at once, even while a job runs (re-pinning a watched program is what a watch is for).
struct PinCommand {
    std::uint64_t id = 0;
    long target = 0;
    bool process = false;
    std::vector<int> cpus;
    KernelThreads kernelThreads = KernelThreads::Refuse; // the controller asked its user first
};
struct CancelCommand {
    std::uint64_t id = 0;
};
struct QuitCommand { };
using Command = std::variant<RunCommand, SweepCommand, MatrixCommand, LessonCommand, SurveyCommand, ProcessesCommand,
    WatchCommand, PinCommand, CancelCommand, QuitCommand, WatchFocusCommand>;

// BenchSpec <-> JSON {"bench": "futex", "mode": "thread", "cpus": [0, 0], ...}. Only shape
// is checked here; ranges and CPUs are checked by the runner (checkSpec).
nlohmann::json specToJson(const BenchSpec& spec);
Expected<BenchSpec> specFromJson(const nlohmann::json& j);

Expected<Command> parseCommand(std::string_view line);
std::string commandLine(const Command& command); // one line, no newline

// Worker messages, each one line without the newline.
std::string helloLine(const Topology& topology, const SysInfo& sys, const ClockInfo& clock);
std::string progressLine(std::uint64_t id, const Progress& progress);
// One "samples" line per kMaxSamplesPerLine samples: a repetition that publishes all its
// samples at its end (an in-thread coroutine run: 10^5 of them) would otherwise make a line
// over kMaxLineBytes that the reader must refuse. "first" counts on from line to line.
inline constexpr std::size_t kMaxSamplesPerLine = 16384; // 16384 x 25 bytes a double at most: 410 KB
// Streamed samples carry kStreamedSampleDigits significant digits (5 parts per million, far
// below any timing's spread): a double's 17 made the app's parsing of the stream a sixth of its
// CPU while a run measured. The result carries every sample unrounded.
inline constexpr int kStreamedSampleDigits = 6;
std::vector<std::string> samplesLines(std::uint64_t id, const SampleBatch& batch);
// Within kMaxLineBytes: when the raw samples would not fit they are left out (they were
// streamed) and "samples_omitted" says how many.
std::string resultLine(std::uint64_t id, const RunResult& result);
// A traced run's last `window` events as trace_events lines, each within kMaxLineBytes.
// `leftOut`: events recorded before trace.events that are not in it (a watch's interval cut to
// its latest), counted in "recorded".
std::vector<std::string> traceEventsLines(
    std::uint64_t id, const Trace& trace, std::size_t window, std::uint64_t leftOut = 0);
std::string errorLine(std::optional<std::uint64_t> id, std::string_view message);
std::string sweepProgressLine(std::uint64_t id, const SweepProgress& progress);
std::string sweepPointLine(std::uint64_t id, int index, int points, const WorkingSetPoint& point);
std::string sweepResultLine(std::uint64_t id, const SweepResult& sweep);
std::string matrixProgressLine(std::uint64_t id, const MatrixProgress& progress);
// For a progress report with a finished run.
std::string matrixCellLine(std::uint64_t id, const MatrixProgress& progress);
std::string matrixResultLine(std::uint64_t id, const MatrixResult& matrix, const std::vector<std::string>& warnings);
std::string lessonProgressLine(std::uint64_t id, const LessonProgress& progress);
// For a progress report with a finished step (its result or its failure).
std::string lessonStepLine(std::uint64_t id, const LessonProgress& progress);
std::string lessonResultLine(std::uint64_t id, const LessonResult& lesson, const std::vector<std::string>& warnings);
std::string surveyProgressLine(std::uint64_t id, const SurveyProgress& progress);
// For a progress report with a finished run (SurveyProgress::finished).
std::string surveyStepLine(std::uint64_t id, const SurveyProgress& progress);
std::string surveyResultLine(std::uint64_t id, const SurveyResult& survey, const std::vector<std::string>& warnings);
std::string cancelledLine(std::uint64_t id);
std::string byeLine();

// A worker message as the controller reads it.
struct Message {
    std::string type;
    std::optional<std::uint64_t> id;
    nlohmann::json body; // the whole object
};
Expected<Message> parseMessage(std::string_view line);

} // namespace ctxscope::protocol
