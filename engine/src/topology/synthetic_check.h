// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <cstddef>
#include <string_view>

namespace ctxscope {

inline constexpr int kMaxSyntheticDepth = 32;
inline constexpr long kMaxSyntheticPus = 8192;
inline constexpr std::size_t kMaxSyntheticLength = 4096;

// Checks a synthetic description before hwloc sees it: libhwloc 2.9 aborts or runs out of
// memory on absurd ones. Accepts "[type:]count" levels separated by spaces, each with optional
// hwloc attributes in parentheses, and attached memory in brackets ("[numa]", "[numa:2]");
// at most 32 levels and 8192 PUs in all. Whether hwloc knows the type names is hwloc's to say.
Status checkSyntheticDescription(std::string_view description);

} // namespace ctxscope
