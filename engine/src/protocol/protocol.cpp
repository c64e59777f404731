// SPDX-License-Identifier: MIT
#include "ctxscope/protocol.h"

#include "protocol/parse.h"
#include "report/json_check.h"

#include "ctxscope/version.h"

#include <fmt/core.h>
#include <unistd.h>

namespace ctxscope::protocol {

using detail::idOf;
using detail::parseObject;
using nlohmann::json;

std::string longLineMessage(std::size_t bytes)
{
    return fmt::format("message of {} bytes is longer than the {} allowed", bytes, kMaxLineBytes);
}

namespace detail {

Expected<json> parseObject(std::string_view line)
{
    if (line.size() > kMaxLineBytes)
        return makeError(longLineMessage(line.size()));
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

} // namespace detail

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

std::vector<std::string> samplesLines(std::uint64_t id, const SampleBatch& b)
{
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < b.nsPerOp.size(); at += kMaxSamplesPerLine) {
        const auto part = b.nsPerOp.subspan(at, std::min(kMaxSamplesPerLine, b.nsPerOp.size() - at));
        lines.push_back(json { { "type", "samples" }, { "id", id }, { "repetition", b.repetition },
            { "first", b.firstIndex + at }, { "ns_per_op", std::vector<double>(part.begin(), part.end()) } }
                            .dump());
    }
    return lines;
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
