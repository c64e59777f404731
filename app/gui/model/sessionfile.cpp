// SPDX-License-Identifier: MIT
#include "sessionfile.h"

#include "loadedfile.h"

#include "ctxscope/events.h"
#include "ctxscope/protocol.h"
#include "ctxscope/results_file.h"

namespace ctxscope::gui {

using nlohmann::json;

namespace {

json resultsArray(const std::vector<RunResult>& runs)
{
    json out = json::array();
    for (const RunResult& r : runs)
        out.push_back(resultToJson(r, true));
    return out;
}

json resultsArray(const std::vector<std::shared_ptr<const RunResult>>& runs)
{
    json out = json::array();
    for (const auto& r : runs)
        out.push_back(resultToJson(*r, true));
    return out;
}

// A context and its runs, read as "Open results" reads them (an empty list is allowed here).
Expected<ResultsFile> readPart(const json& context, const json& benchmarks, const std::string& where)
{
    auto ctx = reportContextFromJson(context);
    auto results = ctx ? resultsFromJson(benchmarks) : Expected<std::vector<RunResult>>(ctx.error());
    if (!results)
        return makeError(where + ": " + results.error().message);
    return ResultsFile { std::move(*ctx), std::move(*results) };
}

const json& field(const json& object, const char* key, json::value_t kind, const std::string& where, std::string& error)
{
    static const json null;
    if (!error.empty())
        return null;
    if (!object.is_object() || !object.contains(key)) {
        error = "missing field '" + where + key + "'";
        return null;
    }
    const json& v = object[key];
    const bool ok = kind == json::value_t::number_integer ? v.is_number_integer() : v.type() == kind;
    if (!ok)
        error = "field '" + where + key + "' has the wrong type";
    return ok ? v : null;
}

json cachesOf(const SweepCurves& sweep)
{
    SweepResult result; // the engine writes caches from a sweep result
    result.caches = sweep.caches;
    return sweepCachesToJson(result);
}

json lessonsToJson(const std::vector<LessonRecord>& lessons)
{
    json out = json::array();
    for (const LessonRecord& l : lessons) {
        json steps = json::array();
        for (const LessonRecord::Step& step : l.steps)
            steps.push_back({ { "label", step.label }, { "outcome", step.outcome } });
        out.push_back({ { "id", l.id }, { "steps", std::move(steps) }, { "conclusion", l.conclusion },
            { "finished", l.finished } });
    }
    return out;
}

Expected<std::vector<LessonRecord>> lessonsFromJson(const json& lessons)
{
    std::vector<LessonRecord> out;
    std::string error;
    for (std::size_t i = 0; i < lessons.size(); ++i) {
        const std::string where = "lessons[" + std::to_string(i) + "].";
        const json& l = lessons[i];
        const json& id = field(l, "id", json::value_t::string, where, error);
        const json& steps = field(l, "steps", json::value_t::array, where, error);
        const json& conclusion = field(l, "conclusion", json::value_t::array, where, error);
        const json& finished = field(l, "finished", json::value_t::boolean, where, error);
        for (std::size_t k = 0; error.empty() && k < steps.size(); ++k) {
            const std::string at = where + "steps[" + std::to_string(k) + "].";
            (void)field(steps[k], "label", json::value_t::string, at, error);
            (void)field(steps[k], "outcome", json::value_t::string, at, error);
        }
        for (std::size_t k = 0; error.empty() && k < conclusion.size(); ++k)
            if (!conclusion[k].is_string())
                error = "field '" + where + "conclusion' should hold sentences";
        if (!error.empty())
            return makeError(error);
        LessonRecord record { id.get<std::string>(), {}, conclusion.get<std::vector<std::string>>(),
            finished.get<bool>() };
        for (const json& step : steps)
            record.steps.push_back({ step["label"].get<std::string>(), step["outcome"].get<std::string>() });
        out.push_back(std::move(record));
    }
    return out;
}

// The traced runs' events as trace_events messages of the worker protocol (columns: a few
// bytes an event), under the index of their run.
json traceWindowsToJson(const std::vector<std::shared_ptr<const TraceWindow>>& windows)
{
    json out = json::array();
    for (std::size_t i = 0; i < windows.size(); ++i) {
        if (!windows[i] || windows[i]->events.empty())
            continue;
        Trace trace;
        const auto& events = windows[i]->events;
        trace.events.assign(
            events.end() - static_cast<std::ptrdiff_t>(std::min(events.size(), kSessionTraceEvents)), events.end());
        trace.comms = windows[i]->comms;
        json lines = json::array();
        for (const std::string& line : protocol::traceEventsLines(0, trace, trace.events.size()))
            lines.push_back(json::parse(line));
        out.push_back({ { "run", i }, { "recorded", windows[i]->recorded }, { "trace_events", std::move(lines) } });
    }
    return out;
}

Status readTraceWindows(const json& windows, Session& s)
{
    std::size_t runs = s.runs.size();
    for (const SessionMachine& m : s.machines)
        runs += m.runs.size();
    s.traceWindows.assign(runs, nullptr);
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const std::string where = "trace_windows[" + std::to_string(i) + "]";
        const json& w = windows[i];
        if (!w.is_object() || !w.contains("run") || !w["run"].is_number_unsigned()
            || w["run"].get<std::size_t>() >= runs || !w.contains("trace_events") || !w["trace_events"].is_array())
            return makeError(where + ": needs \"run\" (the index of a run of this file) and \"trace_events\"");
        auto window = std::make_shared<TraceWindow>();
        for (const json& line : w["trace_events"]) {
            auto event = protocol::parseEvent(line.dump());
            const auto* read = std::get_if<protocol::Event>(&event);
            const auto* part = read ? std::get_if<protocol::TraceEventsEvent>(read) : nullptr;
            if (!part)
                return makeError(where + ".trace_events: "
                    + (read ? std::string("not a trace_events message")
                            : std::get<protocol::EventError>(event).message));
            if (part->first != window->events.size())
                return makeError(where + ".trace_events: its parts are out of order");
            window->events.insert(window->events.end(), part->events.begin(), part->events.end());
            window->comms.insert(part->comms.begin(), part->comms.end());
        }
        window->recorded = w.value("recorded", std::uint64_t { window->events.size() });
        s.traceWindows[w["run"].get<std::size_t>()] = std::move(window);
    }
    return {};
}

} // namespace

