// SPDX-License-Identifier: MIT
#include "lesson/lesson_util.h"

#include "lesson/handover_share.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope::lesson {

BenchSpec spec(std::string bench, BenchMode mode, std::vector<int> cpus, const RunBudget& options)
{
    BenchSpec s;
    s.bench = std::move(bench);
    s.mode = mode;
    s.cpus = std::move(cpus);
    s.minTimeSeconds = options.minTimeSeconds;
    s.repetitions = options.repetitions;
    return s;
}

BenchSpec unpinnedSpec(std::string bench, BenchMode mode, const RunBudget& options)
{
    BenchSpec s = spec(std::move(bench), mode, {}, options);
    s.relation = Relation::Unpinned;
    return s;
}

int firstCpu(const Topology& topology)
{
    const auto allowed = topology.allowedPus();
    return allowed.empty() ? 0 : allowed.front();
}

std::optional<PuPair> farthestPair(const Topology& topology)
{
    const auto pairs = representativePairs(topology);
    if (pairs.empty() || pairs.back().relation == Relation::SamePu)
        return std::nullopt;
    return pairs.back();
}

const RunResult* findResult(const std::vector<RunResult>& results, const std::function<bool(const RunResult&)>& match)
{
    auto it = std::find_if(results.begin(), results.end(), match);
    return it == results.end() ? nullptr : &*it;
}

const RunResult* findResult(
    const std::vector<RunResult>& results, std::string_view bench, BenchMode mode, Relation relation)
{
    return findResult(results,
        [&](const RunResult& r) { return r.bench == bench && r.mode == mode && r.placement.relation == relation; });
}

std::string cpusSeenText(const RunResult& r)
{
    return (r.observed.cpusSeen.size() == 1 ? "CPU " : "CPUs ") + formatCpuList(r.observed.cpusSeen);
}

std::string placementText(const RunResult& r)
{
    if (r.placement.relation == Relation::Unpinned)
        return "unpinned (ran on " + cpusSeenText(r) + ")";
    std::string cpus;
    for (int c : r.placement.cpus)
        cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
    return "CPUs " + cpus + " (" + relationText(r.placement.relation, r.placement.kinds) + ")";
}

std::string median(const RunResult& r) { return formatDuration(r.stats.p50); }

std::string capitalized(std::string sentence)
{
    if (!sentence.empty() && sentence.front() >= 'a' && sentence.front() <= 'z')
        sentence.front() = static_cast<char>(sentence.front() - 'a' + 'A');
    return sentence;
}

std::string observedSwitches(const RunResult& r)
{
    const double v = r.observed.switchesPerOp();
    return v < 0.005 ? std::string("~0") : fmt::format("{:.2f}", v);
}

std::string vmNote(const std::vector<const RunResult*>& results)
{
    const bool vm = std::any_of(results.begin(), results.end(), [](const RunResult* r) {
        return std::any_of(r->warnings.begin(), r->warnings.end(),
            [](const std::string& w) { return w.find("virtual machine") != std::string::npos; });
    });
    if (!vm)
        return {};
    for (const RunResult* r : results)
        if (std::string traced = tracedVmNote(*r); !traced.empty())
            return traced;
    return vmNote();
}

std::string vmNote()
{
    return "This is a virtual machine: a wake-up on another vCPU goes through the hypervisor, which makes every "
           "cross-core placement much dearer than on bare metal.";
}

} // namespace ctxscope::lesson
