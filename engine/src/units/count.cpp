// SPDX-License-Identifier: MIT
#include "ctxscope/units.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope {

std::string formatCount(double value)
{
    // Built by appending, not by std::string::insert, which GCC 12 at -O2 reports as a
    // memcpy past the maximum object size (a false -Wstringop-overflow) once more headers are in view.
    const std::string digits = fmt::format("{:.0f}", std::max(0.0, value));
    std::string out;
    out.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace ctxscope
