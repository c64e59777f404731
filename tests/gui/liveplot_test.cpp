// SPDX-License-Identifier: MIT
#include "guiaffinity.h"
#include "liveplot.h"
#include "qcp.h"
#include "switchratemeter.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <sched.h>

using namespace ctxscope;
using namespace ctxscope::gui;

TEST(LivePlot, AFastStreamIsDrawnAtMostFourTimesASecondAndNothingIsLost)
{
    LivePlot plot;
    plot.resize(800, 500);
    plot.show();
    plot.beginRun(1, QStringLiteral("futex · thread · same-pu (0,0)"), Qt::blue);
    const int before = plot.redrawCount();
    QElapsedTimer clock;
    clock.start();
    int sent = 0;
    // A batch every millisecond, far faster than the worker's 20 ms, for 800 ms.
    while (clock.elapsed() < 800) {
        QVector<double> batch(50);
        for (int i = 0; i < batch.size(); ++i)
            batch[i] = 8000 + (sent + i) % 97;
        plot.addSamples(1, batch);
        sent += static_cast<int>(batch.size());
        QTest::qWait(1);
    }
    QTest::qWait(LivePlot::kMaxRedrawIntervalMs);
    const double seconds = static_cast<double>(clock.elapsed()) / 1000.0;
    const int redraws = plot.redrawCount() - before;
    EXPECT_GE(redraws, 1);
    // The run's beginning, then the stream at kStreamIntervalMs at most.
    EXPECT_LE(redraws, static_cast<int>(seconds * 1000 / LivePlot::kStreamIntervalMs) + 2);
    EXPECT_EQ(plot.samples(1).size(), static_cast<std::size_t>(sent)) << "every sample is kept";
    EXPECT_LE(plot.samplesGraph(1)->dataCount(), sent) << "the scatter draws at most every sample";
    EXPECT_EQ(plot.medianGraph(1)->dataCount(), sent / LivePlot::kMedianWindow);
}

