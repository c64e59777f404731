// SPDX-License-Identifier: MIT
// An unpinned run is not a placement but a mixture of placements: the scheduler may keep
// the tasks on one PU for one repetition and spread them for the next. These functions say
// how an unpinned run's repetitions (and samples) fall between the pinned placements' costs,
// so a lesson compares pinned placements with each other and describes the unpinned one.
#pragma once

#include "ctxscope/result.h"

#include <span>
#include <string>
#include <vector>

namespace ctxscope::lesson {

// A value "looks like" the pinned placement with the nearest median (on a log scale) when it
// is within this factor of it; farther from every pinned median it looks like none of them.
inline constexpr double kLooksLikeRatio = 1.25;

struct Mixture {
    std::vector<int> values; // per pinned placement (same order): values that looked like it
    int unlike = 0; // values farther than kLooksLikeRatio from every pinned median
    int total = 0;
};

// Which pinned placement each value looks like. Pinned results with a median <= 0 are skipped.
Mixture mixtureOf(std::span<const double> values, const std::vector<const RunResult*>& pinned);

// "2 of 3 runs looked like same-pu (5.35 µs), 1 like same-package (14.7 µs)"; noun is the
// plural of what the values are ("runs", "launches"). "" when there are no values.
std::string describeMixture(const Mixture& m, const std::vector<const RunResult*>& pinned, std::string_view noun);

// "62% of its samples were nearer same-pu's median, 38% nearer same-package's"; "" without
// samples or with fewer than two pinned placements.
std::string describeSampleMixture(const RunResult& unpinned, const std::vector<const RunResult*>& pinned);

} // namespace ctxscope::lesson
