// SPDX-License-Identifier: MIT
// The worker's messages as values: the worker writes each line from one of these, and a
// controller (the desktop app) parses a line into one and visits it, so no reader outside
// the engine names a field of the stream. protocol.h shows the shape of each on the wire.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/lesson.h"
#include "ctxscope/matrix.h"
#include "ctxscope/pin.h"
#include "ctxscope/process_list.h"
#include "ctxscope/result.h"
#include "ctxscope/sweep.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/watch.h"
#include "ctxscope/watch_delta.h"
#include "ctxscope/working_set.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ctxscope::protocol {

// One benchmark as the hello lists it.
struct BenchmarkListing {
    std::string name;
    std::string op;
    int minTasks = 1;
    int maxTasks = 1;
    bool processMode = false;
};

// The first message. Read leniently (absent fields keep these defaults), so a worker of
// another protocol version still gets as far as the version check.
struct HelloEvent {
    int protocol = 0;
    std::string ctxscopeVersion = "?";
    long pid = 0;
    std::string topologyXml;
    nlohmann::json context; // the results file's context block (makeContext), kept whole
    std::vector<BenchmarkListing> benchmarks;
    std::string tracing; // why this worker may not trace (tracingAllowed), "" when it may
    std::string bpf {}; // why this worker may not use BPF (bpfUnavailable), "" when it may
    // Read, not written: the context's host name (its "host_name"), "" when it names none.
    std::string hostName {};
};

// How far a command is. Which of the optional counters are set says what kind it is: a run
// (repetition), a sweep (point), a matrix (pair) or a lesson or survey (step).
struct ProgressEvent {
    std::uint64_t id = 0;
    std::string stage;
    double fraction = 0; // of the whole command
    std::optional<int> repetition;
    std::optional<int> repetitions;
    std::optional<int> point;
    std::optional<int> points;
    std::optional<std::uint64_t> wsBytes;
    std::optional<int> pair;
    std::optional<int> pairs;
    std::optional<std::pair<int, int>> cpus;
    std::optional<int> step;
    std::optional<int> steps;
};

// The common fields only; the caller sets the counters of its kind.
ProgressEvent progressEvent(std::uint64_t id, std::string stage, double fraction);

struct SamplesEvent {
    std::uint64_t id = 0;
    int repetition = 0;
    std::uint64_t first = 0; // index of nsPerOp[0] within the repetition
    std::vector<double> nsPerOp;
};

struct ResultEvent {
    std::uint64_t id = 0;
    RunResult result;
    // Raw samples left out of the line to keep it within kMaxLineBytes (they were streamed);
    // 0 when the line holds them all.
    std::size_t samplesOmitted = 0;
    // A spec with a condition (keep_awake, pm_qos_us) is measured as an A/B (measureSides): its
    // run sends two results, the side as is first (`asIs`, which does not end the run), then the
    // condition's side with `ab`, their comparison. Neither for a run without a condition.
    bool asIs = false;
    std::optional<ConditionAb> ab {};
};

// Part of a traced run's events, before its result: together the lines hold the last `window`
// of the `recorded` events, in time order; this line holds those from index `first` on, with
// the names of the tasks they mention.
struct TraceEventsEvent {
    std::uint64_t id = 0;
    std::uint64_t first = 0;
    std::uint64_t window = 0;
    std::uint64_t recorded = 0;
    std::vector<TraceEvent> events;
    std::map<int, std::string> comms;
};

struct SweepPointEvent {
    std::uint64_t id = 0;
    int index = 0;
    int points = 0;
    WorkingSetPoint point; // its touch run is not on the wire, only its quartiles
};

// The sweep as a whole: what sweepToJson writes and sweepFromJson reads back (its points'
// summaries, not their runs, which came in sweep_point messages).
struct SweepResultEvent {
    std::uint64_t id = 0;
    SweepResult sweep;
};

struct MatrixCellEvent {
    std::uint64_t id = 0;
    int index = 0;
    int pairs = 0;
    std::optional<MatrixCell> cell; // none: the pair could not run
    std::optional<RunResult> result;
    std::string error; // why the pair could not run
};

