// SPDX-License-Identifier: MIT
// The default sweep's time limit: each point's cost estimated from the points before it.
#include "ctxscope/sweep.h"

#include "ctxscope/units.h"

#include <algorithm>
#include <fmt/core.h>
#include <utility>

namespace ctxscope {

namespace {

// As --ws reads it: "2G", "768M", "4K" or plain bytes.
std::string byteArgument(std::uint64_t bytes)
{
    for (const auto& [shift, suffix] : { std::pair { 30, 'G' }, std::pair { 20, 'M' }, std::pair { 10, 'K' } })
        if (bytes > 0 && bytes % (std::uint64_t { 1 } << shift) == 0)
            return fmt::format("{}{}", bytes >> shift, suffix);
    return std::to_string(bytes);
}

} // namespace

double estimatePointSeconds(std::span<const PointTime> done, std::uint64_t wsBytes)
{
    if (done.empty())
        return 0;
    // Small points all cost about the same (the minimum time rules); large ones grow with W
    // (touches and page faults). The slope of the last two points carries that growth on: exact
    // while the time is linear in W, and a step of the grid is about the step before it, so
    // noise in two small points' times stays small in the estimate.
    const PointTime& last = done.back();
    if (wsBytes <= last.wsBytes || done.size() < 2)
        return last.seconds;
    const PointTime& before = done[done.size() - 2];
    const double step = static_cast<double>(last.wsBytes - std::min(last.wsBytes, before.wsBytes));
    const double slope = step > 0 ? std::max(0.0, (last.seconds - before.seconds) / step) : 0;
    return last.seconds + slope * static_cast<double>(wsBytes - last.wsBytes);
}

std::string timeLimitStop(
    const SweepPlan& plan, std::span<const PointTime> done, double elapsedSeconds, std::uint64_t nextWsBytes)
{
    if (!plan.timeLimitSeconds || done.empty())
        return {};
    const double next = estimatePointSeconds(done, nextWsBytes);
    if (elapsedSeconds + next <= *plan.timeLimitSeconds)
        return {};
    return fmt::format("The sweep stopped after W = {} (of a default grid up to {}): the next point, W = {}, "
                       "would take about {:.0f} s more after {:.0f} s, past the {:.0f} s a default sweep is given. "
                       "Give the end (--ws 0..{}) to measure further.",
        formatBytes(done.back().wsBytes), formatBytes(plan.sizes.empty() ? 0 : plan.sizes.back()),
        formatBytes(nextWsBytes), next, elapsedSeconds, *plan.timeLimitSeconds,
        byteArgument(plan.sizes.empty() ? nextWsBytes : plan.sizes.back()));
}

} // namespace ctxscope
