// SPDX-License-Identifier: MIT
// Reading handover.bpf.c's step bins (handover_maps.h's layout) back into durations.
#pragma once

#include "bpf/handover_maps.h"

#include <cstdint>
#include <span>

namespace ctxscope::bpf {

// The bin a duration falls in, as handover.bpf.c's bin_of computes it.
inline std::uint32_t stepBin(std::uint64_t ns)
{
    if (ns < CTXSCOPE_SUB_BINS)
        return static_cast<std::uint32_t>(ns);
    const int p = 63 - __builtin_clzll(ns);
    if (p > CTXSCOPE_STEP_TOP)
        return CTXSCOPE_STEP_BINS - 1;
    const auto sub = static_cast<std::uint32_t>(ns >> (p - CTXSCOPE_SUB_BITS)) & (CTXSCOPE_SUB_BINS - 1);
    return static_cast<std::uint32_t>(p - CTXSCOPE_SUB_BITS + 1) * CTXSCOPE_SUB_BINS + sub;
}

// The least duration bin `b` holds, and how many ns it spans.
inline double stepBinLow(std::uint32_t b)
{
    if (b < CTXSCOPE_SUB_BINS)
        return b;
    const std::uint32_t p = b / CTXSCOPE_SUB_BINS + CTXSCOPE_SUB_BITS - 1;
    const std::uint32_t sub = b % CTXSCOPE_SUB_BINS;
    return static_cast<double>((CTXSCOPE_SUB_BINS + sub) * (1ULL << (p - CTXSCOPE_SUB_BITS)));
}
inline double stepBinWidth(std::uint32_t b)
{
    if (b < CTXSCOPE_SUB_BINS)
        return 1;
    return static_cast<double>(1ULL << (b / CTXSCOPE_SUB_BINS - 1));
}

// The q-quantile (0 < q < 1) of the durations in `bins`, as percentileOfSorted places it
// (between the two nearest ranks), each rank taken linearly inside its bin: within one bin's
// width (a sixteenth of its power of two) of the exact one. 0 for no durations.
inline double stepBinsQuantile(std::span<const std::uint64_t> bins, double q)
{
    std::uint64_t total = 0;
    for (std::uint64_t c : bins)
        total += c;
    if (total == 0)
        return 0;
    // The value of rank r (0-based): the r-th duration, spread evenly over its bin.
    auto valueAt = [&](std::uint64_t r) {
        std::uint64_t below = 0;
        for (std::uint32_t b = 0; b < bins.size(); ++b) {
            if (r < below + bins[b] && b < CTXSCOPE_SUB_BINS)
                return stepBinLow(b); // a whole number of ns, exactly
            if (r < below + bins[b])
                return stepBinLow(b)
                    + stepBinWidth(b) * (static_cast<double>(r - below) + 0.5) / static_cast<double>(bins[b]);
            below += bins[b];
        }
        return stepBinLow(static_cast<std::uint32_t>(bins.size() - 1));
    };
    const double at = q * static_cast<double>(total - 1);
    const auto lo = static_cast<std::uint64_t>(at);
    const double frac = at - static_cast<double>(lo);
    const double a = valueAt(lo);
    return frac > 0 && lo + 1 < total ? a + (valueAt(lo + 1) - a) * frac : a;
}

} // namespace ctxscope::bpf
