// SPDX-License-Identifier: MIT
// A working-set sweep and a placement matrix measured live through the real worker, drawn
// as they arrive. Uses only what the live machine reports (its allowed PUs and caches).
#include "heatmapplot.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runcoordinator.h"
#include "runlauncher.h"
#include "workingsetplot.h"

#include <QSignalSpy>

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
    QSignalSpy finished(window.runs(), &RunCoordinator::runFinished);
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
    QSignalSpy finished(window.runs(), &RunCoordinator::runFinished);
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
