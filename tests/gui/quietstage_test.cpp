// SPDX-License-Identifier: MIT
// The app stays out of its own measurement: on the quiet stage nothing is drawn while a
// repetition streams (each repetition is drawn once, as the next begins), the setting is on by
// default in presentation mode, and a run's interference names this app apart from other tasks.
// Real runs, through the worker.
#include "liveplot.h"
#include "lookcontroller.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "quietstage.h"
#include "resultsmodel.h"
#include "runbroker.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "workerclient.h"

#include <QAction>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <gtest/gtest.h>

#include <map>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

// Settings in a test location, with neither quiet-stage choice made yet.
void freshSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("view"));
}

BenchSpec futexOnOnePu(int repetitions)
{
    BenchSpec spec;
    spec.bench = "futex";
    const int cpu = Topology::loadLive()->allowedPus().back();
    spec.cpus = { cpu, cpu };
    spec.minTimeSeconds = 0.3;
    spec.repetitions = repetitions;
    return spec;
}

} // namespace

TEST(QuietStage, TheLivePlotHoldsStreamedSamplesUntilARepetitionEnds)
{
    LivePlot plot;
    plot.resize(800, 500);
    plot.show();
    plot.setQuietStage(true);
    plot.beginRun(1, QStringLiteral("futex"), Qt::blue);
    QTest::qWait(3 * LivePlot::kRedrawIntervalMs); // the run's beginning is drawn
    const int before = plot.redrawCount();
    int sent = 0;
    // Batches every 20 ms, as the worker sends them, for longer than the slowest streamed pace.
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < LivePlot::kMaxRedrawIntervalMs + 200) {
        plot.addSamples(1, QVector<double>(100, 8000.0 + sent % 7));
        sent += 100;
        QTest::qWait(20);
    }
    EXPECT_EQ(plot.redrawCount(), before) << "a frame was drawn while the repetition streamed";
    plot.drawHeld(); // the repetition ended
    QTest::qWait(3 * LivePlot::kRedrawIntervalMs);
    EXPECT_EQ(plot.redrawCount(), before + 1);
    EXPECT_EQ(plot.samples(1).size(), static_cast<std::size_t>(sent)) << "every sample is kept";
    // Off the quiet stage the same stream is drawn as it comes.
    plot.setQuietStage(false);
    const int live = plot.redrawCount();
    for (int i = 0; i < 30; ++i) {
        plot.addSamples(1, QVector<double>(100, 8100.0));
        QTest::qWait(20);
    }
    QTest::qWait(LivePlot::kMaxRedrawIntervalMs);
    EXPECT_GT(plot.redrawCount(), live);
}

TEST(QuietStage, ARunOnTheQuietStageIsDrawnOnceARepetition)
{
    freshSettings();
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.setTopology(*live);
    window.quietStage()->action()->setChecked(true);
    LivePlot* plot = window.plots()->livePlot();
    ASSERT_TRUE(plot->quietStage());
    // The repetition the stream is in, as the views hear of it (queued, after StreamRouter), and
    // the frames drawn while it was.
    int repetition = -1;
    std::map<int, int> framesIn;
    QStringList progress;
    QObject::connect(
        window.controller(), &WorkerClient::samplesAvailable, &window,
        [&](quint64, int r, quint64, const QVector<double>&) {
            repetition = std::max(repetition, r);
            progress << window.statusPanel()->runProgressText();
        },
        Qt::QueuedConnection);
    QObject::connect(plot->plot(), &QCustomPlot::afterReplot, &window, [&] { ++framesIn[repetition]; });
    const int repetitions = 4;
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    const auto id = window.runs()->start(futexOnOnePu(repetitions));
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded);
    ASSERT_EQ(repetition, repetitions - 1);
    // Each repetition is drawn once, when the next begins (the held samples of the one before);
    // the last once more at the end of the run.
    for (int r = 0; r < repetitions - 1; ++r)
        EXPECT_LE(framesIn[r], 1) << "frames drawn while repetition " << r + 1 << " streamed";
    EXPECT_LE(framesIn[repetitions - 1], 2);
    // The progress said which repetition ran, never a percentage that changes within one.
    for (const QString& text : progress)
        EXPECT_FALSE(text.contains(QLatin1Char('%'))) << text.toStdString();
    const auto& rows = window.store()->runs();
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_EQ(plot->samples(*id).size(), rows.front().result->totalSamples) << "every sample is kept";
}

TEST(QuietStage, OnByDefaultInPresentationModeAndRememberedForEach)
{
    freshSettings();
    MainWindow window;
    QuietStage* quiet = window.quietStage();
    LivePlot* plot = window.plots()->livePlot();
    EXPECT_FALSE(quiet->isOn()) << "at the desk the plot is live by default";
    window.look()->setPresentationMode(true);
    EXPECT_TRUE(quiet->isOn());
    EXPECT_TRUE(plot->quietStage());
    EXPECT_TRUE(quiet->action()->isChecked());
    quiet->action()->setChecked(false); // the lecturer wants the live plot on the projector
    EXPECT_FALSE(plot->quietStage());
    window.look()->setPresentationMode(false);
    window.look()->setPresentationMode(true);
    EXPECT_FALSE(plot->quietStage()) << "the choice made in presentation mode is kept";
    window.look()->setPresentationMode(false);
    EXPECT_FALSE(plot->quietStage());
    freshSettings();
}

// The worker is told this app's PID: the run's interference names the app's share apart from
// other tasks', and the results table says so.
TEST(QuietStage, TheInterferenceNamesThisAppApart)
{
    freshSettings();
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(window.runs()->start(futexOnOnePu(3)).has_value());
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded);
    const auto& rows = window.store()->runs();
    ASSERT_EQ(rows.size(), 1U);
    const auto& interference = rows.front().result->interference;
    ASSERT_TRUE(interference.has_value()) << "the run measured too briefly for /proc/stat";
    EXPECT_EQ(interference->controllerPid, QCoreApplication::applicationPid());
    for (const InterferingTask& t : interference->topTasks)
        EXPECT_NE(t.pid, QCoreApplication::applicationPid()) << "the app named among other tasks";
    const QString tip = window.resultsModel()
                            ->data(window.resultsModel()->index(0, ResultsModel::Interference), Qt::ToolTipRole)
                            .toString();
    const QString name
        = QStringLiteral("the ") + QString::fromStdString(interference->controllerComm) + QStringLiteral(" window ");
    EXPECT_TRUE(tip.contains(name)) << tip.toStdString();
}
