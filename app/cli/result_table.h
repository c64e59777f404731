// SPDX-License-Identifier: MIT
// Human output of results: an aligned table (one row per result), then for each result what
// one op is, the clock, the self-checks and the warnings.
#pragma once

#include "ctxscope/result.h"
#include "ctxscope/units.h" // formatDuration

#include <string>
#include <vector>

namespace ctxscope::cli {

std::string formatResults(const std::vector<RunResult>& results);

} // namespace ctxscope::cli
