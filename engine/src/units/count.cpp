// SPDX-License-Identifier: MIT
#include "ctxscope/units.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope {

std::string formatCount(double value)
{
    std::string digits = fmt::format("{:.0f}", std::max(0.0, value));
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

} // namespace ctxscope
