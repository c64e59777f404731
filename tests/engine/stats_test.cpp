// SPDX-License-Identifier: MIT
#include "ctxscope/runner.h"
#include "ctxscope/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace ctxscope;

TEST(Stats, OneToTenHasKnownValues)
{
    const std::vector<double> v { 7, 1, 10, 4, 2, 9, 3, 8, 6, 5 }; // unsorted on purpose
    const Summary s = summarize(v);
    EXPECT_EQ(s.count, 10U);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 10);
    EXPECT_DOUBLE_EQ(s.mean, 5.5);
    EXPECT_DOUBLE_EQ(s.p50, 5.5);
    EXPECT_NEAR(s.p90, 9.1, 1e-12); // rank 0.9 * 9 = 8.1: 9 + 0.1 * (10 - 9)
    EXPECT_NEAR(s.p99, 9.91, 1e-12);
    EXPECT_NEAR(s.p999, 9.991, 1e-12);
    EXPECT_NEAR(s.stddev, std::sqrt(82.5 / 9), 1e-12); // sample stddev: n - 1
    EXPECT_NEAR(s.cv, std::sqrt(82.5 / 9) / 5.5, 1e-12);
}

TEST(Stats, SingleValueAndEmpty)
{
    const std::vector<double> one { 42 };
    const Summary s = summarize(one);
    EXPECT_EQ(s.count, 1U);
    EXPECT_DOUBLE_EQ(s.p50, 42);
    EXPECT_DOUBLE_EQ(s.p999, 42);
    EXPECT_DOUBLE_EQ(s.stddev, 0);
    EXPECT_DOUBLE_EQ(s.cv, 0);
    EXPECT_EQ(summarize(std::vector<double> {}).count, 0U);
    EXPECT_DOUBLE_EQ(percentileOfSorted(std::vector<double> {}, 0.5), 0);
}

TEST(Stats, PercentileInterpolatesBetweenRanks)
{
    const std::vector<double> v { 10, 20 };
    EXPECT_DOUBLE_EQ(percentileOfSorted(v, 0), 10);
    EXPECT_DOUBLE_EQ(percentileOfSorted(v, 0.25), 12.5);
    EXPECT_DOUBLE_EQ(percentileOfSorted(v, 1), 20);
    EXPECT_DOUBLE_EQ(percentileOfSorted(v, 2), 20); // clamped
}

TEST(Stats, ZeroMeanHasZeroCv)
{
    const std::vector<double> v { -1, 1 };
    EXPECT_DOUBLE_EQ(summarize(v).cv, 0);
}

TEST(Stats, RunningStatsMatchesExact)
{
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> dist(7, 0.5);
    std::vector<double> v;
    RunningStats running;
    for (int i = 0; i < 10000; ++i) {
        v.push_back(dist(rng));
        running.add(v.back());
    }
    const Summary exact = summarize(v);
    EXPECT_EQ(running.count(), exact.count);
    EXPECT_DOUBLE_EQ(running.min(), exact.min);
    EXPECT_DOUBLE_EQ(running.max(), exact.max);
    EXPECT_NEAR(running.mean(), exact.mean, exact.mean * 1e-12);
    EXPECT_NEAR(running.stddev(), exact.stddev, exact.stddev * 1e-9);
}

TEST(Stats, HistogramPercentilesWithinHalfABucket)
{
    std::mt19937_64 rng(11);
    std::lognormal_distribution<double> dist(8, 1.0);
    std::vector<double> v;
    LogHistogram h(64);
    RunningStats running;
    for (int i = 0; i < 20000; ++i) {
        v.push_back(dist(rng));
        h.add(v.back());
        running.add(v.back());
    }
    std::sort(v.begin(), v.end());
    for (double q : { 0.5, 0.9, 0.99, 0.999 }) {
        // The histogram picks the sample at rank floor(q (n-1)); its bucket is at most 1/64 wide.
        const double nearest = v[static_cast<std::size_t>(std::floor(q * static_cast<double>(v.size() - 1)))];
        EXPECT_NEAR(h.percentile(q), nearest, nearest / 64.0) << "q=" << q;
    }
    const Summary approx = summarize(running, h);
    const Summary exact = summarize(v);
    EXPECT_NEAR(approx.p50, exact.p50, exact.p50 * 0.02);
    EXPECT_DOUBLE_EQ(approx.min, exact.min);
    EXPECT_DOUBLE_EQ(approx.max, exact.max);
}

TEST(Stats, HistogramBucketsAreOrderedAndCountEverything)
{
    LogHistogram h(8);
    for (double x : { 0.0, -3.0, 1.0, 1.1, 1.2, 3.0, 1000.0, 1e20 })
        h.add(x);
    const auto buckets = h.buckets();
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        EXPECT_LT(buckets[i].lower, buckets[i].upper);
        if (i > 0) {
            EXPECT_LE(buckets[i - 1].upper, buckets[i].lower);
        }
        total += buckets[i].count;
    }
    EXPECT_EQ(total, 8U);
    EXPECT_EQ(h.count(), 8U);
    // 1.0 and 1.1 share the bucket [1, 1.125) of eight per octave; 1.2 is in the next one.
    const auto one = std::find_if(buckets.begin(), buckets.end(), [](const auto& b) { return b.lower == 1.0; });
    ASSERT_NE(one, buckets.end());
    EXPECT_DOUBLE_EQ(one->upper, 1.125);
    EXPECT_EQ(one->count, 2U);
}

TEST(Stats, AutoOpsPerSampleKeepsTheClockUnderOnePercent)
{
    EXPECT_EQ(autoOpsPerSample(2000, 20), 1U); // a switch: one op per sample
    EXPECT_EQ(autoOpsPerSample(100, 20), 20U); // need 20
    EXPECT_EQ(autoOpsPerSample(90, 20), 50U); // need 22.2: next in 1-2-5
    EXPECT_EQ(autoOpsPerSample(1, 30), 5000U); // need 3000
    EXPECT_EQ(autoOpsPerSample(0, 30), 1U); // unknown op time
}
