// SPDX-License-Identifier: MIT
// One working-set point: the round trip with W touched per task, then the hot touch(W)
// baseline on the same CPU, then the derived switch cost.
#include "ctxscope/working_set.h"

#include "ctxscope/runner.h"
#include "ctxscope/units.h"

#include <fmt/core.h>

namespace ctxscope {

Quartiles quartilesOf(const RunResult& result)
{
    if (result.samples.empty())
        return Quartiles { result.stats.p50, result.stats.p50, result.stats.p50 };
    return quartiles(result.samples);
}

namespace {

std::optional<double> positive(double v)
{
    if (v > 0)
        return v;
    return std::nullopt;
}

} // namespace

void deriveSwitchCost(WorkingSetPoint& p)
{
    const double n = p.tasks;
    const double s = p.switchesPerOp > 0 ? p.switchesPerOp : 1;
    p.switchCostNs = positive((p.roundTrip.p50 - n * p.touch.p50) / s);
    p.switchCostLowNs = positive((p.roundTrip.p25 - n * p.touch.p75) / s);
    p.switchCostHighNs = positive((p.roundTrip.p75 - n * p.touch.p25) / s);
    p.costNotPositive = !p.switchCostNs;
    if (p.costNotPositive)
        p.warnings.push_back(fmt::format("At W = {} the round trip's median ({:.0f} ns) is not more than {} hot "
                                         "touches ({} x {:.0f} ns): the switch cost is lost in the touch time, "
                                         "so it is flagged instead of shown.",
            formatBytes(p.wsBytes), p.roundTrip.p50, p.tasks, p.tasks, p.touch.p50));
}

WorkingSetPoint workingSetPointOf(const RunResult& roundTrip, const RunResult* touch)
{
    WorkingSetPoint point;
    point.wsBytes = roundTrip.spec.wsBytes;
    point.tasks = roundTrip.placement.tasks;
    point.switchesPerOp = roundTrip.switchesPerOp;
    point.roundTrip = quartilesOf(roundTrip);
    if (touch)
        point.touch = quartilesOf(*touch);
    deriveSwitchCost(point);
    return point;
}

bool costClearlyAbove(const WorkingSetPoint& a, const WorkingSetPoint& b)
{
    const auto positive = [](const WorkingSetPoint& p) { return p.switchCostNs && p.switchCostLowNs; };
    return positive(a) && positive(b) && *b.switchCostNs > kClearCostRise * *a.switchCostNs
        && *b.switchCostLowNs > a.switchCostHighNs.value_or(*a.switchCostNs);
}

bool roundTripNoisy(const RunResult& r) { return r.repetitions >= 2 && r.repetitionCv > kNoisyRepetitionCv; }

bool costSpreadReachesZero(const WorkingSetPoint& p) { return !p.costNotPositive && !p.switchCostLowNs; }

Expected<WorkingSetPoint> runWorkingSet(
    const BenchSpec& spec, const Topology& topology, const WorkingSetProgress& progress, std::stop_token stop)
{
    const BenchInfo* info = findBenchmark(spec.bench);
    if (info && (!info->workingSet || info->maxTasks == 1))
        return makeError(
            fmt::format("{} has no round trip to measure with a working set (use futex, pipe or ring)", spec.bench));
    auto placement = checkSpec(spec, topology);
    if (!placement)
        return placement.error();

    RunCallbacks callbacks;
    if (progress)
        callbacks.progress = [&](const Progress& p) { progress("round trip", p.fraction); };
    auto roundTrip = runBenchmark(spec, topology, callbacks, stop);
    if (!roundTrip)
        return roundTrip.error();

    std::optional<RunResult> touchRun;
    if (spec.wsBytes > 0) {
        BenchSpec touch;
        touch.bench = "touch";
        touch.wsBytes = spec.wsBytes;
        // Hot, on the CPU of task 0, with no other task: what the touching alone costs there.
        if (placement->cpus.empty())
            touch.relation = Relation::Unpinned;
        else
            touch.cpus = { placement->cpus.front() };
        touch.minTimeSeconds = spec.minTimeSeconds;
        touch.repetitions = spec.repetitions;
        touch.policy = spec.policy;
        if (progress)
            callbacks.progress = [&](const Progress& p) { progress("touch", p.fraction); };
        auto touched = runBenchmark(touch, topology, callbacks, stop);
        if (!touched)
            return touched.error();
        touchRun = std::move(*touched);
    }
    WorkingSetPoint point = workingSetPointOf(*roundTrip, touchRun ? &*touchRun : nullptr);
    point.roundTripRun = std::move(*roundTrip);
    point.touchRun = std::move(touchRun);
    return point;
}

} // namespace ctxscope
