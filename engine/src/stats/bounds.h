// SPDX-License-Identifier: MIT
// What the running statistics and the histogram share.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ctxscope::stats {

// The min and max of a stream after one more value; countBefore is how many came before
// it (the first value is both bounds, whatever the zero-initialised ones were).
inline void widenBounds(std::uint64_t countBefore, double value, double& lo, double& hi)
{
    if (countBefore == 0) {
        lo = hi = value;
    } else {
        lo = std::min(lo, value);
        hi = std::max(hi, value);
    }
}

} // namespace ctxscope::stats
