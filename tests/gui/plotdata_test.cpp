// SPDX-License-Identifier: MIT
#include "bytesticker.h"
#include "durationlogticker.h"
#include "durationticker.h"
#include "plotdata.h"
#include "switchratemeter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace ctxscope;
using namespace ctxscope::gui;

TEST(PlotData, LogBinsRegroupTheHistogramWithoutLosingSamples)
{
    // Two clusters an octave and a half apart, as the engine buckets them (64 per octave).
    const std::vector<HistogramBucket> buckets { { 8192, 8320, 300 }, { 8320, 8448, 600 }, { 24576, 24960, 100 } };
    const auto bins = logBins(buckets, 8);
    ASSERT_FALSE(bins.empty());
    double total = 0;
    for (std::size_t i = 0; i < bins.size(); ++i) {
        total += bins[i].fraction;
        EXPECT_LT(bins[i].lower, bins[i].upper);
        EXPECT_NEAR(std::log2(bins[i].upper / bins[i].lower), 1.0 / 8, 1e-9) << "equal width in log space";
        if (i > 0) {
            EXPECT_DOUBLE_EQ(bins[i].lower, bins[i - 1].upper) << "contiguous, empty bins included";
        }
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
    EXPECT_LE(bins.front().lower, 8192);
    EXPECT_GE(bins.back().upper, 24960);
    EXPECT_NEAR(bins.front().fraction, 0.9, 1e-12); // the first cluster shares one bin
    EXPECT_NEAR(bins.back().fraction, 0.1, 1e-12);
    EXPECT_TRUE(logBins({}, 8).empty());
}

TEST(PlotData, CdfRisesFromZeroToOneAtTheBucketEdges)
{
    const std::vector<HistogramBucket> buckets { { 100, 110, 1 }, { 110, 120, 2 }, { 200, 210, 1 } };
    const auto cdf = cdfPoints(buckets);
    ASSERT_EQ(cdf.size(), 4U);
    EXPECT_DOUBLE_EQ(cdf[0].ns, 100);
    EXPECT_DOUBLE_EQ(cdf[0].fraction, 0);
    EXPECT_DOUBLE_EQ(cdf[1].fraction, 0.25);
    EXPECT_DOUBLE_EQ(cdf[2].fraction, 0.75);
    EXPECT_DOUBLE_EQ(cdf[3].ns, 210);
    EXPECT_DOUBLE_EQ(cdf[3].fraction, 1);
}

TEST(PlotData, RunningMedianGivesOnePointPerWindowAtItsCentre)
{
    RunningMedian median(4);
    const std::vector<double> first { 5, 1, 100, 3, 7 }; // a window {5,1,100,3} and one pending
    const auto points = median.add(first);
    ASSERT_EQ(points.size(), 1U);
    EXPECT_DOUBLE_EQ(points[0].index, 1.5);
    EXPECT_DOUBLE_EQ(points[0].ns, 4); // (3 + 5) / 2: an outlier does not move it
    const std::vector<double> second { 9, 8, 10 };
    const auto more = median.add(second);
    ASSERT_EQ(more.size(), 1U); // {7, 9, 8, 10}
    EXPECT_DOUBLE_EQ(more[0].index, 5.5);
    EXPECT_DOUBLE_EQ(more[0].ns, 8.5);
    EXPECT_TRUE(median.flush().empty());
    const std::vector<double> tail { 2, 6, 4 };
    (void)median.add(tail);
    const auto last = median.flush();
    ASSERT_EQ(last.size(), 1U);
    EXPECT_DOUBLE_EQ(last[0].index, 9);
    EXPECT_DOUBLE_EQ(last[0].ns, 4);
    EXPECT_EQ(median.count(), 11U);
}

TEST(PlotData, TickLabelsCarryUnits)
{
    EXPECT_EQ(durationTickLabel(0), QStringLiteral("0"));
    EXPECT_EQ(durationTickLabel(850), QStringLiteral("850 ns"));
    EXPECT_EQ(durationTickLabel(8500), QStringLiteral("8.5 µs"));
    EXPECT_EQ(durationTickLabel(1'200'000), QStringLiteral("1.2 ms"));
    EXPECT_EQ(durationTickLabel(3e9), QStringLiteral("3 s"));
    EXPECT_EQ(durationTickLabel(0.5), QStringLiteral("0.5 ns"));
}

TEST(PlotData, LogTickerLabelsEveryRangeWithUnits)
{
    DurationLogTicker ticker;
    for (const auto& [lo, hi] :
        std::vector<std::pair<double, double>> { { 8000, 9500 }, { 8000, 120'000 }, { 8000, 13e6 }, { 20, 4e9 } }) {
        QVector<double> ticks;
        QVector<QString> labels;
        ticker.generate(QCPRange(lo, hi), QLocale::c(), QLatin1Char('g'), 6, ticks, nullptr, &labels);
        EXPECT_GE(ticks.size(), 2) << lo << ".." << hi << ": an axis needs labels";
        EXPECT_LE(ticks.size(), 9) << lo << ".." << hi << ": labels would collide";
        for (qsizetype i = 0; i < ticks.size(); ++i) {
            EXPECT_GE(ticks[i], lo);
            EXPECT_LE(ticks[i], hi);
            EXPECT_TRUE(labels[i].endsWith(QStringLiteral("s"))) << labels[i].toStdString();
        }
    }
}

TEST(PlotData, BytesTicksReadAsKMG)
{
    EXPECT_EQ(bytesTickLabel(kZeroBytesPosition), QStringLiteral("0"));
    EXPECT_EQ(bytesTickLabel(4096), QStringLiteral("4K"));
    EXPECT_EQ(bytesTickLabel(1 << 20), QStringLiteral("1M"));
    EXPECT_EQ(bytesTickLabel(512.0 * (1 << 20)), QStringLiteral("512M"));
    EXPECT_EQ(bytesTickLabel(2.0 * (1 << 30)), QStringLiteral("2G"));
}

TEST(SwitchRateMeter, ReadsTheContextSwitchCounterOfProcStat)
{
    const QByteArray stat = "cpu  10 0 20 3000 0 0 0 0 0 0\ncpu0 5 0 10 1500 0 0 0 0 0 0\nintr 12345 0 0\n"
                            "ctxt 987654321\nbtime 1700000000\nprocesses 4242\n";
    EXPECT_EQ(SwitchRateMeter::parseContextSwitches(stat), 987654321U);
    EXPECT_FALSE(SwitchRateMeter::parseContextSwitches("cpu 1 2 3\n").has_value());
    EXPECT_FALSE(SwitchRateMeter::parseContextSwitches("ctxt lots\n").has_value());
}

TEST(PlotData, ThinnedScatterKeepsEverySpikeAndBoundsThePointCount)
{
    // Few samples: all of them, in order.
    const std::vector<double> few { 5, 3, 9 };
    const ThinnedScatter all = thinScatter(few, 10, 3);
    EXPECT_EQ(all.values, few);
    EXPECT_EQ(all.keys, (std::vector<double> { 0, 1, 2 }));

    // A million samples of a sawtooth with one spike and one dip: at most 5 points per bucket,
    // in index order, each a real sample at its own index, the spike and the dip among them.
    std::vector<double> many(1'000'000);
    for (std::size_t i = 0; i < many.size(); ++i)
        many[i] = 1000 + static_cast<double>(i % 97);
    many[777'777] = 1e7;
    many[123'457] = 1;
    const std::size_t buckets = 800;
    const ThinnedScatter drawn = thinScatter(many, buckets, 3);
    ASSERT_EQ(drawn.keys.size(), drawn.values.size());
    EXPECT_LE(drawn.values.size(), buckets * 5);
    EXPECT_GE(drawn.values.size(), buckets * 4) << "each bucket keeps its extremes and an even selection";
    for (std::size_t i = 0; i < drawn.keys.size(); ++i) {
        if (i > 0) {
            ASSERT_LT(drawn.keys[i - 1], drawn.keys[i]);
        }
        ASSERT_EQ(drawn.values[i], many[static_cast<std::size_t>(drawn.keys[i])]);
    }
    EXPECT_NE(std::find(drawn.values.begin(), drawn.values.end(), 1e7), drawn.values.end()) << "the spike is drawn";
    EXPECT_NE(std::find(drawn.values.begin(), drawn.values.end(), 1.0), drawn.values.end()) << "the dip is drawn";
    // Every bucket's maximum is drawn: the top of the sawtooth appears across the whole run.
    EXPECT_GE(std::count(drawn.values.begin(), drawn.values.end(), 1096.0), static_cast<long>(buckets) - 1);
}
