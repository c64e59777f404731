// SPDX-License-Identifier: MIT
// The results file as a whole: context block, benchmarks array, reading it back.
#include "ctxscope/results_file.h"
#include "ctxscope/sysinfo.h"

#include "report/json_check.h"
#include "report/json_fields.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fmt/core.h>
#include <fstream>
#include <sys/stat.h>

namespace ctxscope {

using nlohmann::json;
using report::FieldReader;

namespace {

constexpr std::size_t kMaxResultsBytes = 256U << 20;

std::string isoDateNow()
{
    const std::time_t now = std::time(nullptr);
    std::tm local {};
    localtime_r(&now, &local);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &local);
    return buf;
}

// Google Benchmark names cache types "Data", "Instruction" and "Unified"; hwloc's model here
// keeps data and unified caches only, L1 being the data one.
json cachesToJson(const Topology& topology)
{
    json out = json::array();
    for (int level = 1; level <= topology.lastCacheLevel(); ++level) {
        int instances = 0;
        std::uint64_t size = 0;
        std::size_t sharing = 0;
        for (const auto& c : topology.caches())
            if (c.level == level) {
                ++instances;
                size = c.size;
                sharing = c.pus.size();
            }
        if (instances > 0)
            out.push_back({ { "type", level == 1 ? "Data" : "Unified" }, { "level", level }, { "size", size },
                { "num_sharing", sharing } });
    }
    return out;
}

} // namespace

json makeContext(const SysInfo& sys, const Topology& topology, const ClockInfo& clock)
{
    return {
        { "date", isoDateNow() },
        { "host_name", sys.hostName },
        { "executable", "ctxscope-cli" },
        { "num_cpus", sys.onlineCpus },
        { "mhz_per_cpu", static_cast<int>(sys.mhz) },
        { "cpu_scaling_enabled", sys.governorPerformance != TriState::On },
        { "caches", cachesToJson(topology) },
        { "library_build_type", sys.debugBuild ? "debug" : "release" },
        { "ctxscope",
            { { "format_version", kReportFormatVersion }, { "sysinfo", toJson(sys) },
                { "clock",
                    { { "source", std::string(toString(clock.source)) }, { "read_cost_ns", clock.readCostNs },
                        { "resolution_ns", clock.resolutionNs }, { "tsc_ghz", clock.tscGhz }, { "why", clock.why } } },
                { "topology",
                    { { "origin", topology.origin() }, { "allowed", formatCpuList(topology.allowedPus()) } } } } },
    };
}

json makeReport(const json& context, const std::vector<RunResult>& results, bool withSamples)
{
    json benchmarks = json::array();
    for (const auto& r : results)
        benchmarks.push_back(resultToJson(r, withSamples));
    return { { "context", context }, { "benchmarks", std::move(benchmarks) } };
}

Expected<ReportContext> reportContextFromJson(const json& context)
{
    FieldReader ctx(context, "context");
    if (!ctx.ok())
        return makeError(ctx.error());
    ReportContext out;
    out.raw = context;
    out.date = ctx.optString("date").value_or("");
    out.hostName = ctx.optString("host_name").value_or("");
    out.numCpus = static_cast<int>(std::min<std::uint64_t>(ctx.optCount("num_cpus").value_or(0), 1U << 20));
    out.mhzPerCpu = ctx.optNumber("mhz_per_cpu").value_or(0);
    if (const json* ours = ctx.optObject("ctxscope")) {
        FieldReader c(*ours, "context.ctxscope");
        const auto version = c.optNumber("format_version");
        if (version && *version > kReportFormatVersion)
            return makeError(fmt::format("the file has format version {}; this ctxscope reads up to version {}",
                *version, kReportFormatVersion));
        if (const json* sys = c.optObject("sysinfo")) {
            FieldReader s(*sys, "context.ctxscope.sysinfo");
            out.cpuModel = s.optString("cpu_model").value_or("");
            out.kernel = s.optString("kernel").value_or("");
            out.hypervisor = s.optBoolean("hypervisor").value_or(false);
            // Files written before hypervisorName hold the raw signature ("KVMKVMKVM").
            out.hypervisorVendor = hypervisorName(s.optString("hypervisor_vendor").value_or(""));
            if (const json* idle = s.optArray("idle_states"))
                out.idleStates = static_cast<int>(idle->size());
            c.absorb(s);
        }
        ctx.absorb(c);
    }
    if (!ctx.ok())
        return makeError(ctx.error());
    return out;
}

