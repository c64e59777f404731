// SPDX-License-Identifier: MIT
// CSV in the C locale (fmt formats numbers without the locale), RFC 4180 quoting.
#include "ctxscope/csv.h"

#include "ctxscope/value_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ctxscope {

std::string csvField(const std::string& field)
{
    if (field.find_first_of(",\"\n\r") == std::string::npos)
        return field;
    std::string out = "\"";
    for (char c : field)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

namespace {

std::string joinInts(const std::vector<int>& v, char sep)
{
    return fmt::format("{}", fmt::join(v, std::string_view(&sep, 1)));
}

std::string joinWarnings(const std::vector<std::string>& warnings)
{
    return fmt::format("{}", fmt::join(warnings, " | "));
}

std::string num(double v) { return fmt::format("{:.6g}", v); }

} // namespace

std::string resultsToCsv(const nlohmann::json& context, const std::vector<RunResult>& results)
{
    std::string out;
    for (const char* key : { "date", "host_name", "num_cpus", "mhz_per_cpu" })
        if (context.contains(key))
            out += fmt::format(
                "# {}: {}\n", key, context[key].is_string() ? context[key].get<std::string>() : context[key].dump());
    if (context.contains("ctxscope") && context["ctxscope"].contains("sysinfo")) {
        // The context may come from a file read back: take only what has the expected type.
        const auto& sys = context["ctxscope"]["sysinfo"];
        const auto text = [&sys](const char* key, const char* otherwise) {
            return sys.is_object() && sys.contains(key) && sys[key].is_string() ? sys[key].get<std::string>()
                                                                                : std::string(otherwise);
        };
        const bool hypervisor = sys.is_object() && sys.contains("hypervisor") && sys["hypervisor"].is_boolean()
            && sys["hypervisor"].get<bool>();
        out += fmt::format("# cpu_model: {}\n# kernel: {}\n# hypervisor: {}\n", text("cpu_model", ""),
            text("kernel", ""), hypervisor ? text("hypervisor_vendor", "yes") : "no");
    }
    out += "# times are ns per op; per_switch_ns = p50_ns / switches_per_op\n";
    out += "name,bench,op,mode,cpus,relation,tasks,policy,ops_per_sample,iterations,repetitions,switches_per_op,"
           "per_switch_ns,min_ns,p50_ns,mean_ns,p90_ns,p99_ns,p999_ns,max_ns,stddev_ns,cv,"
           "observed_voluntary_per_op,observed_involuntary_per_op,migrations,cpus_seen,warnings\n";
    for (const auto& r : results) {
        const Summary& s = r.stats;
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            csvField(benchmarkName(r)), r.bench, csvField(r.op), toString(r.mode),
            csvField(joinInts(r.placement.cpus, ' ')), toString(r.placement.relation), r.placement.tasks,
            toString(r.policy), r.opsPerSample, r.iterations, r.repetitions, num(r.switchesPerOp),
            r.perSwitchNs ? num(*r.perSwitchNs) : std::string(), num(s.min), num(s.p50), num(s.mean), num(s.p90),
            num(s.p99), num(s.p999), num(s.max), num(s.stddev), num(s.cv), num(r.observed.voluntaryPerOp),
            num(r.observed.involuntaryPerOp), r.observed.migrations, csvField(joinInts(r.observed.cpusSeen, ' ')),
            csvField(joinWarnings(r.warnings)));
    }
    return out;
}

std::string samplesToCsv(const std::vector<RunResult>& results)
{
    std::string out = "# one row per kept sample, in time order; a sample times ops_per_sample consecutive ops\n"
                      "name,sample,ops_per_sample,ns_per_op\n";
    for (const auto& r : results)
        for (std::size_t i = 0; i < r.samples.size(); ++i)
            out += fmt::format("{},{},{},{}\n", csvField(benchmarkName(r)), i, r.opsPerSample, num(r.samples[i]));
    return out;
}

} // namespace ctxscope
