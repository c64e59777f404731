// SPDX-License-Identifier: MIT
#pragma once

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

// Exact count, min, max, mean and stddev of a stream (Welford), for runs whose samples are
// too many to keep.
class RunningStats {
public:
    void add(double value);
    std::uint64_t count() const { return m_count; }
    double min() const { return m_min; }
    double max() const { return m_max; }
    double mean() const { return m_mean; }
    double stddev() const;

private:
    std::uint64_t m_count = 0;
    double m_min = 0;
    double m_max = 0;
    double m_mean = 0;
    double m_m2 = 0;
};

struct HistogramBucket {
    double lower = 0; // inclusive
    double upper = 0; // exclusive
    std::uint64_t count = 0;
};

// A log-bucketed histogram: each power of two is split into subBuckets equal parts, so a
// bucket is at most 1/subBuckets of its lower bound wide (HdrHistogram's layout). Values
// from 2^-8 to 2^40 (in whatever unit, here ns) have their own buckets; others are clamped
// into the first or last.
class LogHistogram {
public:
    explicit LogHistogram(int subBuckets = 64);
    void add(double value);
    std::uint64_t count() const { return m_count; }
    int subBuckets() const { return m_sub; }
    // The middle of the bucket holding rank q * (count - 1), clamped to the values seen;
    // within half a bucket (1 / (2 * subBuckets) relative) of the exact percentile.
    double percentile(double q) const;
    // Non-empty buckets, ascending.
    std::vector<HistogramBucket> buckets() const;

private:
    std::size_t indexOf(double value) const;
    double lowerOf(std::size_t index) const;
    int m_sub;
    std::vector<std::uint64_t> m_counts;
    std::uint64_t m_count = 0;
    double m_min = 0;
    double m_max = 0;
};

// Statistics of a stream that was too long to keep: exact min/max/mean/stddev from the
// running stats, percentiles from the histogram.
Summary summarize(const RunningStats& running, const LogHistogram& histogram);

} // namespace ctxscope
