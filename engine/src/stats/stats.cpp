// SPDX-License-Identifier: MIT
#include "ctxscope/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ctxscope {

namespace {

// One summary from the moments and a percentile function (exact from sorted samples, or
// from the histogram when the samples were not all kept).
template <typename Percentile> Summary summaryOf(const RunningStats& running, const Percentile& percentile)
{
    Summary s;
    s.count = running.count();
    if (s.count == 0)
        return s;
    s.min = running.min();
    s.max = running.max();
    s.mean = running.mean();
    s.stddev = running.stddev();
    s.cv = s.mean != 0 ? s.stddev / s.mean : 0;
    s.p50 = percentile(0.5);
    s.p90 = percentile(0.9);
    s.p99 = percentile(0.99);
    s.p999 = percentile(0.999);
    return s;
}

} // namespace

double percentileOfSorted(std::span<const double> sorted, double q)
{
    if (sorted.empty())
        return 0;
    const double h = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarize(std::span<const double> values)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    RunningStats running;
    for (double v : sorted)
        running.add(v);
    return summaryOf(running, [&sorted](double q) { return percentileOfSorted(sorted, q); });
}

Quartiles quartiles(std::span<const double> values)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return Quartiles { percentileOfSorted(sorted, 0.25), percentileOfSorted(sorted, 0.5),
        percentileOfSorted(sorted, 0.75) };
}

Summary summarize(const RunningStats& running, const LogHistogram& histogram)
{
    return summaryOf(running, [&histogram](double q) { return histogram.percentile(q); });
}

} // namespace ctxscope
