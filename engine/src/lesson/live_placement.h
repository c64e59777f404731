// SPDX-License-Identifier: MIT
// Lesson "live-placement": what re-pinning a running program does to it, watched live. Its
// pieces are here, apart from the registry entry, so tests can run it with a look at the
// restored affinities and give its conclusion synthetic phases.
#pragma once

#include "ctxscope/lesson.h"
#include "ctxscope/workload.h"

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope::lesson {

inline constexpr double kLivePlacementIntervalS = 0.5; // between two readings of the watch

struct LivePlacementHooks {
    // Called once the workload's threads have their affinity back, on every way out (done,
    // cancelled, failed), while they still run: a test reads their affinity there.
    std::function<void(const std::vector<WorkloadThread>&)> restored;
};

// Starts `workload pingpong` (one pair) in this process, watches it unpinned, with both
// threads on one PU, and across the farthest class this machine has, then restores it.
Expected<LessonResult> runLivePlacement(const Topology& topology, const RunBudget& budget,
    const std::function<void(const LessonProgress&)>& progress, std::stop_token stop,
    const LivePlacementHooks& hooks = {});

// The conclusion: a pure function of the phases (the first unpinned, the others pinned).
std::vector<std::string> concludeLivePlacement(const std::vector<LessonPhase>& phases);

} // namespace ctxscope::lesson
