// SPDX-License-Identifier: MIT
// What the self-benchmarks that time bare loops share: a median and a steady clock in ns.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace ctxscope::perf {

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline double nowNs()
{
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace ctxscope::perf
