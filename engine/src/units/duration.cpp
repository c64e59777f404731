// SPDX-License-Identifier: MIT
#include "ctxscope/units.h"

#include <array>
#include <cmath>
#include <fmt/core.h>

namespace ctxscope {

std::string formatDuration(double ns)
{
    static constexpr std::array<const char*, 4> kUnits { "ns", "µs", "ms", "s" };
    if (!std::isfinite(ns))
        return "?";
    double v = ns;
    std::size_t unit = 0;
    // Move up a unit when the value would print as 1000 or more at three significant digits.
    while (std::abs(v) >= 999.5 && unit + 1 < kUnits.size()) {
        v /= 1000;
        ++unit;
    }
    return fmt::format("{:.3g} {}", v, kUnits[unit]);
}

} // namespace ctxscope
