// SPDX-License-Identifier: MIT
// A working-set sweep, a placement matrix and a lesson that runs whole in the worker
// (live-placement), measured live through the real worker, drawn as they arrive. Uses only what the live machine
// reports (its allowed PUs and caches).
#include "heatmapplot.h"
#include "lessoncontroller.h"
#include "lessonpanel.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runbroker.h"
#include "runmenu.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "workingsetplot.h"

#include <QCoreApplication>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTextBrowser>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

TEST(LiveJobs, ASweepThroughTheWorkerDrawsEveryPointAndTheMachinesCaches)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    const int cpu = live->allowedPus().front();
    SweepSpec spec;
    spec.base.bench = "futex";
    spec.base.cpus = { cpu, cpu };
    spec.base.iterations = 200;
    spec.base.repetitions = 1;
    spec.toBytes = 8192; // 0, 4 KiB, 8 KiB
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    const auto id = window.launcher()->startSweep(spec);
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    const WorkingSetPlot* plot = window.plots()->workingSetPlot();
    ASSERT_EQ(plot->sweeps().size(), 1U);
    const SweepCurves& sweep = *plot->sweeps().front();
    ASSERT_EQ(sweep.points.size(), 3U);
    EXPECT_EQ(sweep.points[0].wsBytes, 0U);
    EXPECT_EQ(sweep.points[2].wsBytes, 8192U);
    EXPECT_EQ(sweep.caches.size(), live->caches().size());
    // The round-trip curve holds exactly the points measured.
    const_cast<WorkingSetPlot*>(plot)->setSeriesShown(WsSeries::RoundTrip, true);
    const QCPGraph* rt = plot->graph(0, WsSeries::RoundTrip);
    ASSERT_NE(rt, nullptr);
    ASSERT_EQ(rt->dataCount(), 3);
    for (int i = 0; i < 3; ++i)
        EXPECT_DOUBLE_EQ(rt->data()->at(i)->value, sweep.points[static_cast<std::size_t>(i)].roundTrip.p50);
    EXPECT_EQ(window.plots()->tabs()->currentWidget(), plot);
}

TEST(LiveJobs, AMatrixThroughTheWorkerFillsTheHeatmapForEveryAllowedPair)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(window.launcher()->startMatrix("futex", BenchMode::Thread, MatrixMode::Classes, RunBudget { 0.01, 1 }));
    ASSERT_TRUE(finished.wait(300'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    const HeatmapGrid& grid = window.plots()->heatmapPlot()->grid();
    const auto allowed = live->allowedPus();
    ASSERT_EQ(grid.size(), static_cast<int>(allowed.size()));
    int measured = 0;
    for (int y = 0; y < grid.size(); ++y)
        for (int x = 0; x < grid.size(); ++x) {
            ASSERT_NE(grid.cellAt(x, y), nullptr) << x << "," << y;
            EXPECT_TRUE(grid.valueAt(x, y).has_value());
            measured += x <= y && grid.cellAt(x, y)->measured ? 1 : 0;
        }
    // Each measured pair is a row of the results table.
    EXPECT_EQ(window.resultsModel()->rowCount(), measured);
}

TEST(LiveJobs, TheLivePlacementLessonRunsWholeInTheWorkerAndItsPhasesFillThePanel)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    // It is in the Lessons menu with the lessons of runs.
    bool listed = false;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions())
                listed = listed || action->text().startsWith(QStringLiteral("live-placement"));
    EXPECT_TRUE(listed);
    QSignalSpy finished(window.lessons(), &LessonController::finished);
    const Status started = window.lessons()->start(QStringLiteral("live-placement"));
    ASSERT_TRUE(started.ok()) << started.error().message;
    EXPECT_FALSE(window.lessons()->start(QStringLiteral("live-placement")).ok()) << "one job at a time";
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_TRUE(finished.at(0).at(0).toBool());
    ASSERT_FALSE(window.store()->lessons().empty());
    const LessonRecord& lesson = window.store()->lessons().back();
    EXPECT_EQ(lesson.id, "live-placement");
    EXPECT_TRUE(lesson.finished);
    ASSERT_GE(lesson.steps.size(), 3U); // unpinned, on one PU, across the farthest class, ...
    for (const LessonRecord::Step& step : lesson.steps)
        EXPECT_NE(step.outcome.find("switches/s"), std::string::npos) << step.label << ": " << step.outcome;
    ASSERT_FALSE(lesson.conclusion.empty());
    // The panel shows the conclusion the engine computed.
    const QString shown = window.lessonView()->toPlainText();
    EXPECT_TRUE(shown.contains(QString::fromStdString(lesson.conclusion.front()).left(40))) << shown.toStdString();
    // The worker is free again for runs, and the status bar no longer shows the last phase,
    // even once the progress lines queued before the end are delivered.
    QCoreApplication::processEvents();
    EXPECT_FALSE(window.controller()->isBusy());
    EXPECT_TRUE(window.statusPanel()->runProgressText().isEmpty())
        << window.statusPanel()->runProgressText().toStdString();
}
