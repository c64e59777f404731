// SPDX-License-Identifier: MIT
// Sizes as the engine tests write them: powers of 1024, as ctxscope's units (units.h) read them.
#pragma once

#include <cstdint>

namespace ctxscope::test {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;

} // namespace ctxscope::test
