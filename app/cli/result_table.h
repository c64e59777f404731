// SPDX-License-Identifier: MIT
// Human output of results: an aligned table (one row per result), then for each result what
// one op is, the clock, the self-checks and the warnings.
#pragma once

#include "ctxscope/result.h"

#include <string>
#include <vector>

namespace ctxscope::cli {

// "812 ns", "2.43 µs", "1.20 ms": three significant digits, the unit chosen per value.
std::string formatDuration(double ns);

std::string formatResults(const std::vector<RunResult>& results);

} // namespace ctxscope::cli
