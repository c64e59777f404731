// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace ctxscope {

// "812 ns", "2.43 µs", "1.20 ms": three significant digits, the unit chosen per value.
std::string formatDuration(double ns);

} // namespace ctxscope