json sessionToJson(const Session& s)
{
    json sweeps = json::array();
    for (const auto& sweep : s.sweeps) {
        json points = json::array();
        for (const WorkingSetPoint& p : sweep->points)
            points.push_back(workingSetPointToJson(p, true));
        sweeps.push_back({ { "label", sweep->label.toStdString() }, { "benchmarks", std::move(points) },
            { "sweep", { { "caches", cachesOf(*sweep) } } } });
    }
    json matrices = json::array();
    for (const auto& m : s.matrices)
        matrices.push_back({ { "origin", m.origin.toStdString() }, { "matrix", matrixToJson(*m.matrix) },
            { "benchmarks", resultsArray(m.matrix->runs) } });
    json compared = json::array();
    for (std::size_t i = 0; i < s.compared.size(); ++i)
        compared.push_back({ { "origin", s.compared[i].origin.toStdString() },
            { "context", i < s.comparedContexts.size() ? s.comparedContexts[i] : json::object() },
            { "benchmarks", resultsArray(s.compared[i].results) } });
    json out { { "ctxscope_session", kSessionFormatVersion }, { "topology_xml", s.topologyXml },
        { "context", s.context }, { "sysinfo", s.sysinfo }, { "benchmarks", resultsArray(s.runs) },
        { "sweeps", std::move(sweeps) }, { "matrices", std::move(matrices) }, { "compare", std::move(compared) } };
    if (!s.lessons.empty())
        out["lessons"] = lessonsToJson(s.lessons);
    if (!s.machines.empty()) {
        json machines = json::array();
        for (const SessionMachine& m : s.machines)
            machines.push_back({ { "machine", m.name }, { "topology_xml", m.topologyXml }, { "context", m.context },
                { "benchmarks", resultsArray(m.runs) } });
        out["machines"] = std::move(machines);
    }
    if (json windows = traceWindowsToJson(s.traceWindows); !windows.empty())
        out["trace_windows"] = std::move(windows);
    if (!s.machineCards.empty()) {
        json cards = json::array();
        for (const MachineCardEntry& c : s.machineCards)
            cards.push_back({ { "label", c.card->label }, { "card", c.json } });
        out["machine_cards"] = std::move(cards);
    }
    return out;
}

Expected<Session> sessionFromJson(const std::string& text)
{
    if (Status checked = checkJsonDocument(text, "session file"); !checked)
        return checked.error();
    const json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded())
        return makeError("not valid JSON (truncated or not a session file)");
    return sessionFromDocument(doc);
}

