// SPDX-License-Identifier: MIT
#include "ctxscope/protocol.h"
#include "ctxscope/trace_session.h"

#include "ctxscope/events.h"

#include "protocol/parse.h"
#include "report/json_check.h"

#include "ctxscope/version.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
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

const std::vector<std::string>& traceKindNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (auto k = static_cast<int>(TraceEventKind::Waking); k <= static_cast<int>(TraceEventKind::SysExit); ++k) {
            const auto kind = static_cast<TraceEventKind>(k);
            v.emplace_back(kind == TraceEventKind::IdleExit ? "cpu_idle_exit" : traceEventName(kind));
        }
        return v;
    }();
    return names;
}

} // namespace detail

std::string helloLine(const Topology& topology, const SysInfo& sys, const ClockInfo& clock)
{
    auto xml = topology.exportXml(false);
    HelloEvent hello { kVersion, std::string(ctxscope::kVersion), static_cast<long>(::getpid()),
        xml ? *xml : std::string(), makeContext(sys, topology, clock), {}, {} };
    if (Status tracing = tracingAllowed(); !tracing)
        hello.tracing = tracing.error().message;
    hello.bpf = bpfUnavailable();
    for (const auto& b : benchmarks())
        hello.benchmarks.push_back({ std::string(b.name), std::string(b.op), b.minTasks, b.maxTasks, b.processMode });
    return eventLine(hello);
}

std::string progressLine(std::uint64_t id, const Progress& p)
{
    ProgressEvent e = progressEvent(id, std::string(p.stage), p.fraction);
    e.repetition = p.repetition;
    e.repetitions = p.repetitions;
    return eventLine(e);
}

namespace {

// A sample to kStreamedSampleDigits significant digits; 0, inf and NaN as they are.
double streamedSample(double ns)
{
    if (ns == 0 || !std::isfinite(ns))
        return ns;
    // Divided by an exact power of ten, the rounded integer becomes the double nearest the
    // decimal, which prints as that decimal.
    const int exponent = kStreamedSampleDigits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(ns))));
    const double power = std::pow(10.0, std::abs(exponent));
    const double rounded = exponent >= 0 ? std::round(ns * power) / power : std::round(ns / power) * power;
    return std::isfinite(rounded) && rounded != 0 ? rounded : ns;
}

} // namespace

std::vector<std::string> samplesLines(std::uint64_t id, const SampleBatch& b)
{
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < b.nsPerOp.size(); at += kMaxSamplesPerLine) {
        const auto part = b.nsPerOp.subspan(at, std::min(kMaxSamplesPerLine, b.nsPerOp.size() - at));
        std::vector<double> rounded(part.size());
        std::transform(part.begin(), part.end(), rounded.begin(), streamedSample);
        lines.push_back(eventLine(SamplesEvent { id, b.repetition, b.firstIndex + at, std::move(rounded) }));
    }
    return lines;
}

std::string resultLine(std::uint64_t id, const RunResult& r) { return eventLine(ResultEvent { id, r, 0 }); }

namespace {

TraceEventsEvent traceEventsPart(std::uint64_t id, const Trace& trace, std::size_t begin, std::size_t end,
    std::size_t windowBegin, std::uint64_t leftOut)
{
    TraceEventsEvent e;
    e.id = id;
    e.first = begin - windowBegin;
    e.window = trace.events.size() - windowBegin;
    e.recorded = trace.events.size() + leftOut;
    e.events.assign(trace.events.begin() + static_cast<std::ptrdiff_t>(begin),
        trace.events.begin() + static_cast<std::ptrdiff_t>(end));
    const auto name = [&](int task) {
        if (auto it = trace.comms.find(task); it != trace.comms.end())
            e.comms.emplace(task, it->second);
    };
    for (const TraceEvent& ev : e.events) {
        name(ev.pid);
        if (otherIsTask(ev.kind))
            name(ev.other);
    }
    return e;
}

} // namespace

std::vector<std::string> traceEventsLines(
    std::uint64_t id, const Trace& trace, std::size_t window, std::uint64_t leftOut)
{
    // 8,192 events of at most 93 bytes each (every number at its longest) stay under 1 MiB;
    // a part whose task names still make it too long is halved.
    constexpr std::size_t kPart = 8192;
    const std::size_t windowBegin = trace.events.size() - std::min(window, trace.events.size());
    std::vector<std::string> lines;
    for (std::size_t at = windowBegin; at < trace.events.size();) {
        std::size_t part = std::min(kPart, trace.events.size() - at);
        std::string line = eventLine(traceEventsPart(id, trace, at, at + part, windowBegin, leftOut));
        while (line.size() > kMaxLineBytes && part > 1) {
            part /= 2;
            line = eventLine(traceEventsPart(id, trace, at, at + part, windowBegin, leftOut));
        }
        lines.push_back(std::move(line));
        at += part;
    }
    return lines;
}

std::string errorLine(std::optional<std::uint64_t> id, std::string_view message)
{
    return eventLine(ErrorEvent { id, std::string(message) });
}

std::string cancelledLine(std::uint64_t id) { return eventLine(CancelledEvent { id }); }
std::string byeLine() { return eventLine(ByeEvent {}); }

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