// Drawing 10^6 samples is slow (thinning and an antialiased replot): the next streamed redraw
// waits that cost / kStreamDrawShare, so drawing keeps to about 2% of a CPU, within the bounds.
TEST(LivePlot, ASlowRedrawWaitsFiftyTimesItsCostBeforeTheNextOne)
{
    LivePlot plot;
    plot.resize(1000, 500);
    plot.show();
    plot.beginRun(1, QStringLiteral("futex"), Qt::blue);
    QSignalSpy replotted(plot.plot(), &QCustomPlot::afterReplot);
    QVector<double> many(1'000'000);
    for (qsizetype i = 0; i < many.size(); ++i)
        many[i] = 8000 + static_cast<double>(i % 977);
    const int drawn = plot.redrawCount();
    plot.addSamples(1, many);
    // The redraw of the 10^6 samples, and its queued replot (a replot of the widget's own, on
    // show, is no redraw of ours).
    QElapsedTimer waited;
    waited.start();
    while (plot.redrawCount() == drawn && waited.elapsed() < 10'000)
        QTest::qWait(1);
    ASSERT_GT(plot.redrawCount(), drawn) << "no redraw of the 10^6 samples";
    replotted.clear();
    ASSERT_TRUE(replotted.wait(10'000)) << "no replot after the redraw";
    const double cost = plot.lastRedrawCostMs();
    EXPECT_GT(cost, 0.0);
    const int delay = plot.redrawDelayMs();
    EXPECT_GE(delay, LivePlot::kStreamIntervalMs);
    EXPECT_LE(delay, LivePlot::kMaxRedrawIntervalMs);
    EXPECT_GE(
        delay, std::min(cost / LivePlot::kStreamDrawShare, static_cast<double>(LivePlot::kMaxRedrawIntervalMs)) - 1);
    // The next batch is drawn no sooner than that (a coarse timer may fire 5% early).
    const int redraws = plot.redrawCount();
    QElapsedTimer clock;
    clock.start();
    plot.addSamples(1, QVector<double>(2500, 8100.0));
    while (plot.redrawCount() == redraws && clock.elapsed() < 10'000)
        QTest::qWait(1);
    EXPECT_GT(plot.redrawCount(), redraws);
    EXPECT_GE(static_cast<double>(clock.elapsed()), 0.9 * delay);
    EXPECT_EQ(plot.samples(1).size(), 1'002'500U) << "every sample is kept";
}

TEST(LivePlot, LogScaleTogglesTheAxisAndRunsCanBeHighlighted)
{
    LivePlot plot;
    plot.beginRun(1, QStringLiteral("a"), Qt::blue);
    plot.beginRun(2, QStringLiteral("b"), Qt::red);
    plot.setLogScale(false);
    EXPECT_EQ(plot.plot()->yAxis->scaleType(), QCPAxis::stLinear);
    plot.setLogScale(true);
    EXPECT_EQ(plot.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    plot.highlightRun(2);
    EXPECT_EQ(plot.highlightedRun(), 2U);
    EXPECT_GT(plot.medianGraph(2)->pen().widthF(), plot.medianGraph(1)->pen().widthF());
    EXPECT_LT(plot.medianGraph(1)->pen().color().alpha(), 255) << "the others fade";
    plot.highlightRun(7); // not plotted: nothing is emphasised
    EXPECT_FALSE(plot.highlightedRun().has_value());
    // Both runs are in the legend under their names, once each.
    EXPECT_EQ(plot.plot()->legend->itemCount(), 2);
    plot.removeRun(1);
    EXPECT_EQ(plot.samplesGraph(1), nullptr);
    EXPECT_EQ(plot.plot()->legend->itemCount(), 1);
}

// A session of many runs draws the dots of the newest few and of the selected one; every run
// keeps its median line. Removing a run lets an older cloud back in.
TEST(LivePlot, ManyRunsDrawTheNewestCloudsAndTheSelectedOne)
{
    LivePlot plot;
    constexpr quint64 kRuns = LivePlot::kCloudRuns + 3;
    for (quint64 id = 1; id <= kRuns; ++id) {
        plot.beginRun(id, QStringLiteral("run %1").arg(id), Qt::blue);
        plot.addSamples(id, QVector<double>(200, 8000.0 + static_cast<double>(id)));
    }
    for (quint64 id = 1; id <= kRuns; ++id) {
        EXPECT_EQ(plot.cloudShown(id), id > kRuns - LivePlot::kCloudRuns) << "run " << id;
        EXPECT_TRUE(plot.medianGraph(id)->visible()) << "run " << id;
    }
    plot.highlightRun(1);
    EXPECT_TRUE(plot.cloudShown(1)) << "the selected run's cloud is drawn";
    EXPECT_FALSE(plot.cloudShown(2));
    plot.highlightRun(std::nullopt);
    EXPECT_FALSE(plot.cloudShown(1));
    plot.removeRun(kRuns);
    EXPECT_TRUE(plot.cloudShown(kRuns - LivePlot::kCloudRuns));
    // The hidden clouds' samples are all kept, to be drawn when selected.
    EXPECT_EQ(plot.samples(1).size(), 200U);
    const int redraws = plot.redrawCount();
    plot.highlightRun(1);
    QElapsedTimer waited; // the redraw timer's turn, however busy the machine
    waited.start();
    while (plot.redrawCount() == redraws && waited.elapsed() < 10000)
        QTest::qWait(10);
    EXPECT_GT(plot.samplesGraph(1)->dataCount(), 0) << "thinned once it shows";
}

TEST(SwitchRateMeter, ReportsTheSystemRateWhileRunning)
{
    SwitchRateMeter meter(nullptr, 50);
    QSignalSpy rates(&meter, &SwitchRateMeter::rateAvailable);
    meter.start();
    ASSERT_TRUE(rates.wait(5000)) << "/proc/stat gave no ctxt counter";
    EXPECT_GE(rates.at(0).at(0).toDouble(), 0.0);
    const auto mean = meter.stop();
    ASSERT_TRUE(mean.has_value());
    EXPECT_GE(*mean, 0.0);
    EXPECT_FALSE(meter.isActive());
    EXPECT_FALSE(meter.stop().has_value()) << "stopped twice";
}

TEST(GuiAffinity, MovesTheAppOffTheMeasuredPusWhenThereAreSpareOnes)
{
    GuiAffinity affinity;
    const std::vector<int> original = affinity.original();
    ASSERT_FALSE(original.empty());
    const std::vector<int> measured { original.front() };
    const QString note = affinity.keepOff(measured);
    cpu_set_t mask;
    CPU_ZERO(&mask);
    ASSERT_EQ(::sched_getaffinity(0, sizeof(mask), &mask), 0);
    if (original.size() >= 2) {
        EXPECT_FALSE(CPU_ISSET(static_cast<std::size_t>(measured.front()), &mask)) << note.toStdString();
        EXPECT_TRUE(note.contains(QStringLiteral("off the measured")));
    } else { // one PU only: the status bar must say the app shares it
        EXPECT_TRUE(CPU_ISSET(static_cast<std::size_t>(measured.front()), &mask));
        EXPECT_TRUE(note.contains(QStringLiteral("shares")));
    }
    affinity.restore();
    ASSERT_EQ(::sched_getaffinity(0, sizeof(mask), &mask), 0);
    for (int cpu : original)
        EXPECT_TRUE(CPU_ISSET(static_cast<std::size_t>(cpu), &mask)) << "CPU " << cpu << " given back";
    // Measuring every PU leaves none to spare.
    EXPECT_TRUE(affinity.keepOff(original).contains(QStringLiteral("shares")));
}