Expected<Session> sessionFromDocument(const json& doc)
{
    std::string error;
    const json& version = field(doc, "ctxscope_session", json::value_t::number_integer, "", error);
    if (error.empty() && (version.get<int>() < 1 || version.get<int>() > kSessionFormatVersion))
        return makeError("session format version " + version.dump() + "; this ctxscope reads version "
            + std::to_string(kSessionFormatVersion));
    const json& xml = field(doc, "topology_xml", json::value_t::string, "", error);
    const json& context = field(doc, "context", json::value_t::object, "", error);
    const json& sysinfo = field(doc, "sysinfo", json::value_t::object, "", error);
    const json& runs = field(doc, "benchmarks", json::value_t::array, "", error);
    const json& sweeps = field(doc, "sweeps", json::value_t::array, "", error);
    const json& matrices = field(doc, "matrices", json::value_t::array, "", error);
    const json& compared = field(doc, "compare", json::value_t::array, "", error);
    if (!error.empty())
        return makeError(error);
    Session s;
    s.topologyXml = xml.get<std::string>();
    s.context = context;
    s.sysinfo = sysinfo;
    auto own = readPart(s.context, runs, "benchmarks");
    if (!own)
        return own.error();
    s.runs = std::move(own->results);
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
        const std::string where = "sweeps[" + std::to_string(i) + "]";
        auto sweep = sweepFromDocument(sweeps[i], {});
        if (!sweep || !*sweep)
            return makeError(where + ": " + (sweep ? std::string("not a working-set sweep") : sweep.error().message));
        auto named = std::make_shared<SweepCurves>(**sweep);
        named->label = QString::fromStdString(sweeps[i].value("label", std::string()));
        s.sweeps.push_back(std::move(named));
    }
    for (std::size_t i = 0; i < matrices.size(); ++i) {
        const std::string where = "matrices[" + std::to_string(i) + "].";
        const json& m = matrices[i];
        const json& body = field(m, "matrix", json::value_t::object, where, error);
        const json& mruns = field(m, "benchmarks", json::value_t::array, where, error);
        if (!error.empty())
            return makeError(error);
        auto matrix = matrixFromJson(body);
        auto part = readPart(s.context, mruns, where + "benchmarks");
        if (!matrix || !part)
            return makeError(!matrix ? where + "matrix: " + matrix.error().message : part.error().message);
        matrix->runs = std::move(part->results);
        s.matrices.push_back({ std::make_shared<const MatrixResult>(std::move(*matrix)),
            QString::fromStdString(m.value("origin", std::string())) });
    }
    for (std::size_t i = 0; i < compared.size(); ++i) {
        const std::string where = "compare[" + std::to_string(i) + "].";
        const json& c = compared[i];
        const json& theirs = field(c, "context", json::value_t::object, where, error);
        const json& cruns = field(c, "benchmarks", json::value_t::array, where, error);
        if (!error.empty())
            return makeError(error);
        auto part = readPart(theirs, cruns, where + "benchmarks");
        if (!part)
            return part.error();
        s.compared.push_back(compareSource(*part, QString::fromStdString(c.value("origin", std::string()))));
        s.comparedContexts.push_back(theirs);
    }
    if (doc.contains("lessons")) {
        const json& lessons = field(doc, "lessons", json::value_t::array, "", error);
        if (!error.empty())
            return makeError(error);
        auto records = lessonsFromJson(lessons);
        if (!records)
            return records.error();
        s.lessons = std::move(*records);
    }
    if (doc.contains("machines")) {
        const json& machines = field(doc, "machines", json::value_t::array, "", error);
        if (!error.empty())
            return makeError(error);
        for (std::size_t i = 0; i < machines.size(); ++i) {
            const std::string where = "machines[" + std::to_string(i) + "].";
            const json& m = machines[i];
            const json& name = field(m, "machine", json::value_t::string, where, error);
            const json& mxml = field(m, "topology_xml", json::value_t::string, where, error);
            const json& theirs = field(m, "context", json::value_t::object, where, error);
            const json& mruns = field(m, "benchmarks", json::value_t::array, where, error);
            if (!error.empty())
                return makeError(error);
            const std::string& named = name.get<std::string>();
            if (named.empty())
                return makeError(where + "machine: empty (a machine needs its name)");
            if (named.find_first_of(" \t\n()") != std::string::npos)
                return makeError(where + "machine: '" + named + "' is not a host as ssh takes one");
            auto part = readPart(theirs, mruns, where + "benchmarks");
            if (!part)
                return part.error();
            s.machines.push_back(
                { name.get<std::string>(), mxml.get<std::string>(), theirs, std::move(part->results) });
        }
    }
    if (doc.contains("trace_windows")) {
        const json& windows = field(doc, "trace_windows", json::value_t::array, "", error);
        if (!error.empty())
            return makeError(error);
        if (Status read = readTraceWindows(windows, s); !read)
            return read.error();
    }
    if (doc.contains("machine_cards")) {
        const json& cards = field(doc, "machine_cards", json::value_t::array, "", error);
        if (!error.empty())
            return makeError(error);
        for (std::size_t i = 0; i < cards.size(); ++i) {
            const std::string where = "machine_cards[" + std::to_string(i) + "].";
            const json& label = field(cards[i], "label", json::value_t::string, where, error);
            const json& card = field(cards[i], "card", json::value_t::object, where, error);
            if (!error.empty())
                return makeError(error);
            auto entry = machineCardEntry(card, QString::fromStdString(label.get<std::string>()));
            if (!entry)
                return makeError(where + "card: " + entry.error().message);
            s.machineCards.push_back(std::move(*entry));
        }
    }
    return s;
}

} // namespace ctxscope::gui
