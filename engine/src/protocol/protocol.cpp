// SPDX-License-Identifier: MIT
#include "ctxscope/protocol.h"

#include "report/json_check.h"
#include "report/json_fields.h"

#include "ctxscope/version.h"

#include <fmt/core.h>
#include <unistd.h>

namespace ctxscope::protocol {

using nlohmann::json;
using report::FieldReader;

json specToJson(const BenchSpec& spec)
{
    json j { { "bench", spec.bench }, { "mode", std::string(toString(spec.mode)) }, { "cpus", spec.cpus },
        { "tasks", spec.tasks }, { "min_time", spec.minTimeSeconds }, { "repetitions", spec.repetitions },
        { "policy", std::string(toString(spec.policy)) }, { "ops_per_sample", spec.opsPerSample } };
    if (spec.relation)
        j["relation"] = std::string(toString(*spec.relation));
    if (spec.iterations)
        j["iterations"] = *spec.iterations;
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
    if (const json* cpus = in.optArray("cpus")) {
        for (const auto& c : *cpus) {
            if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() > 65535) {
                in.fail("spec.cpus should hold CPU numbers");
                break;
            }
            spec.cpus.push_back(c.get<int>());
        }
    }
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
    if (!in.ok())
        return makeError(in.error());
    return spec;
}

namespace {

Expected<json> parseObject(std::string_view line)
{
    if (line.size() > kMaxLineBytes)
        return makeError(fmt::format("message of {} bytes is longer than the {} allowed", line.size(), kMaxLineBytes));
    // A line of a million '[' would otherwise become a document of a million arrays.
    if (report::checkJsonText(line, report::kMaxJsonDepth) == report::JsonProblem::TooDeep)
        return makeError(fmt::format("a message nested deeper than {} levels", report::kMaxJsonDepth));
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded())
        return makeError("not a JSON line");
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        return makeError("a message must be a JSON object with a string \"type\"");
    return j;
}

std::optional<std::uint64_t> idOf(const json& j)
{
    auto it = j.find("id");
    if (it == j.end() || !it->is_number_unsigned())
        return std::nullopt;
    return it->get<std::uint64_t>();
}

} // namespace

Expected<Command> parseCommand(std::string_view line)
{
    auto j = parseObject(line);
    if (!j)
        return j.error();
    const std::string type = (*j)["type"].get<std::string>();
    if (type == "quit")
        return Command { QuitCommand {} };
    const auto id = idOf(*j);
    if (type == "run" || type == "cancel") {
        if (!id)
            return makeError("a " + type + " message needs a non-negative integer \"id\"");
        if (type == "cancel")
            return Command { CancelCommand { *id } };
        auto spec
            = j->contains("spec") ? specFromJson((*j)["spec"]) : Expected<BenchSpec>(makeError("missing field 'spec'"));
        if (!spec)
            return spec.error();
        return Command { RunCommand { *id, std::move(*spec) } };
    }
    return makeError("unknown message type '" + type + "' (expected run, cancel or quit)");
}

std::string commandLine(const Command& command)
{
    return std::visit(
        [](const auto& c) -> std::string {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, RunCommand>)
                return json { { "type", "run" }, { "id", c.id }, { "spec", specToJson(c.spec) } }.dump();
            else if constexpr (std::is_same_v<T, CancelCommand>)
                return json { { "type", "cancel" }, { "id", c.id } }.dump();
            else
                return json { { "type", "quit" } }.dump();
        },
        command);
}

std::string helloLine(const Topology& topology, const SysInfo& sys, const ClockInfo& clock)
{
    auto xml = topology.exportXml(false);
    json benches = json::array();
    for (const auto& b : benchmarks())
        benches.push_back({ { "name", b.name }, { "op", b.op }, { "min_tasks", b.minTasks },
            { "max_tasks", b.maxTasks }, { "process_mode", b.processMode } });
    return json {
        { "type", "hello" }, { "protocol", kVersion }, { "ctxscope_version", std::string(ctxscope::kVersion) },
        { "pid", static_cast<long>(::getpid()) }, { "topology_xml", xml ? *xml : std::string() },
        { "context", makeContext(sys, topology, clock) }, { "benchmarks", std::move(benches) }
    }.dump();
}

std::string progressLine(std::uint64_t id, const Progress& p)
{
    return json {
        { "type", "progress" }, { "id", id }, { "stage", p.stage }, { "repetition", p.repetition },
        { "repetitions", p.repetitions }, { "fraction", p.fraction }
    }.dump();
}

std::string samplesLine(std::uint64_t id, const SampleBatch& b)
{
    return json {
        { "type", "samples" }, { "id", id }, { "repetition", b.repetition }, { "first", b.firstIndex },
        { "ns_per_op", std::vector<double>(b.nsPerOp.begin(), b.nsPerOp.end()) }
    }.dump();
}

std::string resultLine(std::uint64_t id, const RunResult& r)
{
    std::string line = json { { "type", "result" }, { "id", id }, { "result", resultToJson(r, true) } }.dump();
    if (line.size() <= kMaxLineBytes)
        return line;
    // A long run's raw samples would make a line its reader must refuse. They went out in
    // "samples" messages already, and the statistics and histogram cover every sample.
    json entry = resultToJson(r, false);
    entry["samples_omitted"] = r.samples.size();
    return json { { "type", "result" }, { "id", id }, { "result", std::move(entry) } }.dump();
}

std::string errorLine(std::optional<std::uint64_t> id, std::string_view message)
{
    json j { { "type", "error" }, { "message", message } };
    j["id"] = id ? json(*id) : json(nullptr);
    return j.dump();
}

std::string cancelledLine(std::uint64_t id) { return json { { "type", "cancelled" }, { "id", id } }.dump(); }
std::string byeLine() { return json { { "type", "bye" } }.dump(); }

Expected<Message> parseMessage(std::string_view line)
{
    auto j = parseObject(line);
    if (!j)
        return j.error();
    Message m;
    m.type = (*j)["type"].get<std::string>();
    m.id = idOf(*j);
    m.body = std::move(*j);
    return m;
}

} // namespace ctxscope::protocol
