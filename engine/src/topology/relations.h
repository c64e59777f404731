// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/placement.h"

#include <array>
#include <vector>

namespace ctxscope {

inline constexpr std::size_t kPinnedClasses = 7; // every Relation but Unpinned

// The relation class of two PUs of one topology.
Relation classify(const PuInfo& a, const PuInfo& b);
// Which classes at least one pair of these PUs has (indexed by Relation), without looking at
// every pair: a 8192-PU topology has 33 million pairs but only a few hundred caches and zones.
std::array<bool, kPinnedClasses> classesPresent(const std::vector<const PuInfo*>& pus);

} // namespace ctxscope