Expected<std::vector<RunResult>> resultsFromJson(const json& benchmarks)
{
    if (!benchmarks.is_array())
        return makeError("'benchmarks' should be an array");
    std::vector<RunResult> out;
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        const json& entry = benchmarks[i];
        // Google Benchmark files also hold aggregates; only our entries carry "bench".
        if (!entry.is_object())
            return makeError(fmt::format("benchmarks[{}] is not an object", i));
        if (!entry.contains("bench"))
            continue;
        auto r = resultFromJson(entry);
        if (!r)
            return makeError(fmt::format("benchmarks[{}]: {}", i, r.error().message));
        out.push_back(std::move(*r));
    }
    return out;
}

Status checkJsonDocument(std::string_view text, std::string_view what)
{
    // One JSON object: one cut short (a full disk, a killed save) is refused at once,
    // without parsing 100 MB first.
    const auto first = text.find_first_not_of(" \t\r\n");
    if (const auto last = text.find_last_not_of(" \t\r\n");
        first != std::string_view::npos && text[first] == '{' && text[last] != '}')
        return makeError(
            fmt::format("not valid JSON: it ends at byte {} without the closing '}}' (truncated?)", last + 1));
    // Checked before a document is built: a bracket bomb, or a file cut after a '}'.
    std::size_t where = 0;
    switch (report::checkJsonText(text, report::kMaxJsonDepth, &where)) {
    case report::JsonProblem::Unclosed:
        return makeError(fmt::format(
            "not valid JSON: it ends at byte {} inside an unclosed string, array or object (truncated?)", where));
    case report::JsonProblem::TooDeep:
        return makeError(fmt::format("not a {}: JSON nested deeper than {} levels", what, report::kMaxJsonDepth));
    case report::JsonProblem::None:
        break;
    }
    return {};
}

Expected<ResultsFile> readResults(std::string_view text)
{
    if (text.size() > kMaxResultsBytes)
        return makeError(
            fmt::format("the results file is {} MiB; the limit is {} MiB", text.size() >> 20, kMaxResultsBytes >> 20));
    if (Status checked = checkJsonDocument(text, "results file"); !checked)
        return checked.error();
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded())
        return makeError("not valid JSON (truncated or not a results file)");
    FieldReader top(doc, "");
    const json& context = top.object("context");
    const json& benchmarks = top.array("benchmarks");
    if (!top.ok())
        return makeError(top.error());
    auto ctx = reportContextFromJson(context);
    if (!ctx)
        return ctx.error();
    auto results = resultsFromJson(benchmarks);
    if (!results)
        return results.error();
    if (results->empty())
        return makeError("the file holds no ctxscope results");
    return ResultsFile { std::move(*ctx), std::move(*results) };
}

Expected<std::string> readResultsText(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        return makeError(path + ": " + std::strerror(errno));
    // Not a FIFO or a device: /dev/zero would be read for ever.
    if (!S_ISREG(st.st_mode))
        return makeError(path + ": not a regular file");
    if (static_cast<std::size_t>(st.st_size) > kMaxResultsBytes)
        return makeError(fmt::format("{}: {} MiB is larger than a results file can be ({} MiB)", path, st.st_size >> 20,
            kMaxResultsBytes >> 20));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(path + ": cannot be opened for reading");
    // One buffer of the file's size (a stream copy would hold it three times over).
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    if (!in.read(text.data(), st.st_size) || in.peek() != std::ifstream::traits_type::eof())
        return makeError(path + ": could not be read in one piece (did it change while being read?)");
    return text;
}

Expected<ResultsFile> readResultsFile(const std::string& path)
{
    auto text = readResultsText(path);
    if (!text)
        return text.error();
    auto file = readResults(*text);
    if (!file)
        return makeError(path + ": " + file.error().message);
    return file;
}

} // namespace ctxscope
