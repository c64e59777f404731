// SPDX-License-Identifier: MIT
// Inline clock reads for the timing loop; the runner instantiates its loop once per source so
// the read is not behind a branch or a call.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CTXSCOPE_HAVE_TSC 1
#else
#define CTXSCOPE_HAVE_TSC 0
#endif

namespace ctxscope::clk {

inline std::uint64_t monotonicNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t tsc()
{
#if CTXSCOPE_HAVE_TSC
    // The fences keep the read from drifting across the work it brackets.
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    return monotonicNs();
#endif
}

} // namespace ctxscope::clk
