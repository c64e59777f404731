// SPDX-License-Identifier: MIT
// Controller -> worker: the commands and the benchmark spec they carry.
#include "ctxscope/protocol.h"

#include "protocol/parse.h"
#include "report/json_fields.h"

#include <cmath>
#include <cstdio>

namespace ctxscope::protocol {

using nlohmann::json;
using report::FieldReader;

namespace {

// Sizes, durations and counts: whole numbers from 0 to 2^62 (a JSON double holds them well
// enough); the engine checks the range it allows.
std::optional<std::uint64_t> optWholeNumber(FieldReader& in, const char* key, const char* unit)
{
    auto v = in.optNumber(key);
    if (!v)
        return std::nullopt;
    if (*v < 0 || *v > 0x1p62 || std::floor(*v) != *v) {
        in.fail("field '" + in.where(key) + "' should be a whole number of " + unit);
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(*v);
}

std::optional<std::uint64_t> optByteCount(FieldReader& in, const char* key) { return optWholeNumber(in, key, "bytes"); }

// Counts for the engine to check (it names the allowed range); only the shape is checked here.
std::optional<int> optInt(FieldReader& in, const char* key)
{
    auto v = in.optNumber(key);
    if (!v)
        return std::nullopt;
    if (std::floor(*v) != *v || *v < -1e6 || *v > 1e6) {
        in.fail("field '" + in.where(key) + "' should be a whole number");
        return std::nullopt;
    }
    return static_cast<int>(*v);
}

// An optional list of CPU numbers ("cpus", "keep_awake"); empty when absent.
std::vector<int> optCpuNumbers(FieldReader& in, const char* key)
{
    return in.optArray(key) ? report::cpuNumbers(in, key) : std::vector<int> {};
}

RunBudget optionsFrom(FieldReader& in)
{
    RunBudget o;
    o.minTimeSeconds = in.optNumber("min_time").value_or(o.minTimeSeconds);
    o.repetitions = optInt(in, "repetitions").value_or(o.repetitions);
    return o;
}

} // namespace

json specToJson(const BenchSpec& spec)
{
    json j { { "bench", spec.bench }, { "mode", std::string(toString(spec.mode)) }, { "cpus", spec.cpus },
        { "tasks", spec.tasks }, { "min_time", spec.minTimeSeconds }, { "repetitions", spec.repetitions },
        { "policy", std::string(toString(spec.policy)) }, { "ops_per_sample", spec.opsPerSample } };
    if (spec.relation)
        j["relation"] = std::string(toString(*spec.relation));
    if (spec.iterations)
        j["iterations"] = *spec.iterations;
    if (spec.wsBytes > 0)
        j["ws_bytes"] = spec.wsBytes;
    if (spec.spinNs)
        j["spin_ns"] = *spec.spinNs;
    if (!spec.keepAwakeCpus.empty())
        j["keep_awake"] = spec.keepAwakeCpus;
    if (spec.pmQosUs)
        j["pm_qos_us"] = *spec.pmQosUs;
    return j;
}

Expected<BenchSpec> specFromJson(const json& j)
{
    FieldReader in(j, "spec");
    BenchSpec spec;
    spec.bench = in.string("bench");
    if (auto mode = in.optString("mode")) {
        auto m = benchModeFromString(*mode);
        if (!m)
            in.fail("spec.mode should be thread or process, not '" + *mode + "'");
        spec.mode = m.value_or(BenchMode::Thread);
    }
    spec.cpus = optCpuNumbers(in, "cpus");
    if (auto rel = in.optString("relation")) {
        spec.relation = relationFromString(*rel);
        if (!spec.relation)
            in.fail("spec.relation is not a relation class: '" + *rel + "'");
    }
    if (auto tasks = in.optNumber("tasks"))
        spec.tasks = *tasks >= 0 && *tasks <= 1e6 ? static_cast<int>(*tasks) : -1;
    if (auto it = in.optNumber("iterations")) {
        if (*it < 0 || *it > 1e18)
            in.fail("spec.iterations is out of range");
        else
            spec.iterations = static_cast<std::uint64_t>(*it);
    }
    spec.minTimeSeconds = in.optNumber("min_time").value_or(spec.minTimeSeconds);
    if (auto reps = in.optNumber("repetitions"))
        spec.repetitions = *reps >= 0 && *reps <= 1e6 ? static_cast<int>(*reps) : -1;
    if (auto policy = in.optString("policy")) {
        auto p = schedPolicyFromString(*policy);
        if (!p)
            in.fail("spec.policy should be other or fifo, not '" + *policy + "'");
        spec.policy = p.value_or(SchedPolicy::Other);
    }
    if (auto k = in.optNumber("ops_per_sample"))
        spec.opsPerSample = *k >= 0 && *k <= 1e18 ? static_cast<std::uint64_t>(*k) : 0;
    spec.wsBytes = optByteCount(in, "ws_bytes").value_or(0);
    spec.spinNs = optWholeNumber(in, "spin_ns", "nanoseconds");
    // The conditions (run --keep-awake, --pm-qos-us): their shape here; the CPUs' and the hold's
    // own checks are the engine's, as for the CLI (checkSpec, checkConditionSides).
    spec.keepAwakeCpus = optCpuNumbers(in, "keep_awake");
    if (auto us = optWholeNumber(in, "pm_qos_us", "microseconds")) {
        if (*us > static_cast<std::uint64_t>(kMaxPmQosUs))
            in.fail("field 'spec.pm_qos_us' should be at most " + std::to_string(kMaxPmQosUs) + " microseconds");
        else
            spec.pmQosUs = static_cast<int>(*us);
    }
    if (!in.ok())
        return makeError(in.error());
    return spec;
}

namespace {

Expected<BenchSpec> specField(FieldReader& in)
{
    const json& spec = in.object("spec");
    if (!in.ok())
        return makeError(in.error());
    return specFromJson(spec);
}

// {"ops": 0, "buffer_kb": 0, "events": 200000, "out": "", "backend": "ftrace"}, each optional; the engine checks ops
// and the buffer against what it allows (traceRefusal), the window is checked here.
RunTrace runTraceFrom(FieldReader& in)
{
    RunTrace t;
    t.ops = optWholeNumber(in, "ops", "ops").value_or(0);
    t.bufferKbPerCpu = optWholeNumber(in, "buffer_kb", "KiB").value_or(0);
    t.windowEvents = optWholeNumber(in, "events", "events").value_or(kDefaultTraceWindowEvents);
    if (in.ok() && t.windowEvents > kMaxTraceWindowEvents)
        in.fail("field '" + in.where("events") + "' should be at most " + std::to_string(kMaxTraceWindowEvents));
    if (auto out = in.optString("out"))
        t.out = *out;
    if (auto backend = in.optString("backend")) {
        if (auto named = traceBackendFrom(*backend))
            t.backend = *named;
        else
            in.fail("field '" + in.where("backend") + "' should be \"ftrace\", \"bpf\" or \"auto\"");
    }
    return t;
}

Expected<Command> runCommand(std::uint64_t id, FieldReader& in)
{
    auto spec = specField(in);
    if (!spec)
        return spec.error();
    RunCommand c { id, std::move(*spec) };
    if (const json* trace = in.optObject("trace")) {
        FieldReader t(*trace, in.where("trace"));
        c.trace = runTraceFrom(t);
        in.absorb(t);
    }
    c.asIsFirst = in.optBoolean("as_is_first").value_or(true);
    if (!in.ok())
        return makeError(in.error());
    return Command { std::move(c) };
}

Expected<Command> sweepCommand(std::uint64_t id, FieldReader& in)
{
    auto base = specField(in);
    if (!base)
        return base.error();
    SweepCommand c { id, {} };
    c.spec.base = std::move(*base);
    c.spec.fromBytes = optByteCount(in, "from_bytes").value_or(0);
    c.spec.toBytes = optByteCount(in, "to_bytes");
    c.spec.pointsPerOctave = optInt(in, "points_per_octave").value_or(1);
    if (!in.ok())
        return makeError(in.error());
    return Command { std::move(c) };
}

Expected<Command> matrixCommand(std::uint64_t id, FieldReader& in)
{
    MatrixCommand c { id, in.string("bench"), BenchMode::Thread, MatrixMode::Classes, optionsFrom(in) };
    if (auto mode = in.optString("mode")) {
        auto m = benchModeFromString(*mode);
        if (!m)
            in.fail("mode should be thread or process, not '" + *mode + "'");
        c.mode = m.value_or(BenchMode::Thread);
    }
    if (auto fill = in.optString("fill")) {
        if (*fill == "all-pairs") {
            c.fill = MatrixMode::AllPairs;
            if (!in.optNumber("min_time"))
                c.options.minTimeSeconds = kAllPairsMinTimeSeconds; // short runs, longer while unstable
        } else if (*fill != "classes")
            in.fail("fill should be classes or all-pairs, not '" + *fill + "'");
    }
    if (!in.ok())
        return makeError(in.error());
    return Command { std::move(c) };
}

// 0.05, 60, 1e+07: as a person writes them.
std::string shortNumber(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

// A duration in seconds, checked here because the worker has no other place to say it.
double seconds(FieldReader& in, const char* key, double fallback, double min, double max)
{
    const double v = in.optNumber(key).value_or(fallback);
    if (v < min || v > max)
        in.fail("field '" + in.where(key) + "' should be between " + shortNumber(min) + " and " + shortNumber(max)
            + " seconds");
    return v;
}

Expected<Command> lessonCommand(std::uint64_t id, FieldReader& in)
{
    LessonCommand c { id, in.string("lesson"), optionsFrom(in) };
    c.options.phaseSeconds = seconds(in, "phase", c.options.phaseSeconds, kMinPhaseSeconds, kMaxPhaseSeconds);
    if (!in.ok())
        return makeError(in.error());
    return Command { std::move(c) };
}

Expected<Command> surveyCommand(std::uint64_t id, FieldReader& in)
{
    SurveyCommand c { id, seconds(in, "budget", kSurveySeconds, kSurveyMinSeconds, kSurveyMaxSeconds) };
    if (!in.ok())
        return makeError(in.error());
    return Command { c };
}

Expected<Command> processesCommand(std::uint64_t id, FieldReader& in)
{
    ProcessesCommand c { id, seconds(in, "seconds", 1.0, 0.05, 60) };
    if (!in.ok())
        return makeError(in.error());
    return Command { c };
}

Expected<Command> watchCommand(std::uint64_t id, FieldReader& in)
{
    WatchCommand c;
    c.id = id;
    c.pid = static_cast<long>(in.countUpTo("pid", 1U << 30));
    c.interval = seconds(in, "interval", 0.5, 0.05, 3600);
    c.duration = seconds(in, "duration", 0, 0, 1e7);
    c.trace = in.optBoolean("trace").value_or(false);
    c.events = optWholeNumber(in, "events", "events").value_or(0);
    if (c.events > kMaxWatchEvents)
        in.fail("field '" + in.where("events") + "' should be at most " + std::to_string(kMaxWatchEvents));
    else if (c.events > 0 && !c.trace)
        in.fail("field '" + in.where("events") + "' needs \"trace\": true");
    if (const auto backend = in.optString("backend")) {
        if (*backend != "bpf" && *backend != "ftrace")
            in.fail("field '" + in.where("backend") + "' should be \"bpf\" or \"ftrace\"");
        else if (!c.trace)
            in.fail("field '" + in.where("backend") + "' needs \"trace\": true");
        else if (*backend == "bpf" && c.events > 0)
            in.fail("field '" + in.where("backend") + "' bpf keeps no events: leave out \"events\"");
        c.backend = *backend == "bpf" ? SchedBackend::Bpf : SchedBackend::Ftrace;
    }
    c.lean = in.optBoolean("lean").value_or(false);
    if (!in.ok())
        return makeError(in.error());
    return Command { c };
}

Expected<Command> watchFocusCommand(std::uint64_t id, FieldReader& in)
{
    WatchFocusCommand c;
    c.id = id;
    c.everything = in.optBoolean("all").value_or(false);
    if (const json* tids = in.optArray("tids"))
        for (const json& tid : *tids) {
            if (!tid.is_number_unsigned() || tid.get<std::uint64_t>() > 1U << 30) {
                in.fail("field 'tids' should hold thread ids");
                break;
            }
            c.tids.push_back(tid.get<long>());
        }
    if (!in.ok())
        return makeError(in.error());
    return Command { std::move(c) };
}

Expected<Command> pinCommand(std::uint64_t id, FieldReader& in)
{
    PinCommand c;
    c.id = id;
    const auto tid = in.optCount("tid");
    const auto pid = in.optCount("pid");
    if (tid.has_value() == pid.has_value())
        in.fail("a pin message needs either \"tid\" (one thread) or \"pid\" (every thread of a process)");
    c.process = pid.has_value();
    const std::uint64_t target = tid.value_or(pid.value_or(0));
    if (target > 1U << 30)
        in.fail("field '" + in.where(c.process ? "pid" : "tid") + "' is not a task id");
    c.target = static_cast<long>(target);
    for (const json& cpu : in.array("cpus")) {
        if (!cpu.is_number_unsigned() || cpu.get<std::uint64_t>() > 65535) {
            in.fail("field 'cpus' should hold CPU numbers");
            break;
        }
        c.cpus.push_back(cpu.get<int>());
    }
    if (in.ok() && c.cpus.empty())
        in.fail("field 'cpus' is empty");
    if (in.optBoolean("kernel_threads").value_or(false))
        c.kernelThreads = KernelThreads::Move;
    if (!in.ok())
        return makeError(in.error());
    return Command { std::move(c) };
}

} // namespace

Expected<Command> parseCommand(std::string_view line)
{
    auto j = detail::parseObject(line);
    if (!j)
        return j.error();
    const std::string type = (*j)["type"].get<std::string>();
    if (type == "quit")
        return Command { QuitCommand {} };
    if (type != "run" && type != "sweep" && type != "matrix" && type != "lesson" && type != "survey"
        && type != "processes" && type != "watch" && type != "watch_focus" && type != "pin" && type != "cancel")
        return makeError("unknown message type '" + type
            + "' (expected run, sweep, matrix, lesson, survey, processes, watch, watch_focus, pin, cancel or quit)");
    const auto id = detail::idOf(*j);
    if (!id)
        return makeError("a " + type + " message needs a non-negative integer \"id\"");
    if (type == "cancel")
        return Command { CancelCommand { *id } };
    FieldReader in(*j, "");
    Expected<Command> command = type == "sweep" ? sweepCommand(*id, in)
        : type == "matrix"                      ? matrixCommand(*id, in)
        : type == "lesson"                      ? lessonCommand(*id, in)
        : type == "survey"                      ? surveyCommand(*id, in)
        : type == "processes"                   ? processesCommand(*id, in)
        : type == "watch"                       ? watchCommand(*id, in)
        : type == "watch_focus"                 ? watchFocusCommand(*id, in)
        : type == "pin"                         ? pinCommand(*id, in)
                                                : runCommand(*id, in);
    if (!command)
        return makeError("bad " + type + " message: " + command.error().message);
    return command;
}

std::string commandLine(const Command& command)
{
    return std::visit(
        [](const auto& c) -> std::string {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, RunCommand>) {
                json j { { "type", "run" }, { "id", c.id }, { "spec", specToJson(c.spec) } };
                if (c.trace) // only when asked: an untraced run's line stays as it was
                    j["trace"] = { { "ops", c.trace->ops }, { "buffer_kb", c.trace->bufferKbPerCpu },
                        { "events", c.trace->windowEvents } };
                if (c.trace && !c.trace->out.empty())
                    j["trace"]["out"] = c.trace->out;
                if (c.trace && c.trace->backend != TraceBackend::Ftrace)
                    j["trace"]["backend"] = toString(c.trace->backend);
                if (!c.asIsFirst)
                    j["as_is_first"] = false;
                return j.dump();
            } else if constexpr (std::is_same_v<T, SweepCommand>) {
                json j { { "type", "sweep" }, { "id", c.id }, { "spec", specToJson(c.spec.base) },
                    { "from_bytes", c.spec.fromBytes }, { "points_per_octave", c.spec.pointsPerOctave } };
                if (c.spec.toBytes)
                    j["to_bytes"] = *c.spec.toBytes;
                return j.dump();
            } else if constexpr (std::is_same_v<T, MatrixCommand>) {
                return json {
                    { "type", "matrix" }, { "id", c.id }, { "bench", c.bench },
                    { "mode", std::string(toString(c.mode)) },
                    { "fill", c.fill == MatrixMode::AllPairs ? "all-pairs" : "classes" },
                    { "min_time", c.options.minTimeSeconds }, { "repetitions", c.options.repetitions }
                }.dump();
            } else if constexpr (std::is_same_v<T, LessonCommand>) {
                return json {
                    { "type", "lesson" }, { "id", c.id }, { "lesson", c.lesson },
                    { "min_time", c.options.minTimeSeconds }, { "repetitions", c.options.repetitions },
                    { "phase", c.options.phaseSeconds }
                }.dump();
            } else if constexpr (std::is_same_v<T, SurveyCommand>) {
                return json { { "type", "survey" }, { "id", c.id }, { "budget", c.budgetSeconds } }.dump();
            } else if constexpr (std::is_same_v<T, ProcessesCommand>) {
                return json { { "type", "processes" }, { "id", c.id }, { "seconds", c.seconds } }.dump();
            } else if constexpr (std::is_same_v<T, WatchCommand>) {
                json j { { "type", "watch" }, { "id", c.id }, { "pid", c.pid }, { "interval", c.interval },
                    { "duration", c.duration } };
                if (c.trace)
                    j["trace"] = true;
                if (c.events > 0)
                    j["events"] = c.events;
                if (c.backend)
                    j["backend"] = toString(*c.backend);
                if (c.lean)
                    j["lean"] = true;
                return j.dump();
            } else if constexpr (std::is_same_v<T, WatchFocusCommand>) {
                json j { { "type", "watch_focus" }, { "id", c.id }, { "tids", c.tids } };
                if (c.everything)
                    j["all"] = true;
                return j.dump();
            } else if constexpr (std::is_same_v<T, PinCommand>) {
                json j { { "type", "pin" }, { "id", c.id }, { c.process ? "pid" : "tid", c.target },
                    { "cpus", c.cpus } };
                if (c.kernelThreads == KernelThreads::Move) // only when asked: every other pin line stays as it was
                    j["kernel_threads"] = true;
                return j.dump();
            } else if constexpr (std::is_same_v<T, CancelCommand>) {
                return json { { "type", "cancel" }, { "id", c.id } }.dump();
            } else {
                return json { { "type", "quit" } }.dump();
            }
        },
        command);
}

} // namespace ctxscope::protocol
