// SPDX-License-Identifier: MIT
// Human output of working-set results: one point (run --ws) and a sweep, whose rows are
// printed as the points finish.
#pragma once

#include "ctxscope/sweep.h"
#include "ctxscope/working_set.h"

#include <string>

namespace ctxscope::cli {

// The round trip's and the touch's result tables, then the three series.
std::string formatWorkingSetPoint(const WorkingSetPoint& point);

// What the sweep runs and the column header.
std::string formatSweepHeader(const SweepSpec& spec, const SweepPlan& plan, const Placement& placement);
// One row of the table (fixed widths, so rows can be printed one by one).
std::string formatSweepRow(const WorkingSetPoint& point);
// The cache sizes, the warnings and what the flags mean.
std::string formatSweepFooter(const SweepResult& result);
// The caches of the topology, one line per level: size, instances and the PUs of each.
std::string formatCaches(const std::vector<CacheInfo>& caches);

} // namespace ctxscope::cli
