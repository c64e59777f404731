// SPDX-License-Identifier: MIT
// Working-set (cache-pollution) measurements: a round trip in which every task touches its
// own W bytes after taking the token, the same touching done hot by one task with no switch,
// and the switch cost derived from the two (docs/measurement.md, "Working-set curves").
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/result.h"
#include "ctxscope/stats.h"
#include "ctxscope/topology.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

// MemAvailable from /proc/meminfo in bytes; none when it cannot be read.
std::optional<std::uint64_t> memAvailableBytes();
// The buffers of all tasks of one run may take at most 1/kWorkingSetMemoryDivisor of it.
inline constexpr std::uint64_t kWorkingSetMemoryDivisor = 4;

// The middle half of a run's samples, ns per op (its median three times when it kept none).
Quartiles quartilesOf(const RunResult& result);

// The three series at one working-set size W.
struct WorkingSetPoint {
    std::uint64_t wsBytes = 0;
    int tasks = 0; // tasks that touch W each per op (2 for futex and pipe, N for a ring)
    double switchesPerOp = 0;
    Quartiles roundTrip; // one op of the benchmark, the tasks' touches included
    Quartiles touch; // one touch(W) by one task, hot, no switch; all 0 when W is 0
    // (roundTrip - tasks * touch) / switchesPerOp from the medians; none when that is <= 0,
    // which sets costNotPositive: never shown as a negative number.
    std::optional<double> switchCostNs;
    bool costNotPositive = false;
    // The same from the quartiles (p25 of the round trip with p75 of the touch, and the
    // reverse): the cost's spread; each none when <= 0.
    std::optional<double> switchCostLowNs;
    std::optional<double> switchCostHighNs;
    std::vector<std::string> warnings; // sentences about this point
    RunResult roundTripRun;
    std::optional<RunResult> touchRun; // none when W is 0
};

// Derives the cost and its flags from the two series (exposed for tests).
void deriveSwitchCost(WorkingSetPoint& point);

// The sweep's flags beside costNotPositive, shared by `ctxscope-cli sweep`'s table and the
// cache-pollution lesson. A round trip is noisy when its repetition medians vary by more than
// 5% (CV); a cost's spread reaches 0 when its low end from the quartiles is at or below 0.
inline constexpr double kNoisyRepetitionCv = 0.05;
bool roundTripNoisy(const RunResult& roundTrip);
bool costSpreadReachesZero(const WorkingSetPoint& point);

// The point of a round-trip run at W and the touch run of the same W (nullptr when W is 0), the
// switch cost derived as runWorkingSet derives it; the runs are not kept in it.
WorkingSetPoint workingSetPointOf(const RunResult& roundTrip, const RunResult* touch);

// A rise of the switch cost from one working set to another counts as clear only when it is this
// large and the two costs' quartile spreads are apart (the cache-pollution lesson, the survey's knee).
inline constexpr double kClearCostRise = 1.3;
// b's cost is clearly above a's: both positive with spreads above 0, b above kClearCostRise times
// a, and b's low end above a's high end. Whether the runs were noisy or disturbed is the caller's.
bool costClearlyAbove(const WorkingSetPoint& a, const WorkingSetPoint& b);

// Progress within one working-set point: which run (round trip, then touch) and its share.
using WorkingSetProgress = std::function<void(std::string_view stage, double fraction)>;

// Runs `spec` (futex, pipe or ring with spec.wsBytes set; 0 is allowed) and then the touch
// baseline of the same W on the first CPU of its placement, and derives the switch cost.
// Stops like runBenchmark when `stop` is requested.
Expected<WorkingSetPoint> runWorkingSet(const BenchSpec& spec, const Topology& topology,
    const WorkingSetProgress& progress = {}, std::stop_token stop = {});

} // namespace ctxscope
