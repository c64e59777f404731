// SPDX-License-Identifier: MIT
// One stage per lesson and per run: after two lessons, or two runs of one placement, the live
// and distribution views show the last one's runs, name each run once, keep the y-axis a
// share (at most 100%), and never draw one p50/p99 label over another. Earlier runs are one
// switch away; a failed run leaves no legend entry. Real lessons and runs, through the worker.
#include "distributionplot.h"
#include "lessoncontroller.h"
#include "liveplot.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "runbroker.h"
#include "sessionstore.h"
#include "workerclient.h"

#include <QCheckBox>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <set>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

QStringList legendNames(const QCustomPlot& plot)
{
    QStringList names;
    for (int i = 0; i < plot.legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
            names << item->plottable()->name();
    return names;
}

void expectUnique(const QStringList& names)
{
    const std::set<QString> once(names.begin(), names.end());
    EXPECT_EQ(once.size(), static_cast<std::size_t>(names.size())) << names.join(QStringLiteral(" | ")).toStdString();
}

// The distribution in both modes: a share axis, and labels that never cover each other.
void expectShareAxisAndApartLabels(DistributionPlot& plot)
{
    for (auto mode : { DistributionPlot::Mode::Histogram, DistributionPlot::Mode::Cdf }) {
        plot.setMode(mode);
        plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
        EXPECT_GT(plot.plot()->yAxis->range().upper, 0);
        EXPECT_LE(plot.plot()->yAxis->range().upper, 100.0) << (mode == DistributionPlot::Mode::Cdf ? "CDF" : "bins");
        const std::vector<QRectF> labels = plot.labelRects();
        EXPECT_FALSE(labels.empty());
        for (std::size_t i = 0; i < labels.size(); ++i)
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                EXPECT_FALSE(labels[i].intersects(labels[j])) << "labels " << i << " and " << j << " overlap";
    }
    plot.setMode(DistributionPlot::Mode::Histogram);
}

bool runLesson(MainWindow& window, const char* id)
{
    QSignalSpy done(window.lessons(), &LessonController::finished);
    const Status started = window.lessons()->start(QString::fromLatin1(id));
    EXPECT_TRUE(started.ok()) << started.error().message;
    return started.ok() && done.wait(300'000) && done.at(0).at(0).toBool();
}

// Starts the spec through the window (as a lesson or script does) and waits for its end.
RunOutcome runOnce(MainWindow& window, const BenchSpec& spec, quint64* id)
{
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    const auto started = window.runs()->start(spec);
    EXPECT_TRUE(started.has_value());
    if (!started || !finished.wait(120'000))
        return RunOutcome::Failed;
    *id = *started;
    return finished.at(0).at(1).value<RunOutcome>();
}

} // namespace

TEST(Stage, TwoLessonsEachShowTheirOwnRunsNamedOnceOnAShareAxis)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.setTopology(*live);
    // Both lessons measure futex threads on one PU: the same placement, the same words.
    ASSERT_TRUE(runLesson(window, "pinning"));
    const std::size_t first = window.store()->runs().size();
    ASSERT_GT(first, 0U);
    ASSERT_TRUE(runLesson(window, "threads-vs-processes"));
    const auto& runs = window.store()->runs();
    ASSERT_GT(runs.size(), first);

    LivePlot* livePlot = window.plots()->livePlot();
    DistributionPlot* distribution = window.plots()->distributionPlot();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const bool second = i >= first;
        EXPECT_EQ(livePlot->isShown(runs[i].id), second) << "run " << i + 1;
        EXPECT_EQ(distribution->isShown(runs[i].id), second) << "run " << i + 1;
    }
    const QStringList names = legendNames(*distribution->plot());
    EXPECT_EQ(static_cast<std::size_t>(names.size()), runs.size() - first);
    expectUnique(names);
    expectUnique(legendNames(*livePlot->plot()));
    expectShareAxisAndApartLabels(*distribution);

    // Earlier runs, one switch away: every run, each still named once, the axis still a share.
    window.plots()->earlierRunsSwitch()->setChecked(true);
    for (const auto& row : runs)
        EXPECT_TRUE(distribution->isShown(row.id));
    const QStringList all = legendNames(*distribution->plot());
    EXPECT_EQ(static_cast<std::size_t>(all.size()), runs.size());
    expectUnique(all);
    livePlot->plot()->replot(QCustomPlot::rpImmediateRefresh);
    expectUnique(legendNames(*livePlot->plot()));
    expectShareAxisAndApartLabels(*distribution);
    // With one run highlighted only its p50 and p99 are labelled.
    distribution->highlightRun(runs.front().id);
    distribution->plot()->replot(QCustomPlot::rpImmediateRefresh);
    EXPECT_LE(distribution->labelRects().size(), 2U);
}

TEST(Stage, TwoIdenticalRunsAreToldApartAndAFailedRunLeavesNoLegendEntry)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { 0, 0 };
    spec.minTimeSeconds = 0.05;
    spec.repetitions = 2;
    quint64 a = 0, b = 0;
    ASSERT_EQ(runOnce(window, spec, &a), RunOutcome::Succeeded);
    ASSERT_EQ(runOnce(window, spec, &b), RunOutcome::Succeeded);
    LivePlot* livePlot = window.plots()->livePlot();
    DistributionPlot* distribution = window.plots()->distributionPlot();
    // A new run is a stage of its own.
    EXPECT_FALSE(livePlot->isShown(a));
    EXPECT_TRUE(livePlot->isShown(b));
    EXPECT_EQ(legendNames(*distribution->plot()).size(), 1);
    window.plots()->earlierRunsSwitch()->setChecked(true);
    livePlot->plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QStringList both = legendNames(*livePlot->plot());
    ASSERT_EQ(both.size(), 2);
    expectUnique(both);
    expectUnique(legendNames(*distribution->plot()));
    EXPECT_TRUE(both[0].startsWith(QStringLiteral("#1 "))) << both[0].toStdString();
    EXPECT_TRUE(both[1].startsWith(QStringLiteral("#2 "))) << both[1].toStdString();

    // A working set far beyond any machine's memory: the worker refuses the run.
    BenchSpec huge = spec;
    huge.wsBytes = std::uint64_t { 900 } << 30;
    QSignalSpy began(window.controller(), &WorkerClient::runStarted);
    quint64 failed = 0;
    ASSERT_EQ(runOnce(window, huge, &failed), RunOutcome::Failed);
    // It began as a run does (its curve was there), then the worker refused it.
    ASSERT_FALSE(began.isEmpty());
    EXPECT_EQ(began.back().at(0).toULongLong(), failed);
    livePlot->plot()->replot(QCustomPlot::rpImmediateRefresh);
    EXPECT_EQ(livePlot->medianGraph(failed), nullptr);
    for (const QString& name : legendNames(*livePlot->plot()))
        EXPECT_FALSE(name.contains(QStringLiteral("failed"))) << name.toStdString();
    EXPECT_EQ(legendNames(*livePlot->plot()).size(), 2);
}
