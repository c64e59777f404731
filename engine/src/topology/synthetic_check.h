// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <string_view>

namespace ctxscope {

inline constexpr int kMaxSyntheticDepth = 32;
inline constexpr long kMaxSyntheticPus = 8192;

// Checks a synthetic description before hwloc sees it: libhwloc 2.9 aborts or runs out of
// memory on absurd ones. Accepts "[type:]count" levels separated by spaces, with optional
// hwloc attributes in parentheses; at most 32 levels and 8192 PUs in all.
Status checkSyntheticDescription(std::string_view description);

} // namespace ctxscope
