// SPDX-License-Identifier: MIT
// One worker line into an event (events.h): the only place a controller's side of the
// stream names the fields of its lines (the values in them are read by their own readers:
// value_json.h, and report/ for a thread's "sched" block).
#include "ctxscope/events.h"

#include "ctxscope/protocol.h"
#include "ctxscope/topology.h"
#include "ctxscope/value_json.h"
#include "protocol/parse.h"
#include "protocol/rows_text.h"
#include "report/json_fields.h"
#include "report/sched_json.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>

namespace ctxscope::protocol {

using nlohmann::json;
using report::eachObject;
using report::FieldReader;
using report::nonNegative;
using report::sentences;
using report::taskId;

namespace {

int intField(FieldReader& in, const char* key) { return static_cast<int>(in.countUpTo(key, INT_MAX)); }

std::optional<int> optInt(FieldReader& in, const char* key)
{
    const auto v = in.optCount(key);
    if (v && *v > INT_MAX)
        in.fail("field '" + in.where(key) + "' is too large");
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

// A value read by one of value_json.h's readers: its error becomes the reader's.
template <typename T> T take(FieldReader& in, Expected<T> value)
{
    if (!value) {
        in.fail(value.error().message);
        return T {};
    }
    return std::move(*value);
}

Event readHello(FieldReader& in)
{
    // Lenient: a worker of another version must still reach the version check.
    const json& j = in.object();
    HelloEvent e;
    e.protocol = j.value("protocol", 0);
    e.ctxscopeVersion = j.value("ctxscope_version", std::string("?"));
    e.pid = j.value("pid", 0L);
    e.topologyXml = j.value("topology_xml", std::string());
    if (auto context = j.find("context"); context != j.end() && context->is_object()) {
        e.context = *context;
        if (auto host = context->find("host_name"); host != context->end() && host->is_string())
            e.hostName = host->get<std::string>();
    }
    if (auto benches = j.find("benchmarks"); benches != j.end() && benches->is_array())
        for (const json& b : *benches)
            if (b.is_object())
                e.benchmarks.push_back({ b.value("name", std::string()), b.value("op", std::string()),
                    b.value("min_tasks", 1), b.value("max_tasks", 1), b.value("process_mode", false) });
    e.tracing = j.value("tracing", std::string());
    e.bpf = j.value("bpf", std::string());
    return e;
}

Event readProgress(FieldReader& in)
{
    ProgressEvent e;
    e.id = in.count("id");
    e.stage = in.optString("stage").value_or("");
    e.fraction = in.optNumber("fraction").value_or(0);
    e.repetition = optInt(in, "repetition");
    e.repetitions = optInt(in, "repetitions");
    e.point = optInt(in, "point");
    e.points = optInt(in, "points");
    e.wsBytes = in.optCount("ws_bytes");
    e.pair = optInt(in, "pair");
    e.pairs = optInt(in, "pairs");
    if (const json* cpus = in.optArray("cpus")) {
        if (cpus->size() == 2 && (*cpus)[0].is_number_integer() && (*cpus)[1].is_number_integer())
            e.cpus = std::pair((*cpus)[0].get<int>(), (*cpus)[1].get<int>());
        else
            in.fail("field 'cpus' should be two CPU numbers");
    }
    e.step = optInt(in, "step");
    e.steps = optInt(in, "steps");
    return e;
}

Event readSamples(FieldReader& in)
{
    SamplesEvent e;
    e.id = in.count("id");
    e.repetition = optInt(in, "repetition").value_or(0);
    e.first = in.optCount("first").value_or(0);
    const json& values = in.array("ns_per_op");
    e.nsPerOp.reserve(values.size());
    for (const json& v : values) {
        if (!v.is_number()) {
            in.fail("field 'ns_per_op' should hold numbers");
            break;
        }
        e.nsPerOp.push_back(v.get<double>());
    }
    return e;
}

Event readResult(FieldReader& in)
{
    ResultEvent e;
    e.id = in.count("id");
    const json& entry = in.object("result");
    if (!in.ok())
        return e;
    e.result = take(in, resultFromJson(entry));
    e.samplesOmitted = entry.value("samples_omitted", std::size_t { 0 });
    if (const json* ab = in.optObject("ab")) {
        FieldReader a(*ab, in.where("ab"));
        const std::string side = a.string("side");
        if (side == "as_is") {
            e.asIs = true;
        } else if (side == "with") {
            ConditionAb c;
            c.condition = a.string("condition");
            c.ratio = a.number("ratio");
            c.low = a.number("low");
            c.high = a.number("high");
            c.verdict = a.string("verdict");
            c.sentence = a.string("sentence");
            c.movedSteps = sentences(a, "moved_steps");
            e.ab = std::move(c);
        } else if (a.ok()) {
            a.fail("field '" + a.where("side") + "' should be \"as_is\" or \"with\"");
        }
        in.absorb(a);
    }
    return e;
}

// One column of trace_events: `size` whole numbers from `min` to `max`.
std::vector<std::int64_t> column(FieldReader& in, const char* key, std::size_t size, std::int64_t min, std::int64_t max)
{
    std::vector<std::int64_t> out;
    const json& list = in.array(key);
    if (!in.ok())
        return out;
    if (list.size() != size) {
        in.fail("field '" + in.where(key) + "' holds " + std::to_string(list.size()) + " values, not "
            + std::to_string(size));
        return out;
    }
    out.reserve(size);
    for (const json& v : list) {
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
            || v.get<std::int64_t>() < min || v.get<std::int64_t>() > max) {
            in.fail("field '" + in.where(key) + "' should hold whole numbers from " + std::to_string(min) + " to "
                + std::to_string(max));
            return {};
        }
        out.push_back(v.get<std::int64_t>());
    }
    return out;
}

Event readTraceEvents(FieldReader& in)
{
    TraceEventsEvent e;
    e.id = in.count("id");
    e.first = in.count("first");
    e.window = in.count("window");
    e.recorded = in.count("recorded");
    // The kinds by name, so the numbers in "kind" mean what the writer meant.
    std::vector<TraceEventKind> kinds;
    for (const json& name : in.array("kinds")) {
        const auto& names = detail::traceKindNames();
        const auto known = std::find_if(names.begin(), names.end(),
            [&](const std::string& k) { return name.is_string() && name.get<std::string>() == k; });
        if (known == names.end()) {
            in.fail("field 'kinds' names an event this version does not know: " + name.dump());
            return e;
        }
        kinds.push_back(static_cast<TraceEventKind>(known - names.begin()));
    }
    const std::uint64_t t0 = in.count("t0_ns");
    const std::size_t n = in.ok() ? in.array("dt_ns").size() : 0;
    const auto dt = column(in, "dt_ns", n, 0, INT64_MAX);
    const auto cpu = column(in, "cpu", n, -1, INT32_MAX);
    const auto kind = column(in, "kind", n, 0, static_cast<std::int64_t>(kinds.size()) - 1);
    const auto pid = column(in, "pid", n, INT32_MIN, INT32_MAX);
    const auto other = column(in, "other", n, INT32_MIN, INT32_MAX);
    const auto aux = column(in, "aux", n, INT32_MIN, INT32_MAX);
    const auto value = column(in, "value", n, INT64_MIN, INT64_MAX);
    if (!in.ok())
        return e;
    e.events.reserve(n);
    std::uint64_t ns = t0;
    for (std::size_t i = 0; i < n; ++i) {
        ns += static_cast<std::uint64_t>(dt[i]);
        e.events.push_back(TraceEvent { ns, static_cast<std::int32_t>(cpu[i]), static_cast<std::int32_t>(pid[i]),
            static_cast<std::int32_t>(other[i]), static_cast<std::int32_t>(aux[i]), value[i],
            kinds[static_cast<std::size_t>(kind[i])] });
    }
    for (const auto& [task, name] : in.object("comms").items()) {
        char* end = nullptr;
        const long id = std::strtol(task.c_str(), &end, 10);
        if (task.empty() || *end != '\0' || id < 0 || id > INT32_MAX || !name.is_string()) {
            in.fail("field 'comms' should map task ids to names");
            break;
        }
        e.comms[static_cast<int>(id)] = name.get<std::string>();
    }
    return e;
}

Event readSweepPoint(FieldReader& in)
{
    SweepPointEvent e;
    e.id = in.count("id");
    e.index = intField(in, "index");
    e.points = intField(in, "points");
    const json& point = in.object("point");
    if (in.ok())
        e.point = take(in, workingSetPointFromJson(point));
    return e;
}

Event readSweepResult(FieldReader& in)
{
    SweepResultEvent e;
    e.id = in.count("id");
    const json& sweep = in.object("sweep");
    if (in.ok())
        e.sweep = take(in, sweepFromJson(sweep));
    return e;
}

Event readMatrixCell(FieldReader& in)
{
    MatrixCellEvent e;
    e.id = in.count("id");
    e.index = intField(in, "index");
    e.pairs = intField(in, "pairs");
    if (const json* cell = in.optObject("cell"))
        e.cell = take(in, matrixCellFromJson(*cell));
    if (const json* result = in.optObject("result"))
        e.result = take(in, resultFromJson(*result));
    e.error = in.optString("error").value_or("");
    return e;
}

Event readMatrixResult(FieldReader& in)
{
    MatrixResultEvent e;
    e.id = in.count("id");
    const json& matrix = in.object("matrix");
    if (!in.ok())
        return e;
    e.matrix = take(in, matrixFromJson(matrix));
    e.filledOmitted = matrix.value("filled_omitted", std::size_t { 0 });
    e.warnings = sentences(in, "warnings");
    return e;
}

Event readLessonStep(FieldReader& in)
{
    LessonStepEvent e;
    e.id = in.count("id");
    e.step = intField(in, "step");
    e.steps = intField(in, "steps");
    e.label = in.string("label");
    if (const json* result = in.optObject("result"))
        e.result = take(in, resultFromJson(*result));
    if (const json* phase = in.optObject("phase"))
        e.phase = take(in, lessonPhaseFromJson(*phase, "phase"));
    e.error = in.optString("error").value_or("");
    return e;
}

Event readLessonResult(FieldReader& in)
{
    LessonResultEvent e;
    e.id = in.count("id");
    const json& lesson = in.object("lesson");
    if (in.ok())
        e.lesson = take(in, lessonFromJson(lesson));
    e.warnings = sentences(in, "warnings");
    return e;
}

Event readSurveyStep(FieldReader& in)
{
    SurveyStepEvent e;
    e.id = in.count("id");
    e.step = intField(in, "step");
    e.steps = intField(in, "steps");
    e.label = in.string("label");
    const json& result = in.object("result");
    if (in.ok())
        e.result = take(in, resultFromJson(result));
    return e;
}

Event readSurveyResult(FieldReader& in)
{
    SurveyResultEvent e;
    e.id = in.count("id");
    e.survey = in.object("survey");
    e.warnings = sentences(in, "warnings");
    return e;
}

// A CPU list as formatCpuList writes it ("0-3,5"; "" for none).
std::vector<int> cpuList(FieldReader& in, const char* key)
{
    const std::string text = in.string(key);
    if (text.empty())
        return {};
    auto list = parseCpuList(text);
    if (!list)
        in.fail("field '" + in.where(key) + "' should be a CPU list such as 0-3,5");
    return list ? *list : std::vector<int> {};
}

std::optional<double> optRate(FieldReader& in, const char* key)
{
    const auto v = in.optNumber(key);
    if (v && *v < 0)
        in.fail("field '" + in.where(key) + "' should not be negative");
    return v;
}

Event readProcesses(FieldReader& in)
{
    ProcessesEvent e;
    e.id = in.count("id");
    e.seconds = nonNegative(in, "interval_s");
    eachObject(in, "processes", [&](FieldReader& p) {
        ProcessActivity a;
        a.pid = taskId(p, "pid");
        a.name = p.string("name");
        const auto uid = p.optNumber("uid").value_or(-1);
        a.uid = uid >= -1 && uid < 4294967296.0 ? static_cast<long>(uid) : -1;
        a.own = p.boolean("own");
        a.kernel = p.boolean("kernel");
        a.threads = intField(p, "threads");
        a.voluntaryPerS = nonNegative(p, "voluntary_per_s");
        a.involuntaryPerS = nonNegative(p, "involuntary_per_s");
        e.processes.push_back(std::move(a));
    });
    return e;
}

// What watch_sample and watch_summary share: the process (pid, name, seconds since the watch
// began) and, for each thread, its identity and rates.
template <typename Watch> void readWatchedProcess(FieldReader& in, Watch& w)
{
    w.pid = taskId(in, "pid");
    w.name = in.string("name");
    w.seconds = nonNegative(in, "seconds");
    // What gave the figures (absent from an older worker's line: /proc, or ftrace with sched blocks).
    if (const auto backend = in.optString("backend")) {
        if (const auto b = schedBackendFrom(*backend))
            w.backend = *b;
        else
            in.fail("field '" + in.where("backend") + "' should be bpf, ftrace or proc");
    }
}

template <typename Thread> void readThreadId(FieldReader& t, Thread& r)
{
    r.tid = taskId(t, "tid");
    r.name = t.string("name");
}

template <typename Thread> void readThreadRates(FieldReader& t, Thread& r, bool lean = false)
{
    if (const json* sched = t.optObject("sched")) {
        FieldReader block(*sched, t.where("sched"));
        r.sched = report::threadSchedFromJson(block, lean);
        t.absorb(block);
    }
    r.voluntaryPerS = nonNegative(t, "voluntary_per_s");
    r.involuntaryPerS = nonNegative(t, "involuntary_per_s");
    r.cpuShare = nonNegative(t, "cpu_share");
    r.runqueueWaitPerS = optRate(t, "runqueue_wait_per_s");
    r.migrationsPerS = nonNegative(t, "migrations_per_s");
    r.migrationsLowerBound = t.boolean("migrations_lower_bound");
}

std::vector<long> threadIds(FieldReader& in, const char* key)
{
    std::vector<long> tids;
    for (const json& tid : in.array(key)) {
        if (!tid.is_number_unsigned() || tid.get<std::uint64_t>() > 1U << 30) {
            in.fail("field '" + in.where(key) + "' should hold thread ids");
            break;
        }
        tids.push_back(tid.get<long>());
    }
    return tids;
}

// A watch_sample's fields, or a watch_delta's (`lean`: its threads' sched blocks lean).
void readWatchSampleFields(FieldReader& in, WatchSample& s, bool lean)
{
    readWatchedProcess(in, s);
    s.kernel = in.optBoolean("kernel").value_or(false); // absent from an older worker's line
    s.intervalS = nonNegative(in, "interval_s");
    s.monoNs = in.optCount("mono_ns").value_or(0); // the clock of a traced watch's events
    s.backendFallback = in.optString("backend_fallback").value_or(""); // why not bpf, where it is not
    eachObject(in, "threads", [&](FieldReader& t) {
        ThreadRates r;
        readThreadId(t, r);
        const std::string state = t.string("state");
        if (state.size() != 1)
            t.fail("field '" + t.where("state") + "' should be one letter");
        r.state = state.empty() ? '?' : state[0];
        if (const auto cpu = t.optCount("cpu")) {
            if (*cpu > 65535)
                t.fail("field '" + t.where("cpu") + "' is not a CPU number");
            r.cpu = static_cast<int>(*cpu);
        }
        r.affinity = cpuList(t, "affinity");
        readThreadRates(t, r, lean);
        s.threads.push_back(std::move(r));
    });
    s.appeared = threadIds(in, "appeared");
    eachObject(in, "ended", [&](FieldReader& t) {
        s.ended.push_back(EndedThread { taskId(t, "tid"), t.string("name") });
    });
    FieldReader system = in.child("system");
    s.systemSwitchesPerS = optRate(system, "context_switches_per_s");
    eachObject(system, "cpus", [&](FieldReader& c) {
        s.cpus.push_back(CpuBusy { static_cast<int>(c.countUpTo("cpu", 65535)), nonNegative(c, "busy_share") });
    });
    in.absorb(system);
}

Event readWatchSample(FieldReader& in)
{
    WatchSampleEvent e;
    e.id = in.count("id");
    readWatchSampleFields(in, e.sample, false);
    return e;
}

// A value of a document, asked what a row's reader asks (RowView's questions, rows_text.h).
class JsonView {
public:
    explicit JsonView(const json& j)
        : m_j(&j)
    {
    }
    bool isArray() const { return m_j->is_array(); }
    std::size_t size() const { return m_j->is_array() ? m_j->size() : 0; }
    JsonView operator[](std::size_t i) const { return JsonView((*m_j)[i]); }
    bool isNull() const { return m_j->is_null(); }
    bool isBoolean() const { return m_j->is_boolean(); }
    bool boolean() const { return m_j->get<bool>(); }
    bool isNumber() const { return m_j->is_number(); }
    bool isUnsigned() const { return m_j->is_number_unsigned(); }
    double number() const { return m_j->get<double>(); }
    std::uint64_t unsignedValue() const { return m_j->get<std::uint64_t>(); }
    std::optional<char> letter() const
    {
        if (!m_j->is_string() || m_j->get_ref<const std::string&>().size() != 1)
            return std::nullopt;
        return m_j->get_ref<const std::string&>()[0];
    }

private:
    const json* m_j;
};

// A row of a watch_delta's `rows` (protocol.md; appendWatchSampleLine writes it): its values by
// position, each held to what the same field of a thread object must be. `V`: a JsonView, or a
// RowView where the rows are read from the line's text.
template <typename V> class RowReader {
public:
    explicit RowReader(V row, std::size_t size)
        : m_row(row)
        , m_ok(row.isArray() && row.size() == size)
    {
    }
    bool ok() const { return m_ok; }
    V at(std::size_t i) const { return m_row[i]; }
    double rate(std::size_t i)
    {
        const V v = at(i);
        m_ok = m_ok && v.isNumber() && v.number() >= 0;
        return m_ok ? v.number() : 0;
    }
    std::optional<double> optRate(std::size_t i)
    {
        if (at(i).isNull())
            return std::nullopt;
        return rate(i);
    }
    std::uint64_t count(std::size_t i)
    {
        const V v = at(i);
        m_ok = m_ok && v.isUnsigned();
        return m_ok ? v.unsignedValue() : 0;
    }
    bool boolean(std::size_t i)
    {
        const V v = at(i);
        m_ok = m_ok && v.isBoolean();
        return m_ok && v.boolean();
    }
    void check(bool fine) { m_ok = m_ok && fine; }

private:
    V m_row;
    bool m_ok;
};

template <typename V> std::optional<ThreadSched> briefSched(V row)
{
    RowReader r(row, 10);
    if (!r.ok())
        return std::nullopt;
    ThreadSched s;
    s.switchIns = r.count(0);
    s.unrecordedSwitchIns = r.count(1);
    s.lostEvents = r.count(2);
    s.wake.count = r.count(3);
    s.wake.meanNs = r.rate(4);
    s.wake.p50Ns = r.rate(5);
    s.wake.p99Ns = r.rate(6);
    s.wake.maxNs = r.rate(7);
    s.wake.fromBins = r.boolean(8);
    if (!r.at(9).isNull()) {
        RowReader q(r.at(9), 5);
        if (!q.ok())
            return std::nullopt;
        s.fromEnqueue.known = true;
        s.fromEnqueue.count = q.count(0);
        s.fromEnqueue.meanNs = q.rate(1);
        s.fromEnqueue.p50Ns = q.rate(2);
        s.fromEnqueue.p99Ns = q.rate(3);
        const V bins = q.at(4);
        q.check(bins.isArray() && bins.size() <= 64);
        for (std::size_t i = 0; q.ok() && i < bins.size(); ++i) {
            q.check(bins[i].isUnsigned());
            if (q.ok())
                s.fromEnqueue.log2UsHist.push_back(bins[i].unsignedValue());
        }
        if (!q.ok())
            return std::nullopt;
    }
    if (!r.ok())
        return std::nullopt;
    return s;
}

template <typename V> std::optional<ThreadRates> briefThread(V row)
{
    RowReader r(row, 10);
    if (!r.ok())
        return std::nullopt;
    ThreadRates t;
    const V tid = r.at(0);
    r.check(tid.isUnsigned() && tid.unsignedValue() <= 1U << 30);
    const std::optional<char> state = r.at(1).letter();
    r.check(state.has_value());
    const V cpu = r.at(2);
    r.check(cpu.isNull() || (cpu.isUnsigned() && cpu.unsignedValue() <= 65535));
    if (!r.ok())
        return std::nullopt;
    t.tid = static_cast<long>(tid.unsignedValue());
    t.state = *state;
    if (!cpu.isNull())
        t.cpu = static_cast<int>(cpu.unsignedValue());
    t.cpuShare = r.rate(3);
    t.voluntaryPerS = r.rate(4);
    t.involuntaryPerS = r.rate(5);
    t.runqueueWaitPerS = r.optRate(6);
    t.migrationsPerS = r.rate(7);
    t.migrationsLowerBound = r.boolean(8);
    if (!r.at(9).isNull()) {
        t.sched = briefSched(r.at(9));
        r.check(t.sched.has_value());
    }
    if (!r.ok())
        return std::nullopt;
    return t;
}

Event readWatchDelta(FieldReader& in)
{
    WatchDeltaEvent e;
    e.id = in.count("id");
    readWatchSampleFields(in, e.sample, true);
    e.gone = threadIds(in, "gone");
    e.whole = in.optBoolean("whole").value_or(false);
    if (const json* rows = in.optArray("rows"))
        for (const json& row : *rows) {
            auto t = briefThread(JsonView(row));
            if (!t) {
                in.fail("field '" + in.where("rows")
                    + "' should hold rows [tid, state, cpu, cpu_share, voluntary_per_s, involuntary_per_s, "
                      "runqueue_wait_per_s, migrations_per_s, migrations_lower_bound, sched] (docs/protocol.md)");
                break;
            }
            e.brief.push_back(std::move(*t));
        }
    return e;
}

Event readWatchSummary(FieldReader& in)
{
    WatchSummaryEvent e;
    e.id = in.count("id");
    WatchSummary& s = e.summary;
    readWatchedProcess(in, s);
    s.samples = intField(in, "samples");
    s.ending = in.optString("ending").value_or("");
    eachObject(in, "threads", [&](FieldReader& t) {
        ThreadSummary r;
        readThreadId(t, r);
        r.seconds = nonNegative(t, "seconds");
        readThreadRates(t, r);
        r.cpusSeen = cpuList(t, "cpus_seen");
        r.affinity = cpuList(t, "affinity");
        r.ended = t.boolean("ended");
        s.threads.push_back(std::move(r));
    });
    return e;
}

Event readPinned(FieldReader& in)
{
    PinnedEvent e;
    e.id = in.count("id");
    eachObject(in, "changes", [&](FieldReader& c) {
        e.changes.push_back(
            PinChange { taskId(c, "tid"), c.string("name"), cpuList(c, "before"), cpuList(c, "after") });
    });
    return e;
}

Event readCancelled(FieldReader& in) { return CancelledEvent { in.count("id") }; }

Event readError(FieldReader& in)
{
    return ErrorEvent { detail::idOf(in.object()), in.optString("message").value_or("(no message)") };
}

Event readBye(FieldReader&) { return ByeEvent {}; }

struct Reader {
    Event (*read)(FieldReader&);
    const char* lost; // what a command loses when this message cannot be read
};

const std::map<std::string, Reader, std::less<>>& readers()
{
    static const std::map<std::string, Reader, std::less<>> table {
        { "hello", { readHello, "" } },
        { "progress", { readProgress, "" } },
        { "samples", { readSamples, "" } },
        { "result", { readResult, "result" } },
        { "trace_events", { readTraceEvents, "trace events" } },
        { "sweep_point", { readSweepPoint, "sweep point" } },
        { "sweep_result", { readSweepResult, "sweep" } },
        { "matrix_cell", { readMatrixCell, "matrix run" } },
        { "matrix_result", { readMatrixResult, "matrix" } },
        { "lesson_step", { readLessonStep, "" } },
        { "lesson_result", { readLessonResult, "" } },
        { "survey_step", { readSurveyStep, "survey run" } },
        { "survey_result", { readSurveyResult, "survey" } },
        { "processes", { readProcesses, "process list" } },
        { "watch_sample", { readWatchSample, "" } },
        { "watch_delta", { readWatchDelta, "" } },
        { "watch_summary", { readWatchSummary, "watch summary" } },
        { "pinned", { readPinned, "" } },
        { "cancelled", { readCancelled, "" } },
        { "error", { readError, "" } },
        { "bye", { readBye, "" } },
    };
    return table;
}

// Lines parseEvent read by its shortcut on this thread (detail::leanLinesRead).
thread_local std::uint64_t leanLines = 0;

// A line in the writer's form of a lean one: its keys in order, so that `"type":"watch_delta"`
// ends it, but for `,"whole":true`. Only such a line is worth the shortcut, which would otherwise
// scan every line of every kind (a trace_events line of up to 1 MiB) once more; any other line,
// a lean one spaced out included, is read whole.
bool endsAsLeanLine(std::string_view line)
{
    constexpr std::string_view type = R"("type":"watch_delta")";
    constexpr std::size_t tail = type.size() + std::string_view(R"(,"whole":true})").size();
    return line.substr(line.size() - std::min(line.size(), tail)).find(type) != std::string_view::npos;
}

// A lean line's rows read from its text (rows_text.h), the rest of it as a document; none where
// the rows reader declines or the rest is not a watch_delta that reads without fault, for
// parseEvent to read the line whole.
std::optional<Event> readLeanLine(std::string_view line)
{
    if (line.size() > kMaxLineBytes || !endsAsLeanLine(line))
        return std::nullopt;
    const auto rows = detail::topLevelArray(line, "rows");
    if (!rows)
        return std::nullopt;
    std::vector<ThreadRates> brief;
    detail::RowsText text(line.substr(rows->first, rows->second - rows->first));
    while (const auto row = text.next()) {
        auto t = briefThread(*row);
        if (!t)
            return std::nullopt;
        brief.push_back(std::move(*t));
    }
    if (text.declined())
        return std::nullopt;
    std::string rest;
    rest.reserve(line.size() - (rows->second - rows->first) + 2);
    rest.append(line.substr(0, rows->first)).append("[]").append(line.substr(rows->second));
    // The rows nest 4 levels below the `[]` that stands for them: within kMaxJsonDepth wherever rest is.
    const auto j = detail::parseObject(rest);
    if (!j || (*j)["type"] != "watch_delta")
        return std::nullopt;
    FieldReader in(*j, "");
    Event event = readWatchDelta(in);
    if (!in.ok())
        return std::nullopt;
    std::get<WatchDeltaEvent>(event).brief = std::move(brief);
    ++leanLines;
    return event;
}

} // namespace

namespace detail {

std::uint64_t leanLinesRead() { return leanLines; }

std::variant<Event, EventError> parseEventWhole(std::string_view line)
{
    auto j = detail::parseObject(line);
    if (!j)
        return EventError { EventError::Kind::NotAMessage, {}, std::nullopt, {}, j.error().message };
    EventError error { EventError::Kind::UnknownType, (*j)["type"].get<std::string>(), detail::idOf(*j), {}, {} };
    const auto reader = readers().find(error.type);
    if (reader == readers().end()) {
        error.message = "unknown message type '" + error.type + "'";
        return error;
    }
    FieldReader in(*j, "");
    Event event = reader->second.read(in);
    if (in.ok())
        return event;
    error.kind = EventError::Kind::Malformed;
    error.lost = reader->second.lost;
    error.message = in.error();
    return error;
}

} // namespace detail

std::variant<Event, EventError> parseEvent(std::string_view line)
{
    if (auto event = readLeanLine(line))
        return std::move(*event);
    return detail::parseEventWhole(line);
}

} // namespace ctxscope::protocol
