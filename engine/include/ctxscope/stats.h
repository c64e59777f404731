// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/log_histogram.h"
#include "ctxscope/running_stats.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ctxscope {

// The statistics every result carries. Percentiles interpolate linearly between the two
// nearest ranks (numpy's default, R type 7); stddev is the sample stddev (n - 1);
// cv = stddev / mean (0 when the mean is 0).
struct Summary {
    std::uint64_t count = 0;
    double min = 0;
    double p50 = 0;
    double mean = 0;
    double p90 = 0;
    double p99 = 0;
    double p999 = 0;
    double max = 0;
    double stddev = 0;
    double cv = 0;
};

// q in [0, 1] of already sorted values; 0 for an empty span.
double percentileOfSorted(std::span<const double> sorted, double q);
// Exact statistics of the values (sorts a copy). All zero for an empty span.
Summary summarize(std::span<const double> values);

// The middle half of a distribution.
struct Quartiles {
    double p25 = 0;
    double p50 = 0;
    double p75 = 0;
};
// The quartiles of the values (sorts a copy); all zero for an empty span.
Quartiles quartiles(std::span<const double> values);

// Statistics of a stream that was too long to keep: exact min/max/mean/stddev from the
// running stats, percentiles from the histogram.
Summary summarize(const RunningStats& running, const LogHistogram& histogram);

} // namespace ctxscope
