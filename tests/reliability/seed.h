// SPDX-License-Identifier: MIT
// The random seed of a randomized test: CTXSCOPE_SEED when set (to replay a failure), else a
// fresh one. Printed either way so a failing run can be repeated.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>

namespace ctxscope::test {

inline unsigned seed()
{
    unsigned s = 0;
    if (const char* text = std::getenv("CTXSCOPE_SEED"))
        s = static_cast<unsigned>(std::strtoul(text, nullptr, 10));
    else
        s = std::random_device {}();
    std::printf("random seed %u (replay with CTXSCOPE_SEED=%u)\n", s, s);
    return s;
}

} // namespace ctxscope::test
