// SPDX-License-Identifier: MIT
// Worker events to lines (protocol.h has their shapes). Keys are written in nlohmann's
// sorted order, so a line parsed and written again is the same bytes.
#include "ctxscope/events.h"

#include "ctxscope/protocol.h"
#include "ctxscope/topology.h"
#include "ctxscope/value_json.h"
#include "protocol/parse.h"

namespace ctxscope::protocol {

using nlohmann::json;

namespace {

json message(std::string_view type, std::uint64_t id) { return { { "type", type }, { "id", id } }; }

template <typename T> void putIf(json& j, const char* key, const std::optional<T>& value)
{
    if (value)
        j[key] = *value;
}

json toJson(const HelloEvent& e)
{
    json benches = json::array();
    for (const BenchmarkListing& b : e.benchmarks)
        benches.push_back({ { "name", b.name }, { "op", b.op }, { "min_tasks", b.minTasks },
            { "max_tasks", b.maxTasks }, { "process_mode", b.processMode } });
    return { { "type", "hello" }, { "protocol", e.protocol }, { "ctxscope_version", e.ctxscopeVersion },
        { "pid", e.pid }, { "topology_xml", e.topologyXml }, { "context", e.context },
        { "benchmarks", std::move(benches) }, { "tracing", e.tracing }, { "bpf", e.bpf } };
}

json toJson(const ProgressEvent& e)
{
    json j = message("progress", e.id);
    j.update({ { "stage", e.stage }, { "fraction", e.fraction } });
    putIf(j, "repetition", e.repetition);
    putIf(j, "repetitions", e.repetitions);
    putIf(j, "point", e.point);
    putIf(j, "points", e.points);
    putIf(j, "ws_bytes", e.wsBytes);
    putIf(j, "pair", e.pair);
    putIf(j, "pairs", e.pairs);
    if (e.cpus)
        j["cpus"] = { e.cpus->first, e.cpus->second };
    putIf(j, "step", e.step);
    putIf(j, "steps", e.steps);
    return j;
}

json toJson(const SamplesEvent& e)
{
    json j = message("samples", e.id);
    j.update({ { "repetition", e.repetition }, { "first", e.first }, { "ns_per_op", e.nsPerOp } });
    return j;
}

// A result's side of a condition's A/B: {"side": "as_is"}, or the condition's side and the comparison.
json abToJson(const ResultEvent& e)
{
    if (e.asIs || !e.ab)
        return { { "side", "as_is" } };
    const ConditionAb& ab = *e.ab;
    return { { "side", "with" }, { "condition", ab.condition }, { "ratio", ab.ratio }, { "low", ab.low },
        { "high", ab.high }, { "verdict", ab.verdict }, { "sentence", ab.sentence }, { "moved_steps", ab.movedSteps } };
}

json toJson(const ResultEvent& e)
{
    json j = message("result", e.id);
    if (e.asIs || e.ab)
        j["ab"] = abToJson(e);
    if (e.samplesOmitted == 0) {
        j["result"] = resultToJson(e.result, true);
        if (j.dump().size() <= kMaxLineBytes)
            return j;
    }
    // A long run's raw samples would make a line its reader must refuse. They went out in
    // "samples" messages already, and the statistics and histogram cover every sample.
    json entry = resultToJson(e.result, false);
    entry["samples_omitted"] = e.samplesOmitted != 0 ? e.samplesOmitted : e.result.samples.size();
    j["result"] = std::move(entry);
    return j;
}

json toJson(const TraceEventsEvent& e)
{
    // Columns, each time a difference from the one before: about 30 bytes an event where
    // objects would take 100.
    json j = message("trace_events", e.id);
    j.update({ { "first", e.first }, { "window", e.window }, { "recorded", e.recorded },
        { "kinds", detail::traceKindNames() } });
    const std::uint64_t t0 = e.events.empty() ? 0 : e.events.front().ns;
    json dt = json::array(), cpu = json::array(), kind = json::array(), pid = json::array(), other = json::array(),
         aux = json::array(), value = json::array();
    std::uint64_t last = t0;
    for (const TraceEvent& ev : e.events) {
        dt.push_back(ev.ns - last);
        last = ev.ns;
        cpu.push_back(ev.cpu);
        kind.push_back(static_cast<int>(ev.kind));
        pid.push_back(ev.pid);
        other.push_back(ev.other);
        aux.push_back(ev.aux);
        value.push_back(ev.value);
    }
    json comms = json::object();
    for (const auto& [task, name] : e.comms)
        comms[std::to_string(task)] = name;
    j.update({ { "t0_ns", t0 }, { "dt_ns", std::move(dt) }, { "cpu", std::move(cpu) }, { "kind", std::move(kind) },
        { "pid", std::move(pid) }, { "other", std::move(other) }, { "aux", std::move(aux) },
        { "value", std::move(value) }, { "comms", std::move(comms) } });
    return j;
}

json toJson(const SweepPointEvent& e)
{
    json j = message("sweep_point", e.id);
    j.update({ { "index", e.index }, { "points", e.points }, { "point", workingSetPointToJson(e.point, false) } });
    return j;
}

json toJson(const SweepResultEvent& e)
{
    // Each point's summary is a few hundred bytes: even 16 points an octave up to 1 GiB fit.
    json j = message("sweep_result", e.id);
    j["sweep"] = sweepToJson(e.sweep, true);
    return j;
}

json toJson(const MatrixCellEvent& e)
{
    json j = message("matrix_cell", e.id);
    j.update({ { "index", e.index }, { "pairs", e.pairs } });
    if (e.cell) {
        j["cell"] = matrixCellToJson(*e.cell);
        if (e.result)
            j["result"] = resultToJson(*e.result, false);
    } else {
        j["cell"] = nullptr;
        j["error"] = e.error;
    }
    return j;
}

json toJson(const MatrixResultEvent& e)
{
    json j = message("matrix_result", e.id);
    j["matrix"] = matrixToJson(e.matrix);
    j["warnings"] = e.warnings;
    std::size_t omitted = e.filledOmitted;
    if (omitted == 0 && j.dump().size() > kMaxLineBytes) {
        // Hundreds of PUs filled by class make more cells than a line may hold; the measured
        // cells carry every class's value, so a reader with the topology can fill the rest.
        json measured = json::array();
        for (const MatrixCell& c : e.matrix.cells) {
            if (c.measured)
                measured.push_back(matrixCellToJson(c));
            else
                ++omitted;
        }
        j["matrix"]["cells"] = std::move(measured);
    }
    if (omitted != 0)
        j["matrix"]["filled_omitted"] = omitted;
    return j;
}

json toJson(const LessonStepEvent& e)
{
    json j = message("lesson_step", e.id);
    j.update({ { "step", e.step }, { "steps", e.steps }, { "label", e.label } });
    if (e.result)
        j["result"] = resultToJson(*e.result, false);
    else if (e.phase)
        j["phase"] = lessonPhaseToJson(*e.phase);
    else
        j["error"] = e.error;
    return j;
}

json toJson(const LessonResultEvent& e)
{
    json j = message("lesson_result", e.id);
    j["lesson"] = lessonToJson(e.lesson);
    j["warnings"] = e.warnings;
    return j;
}

json toJson(const SurveyStepEvent& e)
{
    json j = message("survey_step", e.id);
    j.update({ { "step", e.step }, { "steps", e.steps }, { "label", e.label },
        { "result", resultToJson(e.result, false) } });
    return j;
}

json toJson(const SurveyResultEvent& e)
{
    json j = message("survey_result", e.id);
    j["survey"] = e.survey;
    j["warnings"] = e.warnings;
    return j;
}

json toJson(const ProcessesEvent& e)
{
    json j = processesToJson(e.processes, e.seconds);
    j["id"] = e.id;
    return j;
}

json toJson(const PinnedEvent& e)
{
    json changes = json::array();
    for (const PinChange& c : e.changes)
        changes.push_back({ { "tid", c.tid }, { "name", c.name }, { "before", formatCpuList(c.before) },
            { "after", formatCpuList(c.after) } });
    json j = message("pinned", e.id);
    j["changes"] = std::move(changes);
    return j;
}

json toJson(const CancelledEvent& e) { return message("cancelled", e.id); }

json toJson(const ErrorEvent& e)
{
    json j { { "type", "error" }, { "message", e.message } };
    j["id"] = e.id ? json(*e.id) : json(nullptr);
    return j;
}

json toJson(const ByeEvent&) { return { { "type", "bye" } }; }

} // namespace

ProgressEvent progressEvent(std::uint64_t id, std::string stage, double fraction)
{
    ProgressEvent e;
    e.id = id;
    e.stage = std::move(stage);
    e.fraction = fraction;
    return e;
}

namespace {

std::string lineOf(const auto& e) { return toJson(e).dump(); }

// A watch's samples, the stream's bulk, and its summary straight to their lines: the same bytes
// as their JSON's dump() (events_test and watch_delta_test hold them to it), without the tree.
std::string lineOf(const WatchSampleEvent& e)
{
    std::string line;
    appendWatchSampleLine(line, e.sample, { .id = e.id });
    return line;
}

std::string lineOf(const WatchSummaryEvent& e)
{
    std::string line;
    appendWatchSummaryLine(line, e.summary, e.id);
    return line;
}

std::string lineOf(const WatchDeltaEvent& e)
{
    std::string line;
    appendWatchSampleLine(
        line, e.sample, { .id = e.id, .delta = true, .gone = e.gone, .whole = e.whole, .rows = e.brief });
    return line;
}

} // namespace

std::string eventLine(const Event& event)
{
    return std::visit([](const auto& e) { return lineOf(e); }, event);
}

std::optional<std::uint64_t> commandIdOf(const Event& event)
{
    return std::visit(
        [](const auto& e) -> std::optional<std::uint64_t> {
            using T = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<T, HelloEvent> || std::is_same_v<T, ByeEvent>)
                return std::nullopt;
            else
                return e.id;
        },
        event);
}

} // namespace ctxscope::protocol