struct MatrixResultEvent {
    std::uint64_t id = 0;
    MatrixResult matrix; // its runs are not on the wire (they came in matrix_cell messages)
    std::vector<std::string> warnings;
    // Filled cells left out to keep the line within kMaxLineBytes; 0 when all are there.
    std::size_t filledOmitted = 0;
};

struct LessonStepEvent {
    std::uint64_t id = 0;
    int step = 0;
    int steps = 0;
    std::string label;
    std::optional<RunResult> result; // none: the step failed, `error` says why
    std::string error;
    std::optional<LessonPhase> phase {}; // a watching lesson's step (a phase) instead of a result
};

// The lesson as a whole: its steps' labels (no specs), failures and conclusion.
struct LessonResultEvent {
    std::uint64_t id = 0;
    LessonResult lesson;
    std::vector<std::string> warnings;
};

// One run of a survey, as it finishes.
struct SurveyStepEvent {
    std::uint64_t id = 0;
    int step = 0;
    int steps = 0;
    std::string label;
    RunResult result;
};

// The survey as a whole: the card's "survey" block (surveyToJson), kept whole as the card
// holds it, and the reading thread's warnings. The card is the worker's context (its hello),
// the steps' results and this block.
struct SurveyResultEvent {
    std::uint64_t id = 0;
    nlohmann::json survey;
    std::vector<std::string> warnings;
};

// The answer to `processes`: every process, busiest first, sampled over `seconds`.
struct ProcessesEvent {
    std::uint64_t id = 0;
    double seconds = 0;
    std::vector<ProcessActivity> processes;
};

// One interval of a `watch` (the line `ctxscope-cli watch --json` writes, plus the id).
struct WatchSampleEvent {
    std::uint64_t id = 0;
    WatchSample sample;
};

// A lean watch's interval (watch_delta): WatchDeltaEvent in watch_delta.h, which
// WatchDeltaDecoder turns back into the whole sample.

// A watch's last line: at its duration, on `cancel`, or when the process ended (`ending`).
struct WatchSummaryEvent {
    std::uint64_t id = 0;
    WatchSummary summary;
};

// The answer to `pin`: each thread's affinity before and after.
struct PinnedEvent {
    std::uint64_t id = 0;
    std::vector<PinChange> changes;
};

struct CancelledEvent {
    std::uint64_t id = 0;
};

struct ErrorEvent {
    std::optional<std::uint64_t> id; // none: the line it answers could not be read
    std::string message;
};

struct ByeEvent { };

using Event = std::variant<HelloEvent, ProgressEvent, SamplesEvent, ResultEvent, TraceEventsEvent, SweepPointEvent,
    SweepResultEvent, MatrixCellEvent, MatrixResultEvent, LessonStepEvent, LessonResultEvent, SurveyStepEvent,
    SurveyResultEvent, ProcessesEvent, WatchSampleEvent, WatchSummaryEvent, PinnedEvent, CancelledEvent, ErrorEvent,
    ByeEvent, WatchDeltaEvent>;

// The command an event answers; none for hello, bye and an error about an unreadable line.
std::optional<std::uint64_t> commandIdOf(const Event& event);

// One line, no newline, within kMaxLineBytes (results and matrices leave out what was
// already streamed, and say how much).
std::string eventLine(const Event& event);

// Why a line is not an event.
struct EventError {
    enum class Kind {
        NotAMessage, // not a JSON object with a string "type", or too long or too deep
        UnknownType, // a message of a type this version does not know
        Malformed, // a known type whose fields could not be read
    };
    Kind kind = Kind::NotAMessage;
    std::string type; // the message's type, when it had one
    std::optional<std::uint64_t> id; // its id, when it had one
    // For a message that carries what a command yields (a result, a sweep point or the
    // sweep, a matrix run or the matrix): what was lost, e.g. "sweep point"; else empty.
    std::string lost;
    std::string message; // why, in words
};

std::variant<Event, EventError> parseEvent(std::string_view line);

} // namespace ctxscope::protocol
