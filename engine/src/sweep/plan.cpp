// SPDX-License-Identifier: MIT
// The working-set grid: log2 steps, line-aligned, capped by memory.
#include "ctxscope/sweep.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/core.h>

namespace ctxscope {

namespace {

constexpr std::uint64_t kLine = 64;

std::uint64_t roundToLine(double bytes)
{
    const auto lines = static_cast<std::uint64_t>(std::llround(bytes / static_cast<double>(kLine)));
    return std::max<std::uint64_t>(1, lines) * kLine;
}

int tasksOf(const SweepSpec& spec, const BenchInfo& info)
{
    if (info.maxTasks == info.minTasks)
        return info.minTasks;
    if (spec.base.tasks > 0)
        return spec.base.tasks;
    return spec.base.cpus.size() > 1 ? static_cast<int>(spec.base.cpus.size()) : info.defaultTasks;
}

std::vector<std::uint64_t> grid(std::uint64_t from, std::uint64_t to, int perOctave)
{
    std::vector<std::uint64_t> sizes;
    if (from == 0)
        sizes.push_back(0);
    const std::uint64_t start = from == 0 ? std::min(kFirstNonZeroWs, std::max<std::uint64_t>(to, kLine)) : from;
    if (to == 0)
        return sizes;
    for (int k = 0;; ++k) {
        const double w = static_cast<double>(start) * std::exp2(static_cast<double>(k) / perOctave);
        if (w > static_cast<double>(to) * (1 + 1e-9))
            break;
        sizes.push_back(roundToLine(w));
    }
    if (sizes.empty() || sizes.back() < roundToLine(static_cast<double>(to)))
        sizes.push_back(roundToLine(static_cast<double>(to)));
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

} // namespace

Expected<SweepPlan> planSweep(const SweepSpec& spec, const Topology& topology)
{
    const BenchInfo* info = findBenchmark(spec.base.bench);
    if (!info)
        return makeError(fmt::format("unknown benchmark '{}'", spec.base.bench));
    if (!info->workingSet || info->maxTasks == 1)
        return makeError(
            fmt::format("{} has no round trip to sweep with a working set (use futex, pipe or ring)", spec.base.bench));
    if (spec.pointsPerOctave < 1 || spec.pointsPerOctave > kMaxPointsPerOctave)
        return makeError(
            fmt::format("points per octave must be from 1 to {}, got {}", kMaxPointsPerOctave, spec.pointsPerOctave));
    if (spec.toBytes && *spec.toBytes < spec.fromBytes)
        return makeError(fmt::format(
            "the sweep ends ({}) before it starts ({})", formatBytes(*spec.toBytes), formatBytes(spec.fromBytes)));

    SweepPlan plan;
    const int level = topology.lastCacheLevel();
    plan.lastLevelCache = level > 0 ? topology.cacheSize(level) : 0;
    // An end given is the user's choice, however long it takes; a default one is timed.
    if (!spec.toBytes)
        plan.timeLimitSeconds = kDefaultSweepSeconds;
    const CacheCheck caches = checkCaches(topology);
    if (spec.toBytes) {
        plan.requestedTo = *spec.toBytes;
    } else if (plan.lastLevelCache > 0 && !caches.plausible(level)) {
        // 4x a misreported size (a VM's hundreds of MB "per vCPU") would sweep gigabytes for nothing.
        plan.requestedTo = kWorkingSetCap;
        plan.note = fmt::format("The last-level cache this machine reports ({}) is not plausible, so the sweep ends "
                                "at {}.",
            formatBytes(plan.lastLevelCache), formatBytes(kWorkingSetCap));
    } else if (plan.lastLevelCache > 0) {
        plan.requestedTo = std::bit_ceil(4 * plan.lastLevelCache);
    } else {
        plan.requestedTo = kSweepEndWithoutCaches;
        plan.note
            = fmt::format("The topology reports no cache, so the sweep ends at {}.", formatBytes(plan.requestedTo));
    }
    if (plan.requestedTo > kMaxWsBytes)
        return makeError(fmt::format(
            "a working set of {} bytes is more than the {} allowed", plan.requestedTo, formatBytes(kMaxWsBytes)));

    const std::optional<std::uint64_t> available = spec.availableBytes ? spec.availableBytes : memAvailableBytes();
    const auto tasks = static_cast<std::uint64_t>(tasksOf(spec, *info));
    plan.budget = available ? *available / kWorkingSetMemoryDivisor : kMaxWsBytes;
    const std::uint64_t maxWs = plan.budget / tasks / kLine * kLine;
    std::uint64_t to = plan.requestedTo;
    if (to > maxWs) {
        if (maxWs < std::max(spec.fromBytes, kLine))
            return makeError(fmt::format("not even the first working set fits: {} tasks may share only {} (a quarter "
                                         "of the {} available)",
                tasks, formatBytes(plan.budget), formatBytes(available.value_or(0))));
        to = maxWs;
        plan.capped = true;
        plan.note = fmt::format("The sweep stops at {} instead of {}: {} tasks x W must stay under a quarter of the "
                                "{} of memory available.",
            formatBytes(to), formatBytes(plan.requestedTo), tasks, formatBytes(available.value_or(0)));
    }
    plan.sizes = grid(spec.fromBytes, to, spec.pointsPerOctave);
    // Rounding to a line may push the last size over a cap that is not a multiple of 64.
    while (!plan.sizes.empty() && plan.sizes.back() > maxWs)
        plan.sizes.pop_back();
    return plan;
}

} // namespace ctxscope
