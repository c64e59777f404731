// SPDX-License-Identifier: MIT
// runSweep: one working-set point after another, with progress and cancellation.
#include "ctxscope/sweep.h"

#include "ctxscope/runner.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/units.h"

#include <fmt/core.h>

namespace ctxscope {

Expected<SweepResult> runSweep(const SweepSpec& spec, const Topology& topology,
    const std::function<void(const SweepProgress&)>& progress, std::stop_token stop)
{
    auto plan = planSweep(spec, topology);
    if (!plan)
        return plan.error();
    // The placement every point shares (and the checks of the base spec), before anything
    // runs; the largest point is checked against memory by each run again.
    BenchSpec first = spec.base;
    first.wsBytes = plan->sizes.empty() ? 0 : plan->sizes.front();
    auto placement = checkSpec(first, topology);
    if (!placement)
        return placement.error();

    SweepResult result;
    result.spec = spec;
    result.plan = std::move(*plan);
    result.placement = std::move(*placement);
    result.caches = topology.caches();
    if (!result.plan.note.empty())
        result.warnings.push_back(result.plan.note);

    const int points = static_cast<int>(result.plan.sizes.size());
    auto report = [&](int i, std::string_view stage, double within, const WorkingSetPoint* done) {
        if (!progress)
            return;
        progress(SweepProgress {
            i, points, result.plan.sizes[static_cast<std::size_t>(i)], stage, (i + within) / points, done });
    };
    for (int i = 0; i < points; ++i) {
        if (stop.stop_requested())
            return makeError("the sweep was cancelled");
        BenchSpec pointSpec = spec.base;
        pointSpec.wsBytes = result.plan.sizes[static_cast<std::size_t>(i)];
        // The round trip is most of a point's time; the touch baseline the rest.
        auto point = runWorkingSet(
            pointSpec, topology,
            [&](std::string_view stage, double f) {
                report(i, stage, stage == "touch" ? 0.6 + 0.4 * f : 0.6 * f, nullptr);
            },
            stop);
        if (!point) {
            if (stop.stop_requested())
                return makeError("the sweep was cancelled");
            return makeError(
                fmt::format("the point W = {} failed: {}", formatBytes(pointSpec.wsBytes), point.error().message));
        }
        result.points.push_back(std::move(*point));
        report(i, "done", 1.0, &result.points.back());
    }
    int flagged = 0;
    for (const WorkingSetPoint& p : result.points)
        flagged += p.costNotPositive ? 1 : 0;
    if (flagged > 0)
        result.warnings.push_back(fmt::format("{} of {} points have a switch cost at or below 0 once the touches "
                                              "are taken out; they are flagged, not plotted as negative.",
            flagged, points));
    for (std::string& w : machineWarnings(readSysInfo()))
        result.warnings.push_back(std::move(w));
    return result;
}

} // namespace ctxscope
