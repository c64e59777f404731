// SPDX-License-Identifier: MIT
#pragma once

#include "programs/snapshot.h"

#include "ctxscope/watch.h"

#include <cstdint>

// Rates from two readings: pure functions, so recorded snapshots test them.
namespace ctxscope::programs {

// One thread from `before` (nullptr: it started after the previous reading, so its counters
// began at zero within the interval) to `after`, over dtNs of wall time.
ThreadRates threadRates(const TaskSnapshot* before, const TaskSnapshot& after, std::uint64_t dtNs);

// The system's switches per second and each CPU's busy share between two readings of
// /proc/stat (CPUs in both only).
void systemRates(const ProcessSnapshot& before, const ProcessSnapshot& after, WatchSample& sample);

// The whole interval: every thread of `after`, the threads that appeared and ended.
WatchSample compareSnapshots(const ProcessSnapshot& before, const ProcessSnapshot& after);

} // namespace ctxscope::programs
