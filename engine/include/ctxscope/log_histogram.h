// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ctxscope {

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

} // namespace ctxscope
