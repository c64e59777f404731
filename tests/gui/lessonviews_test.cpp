// SPDX-License-Identifier: MIT
// A lesson draws the view that makes its point and the numbers of its own runs.
#include "ladderplot.h"
#include "lessoncontroller.h"
#include "lessonpanel.h"
#include "lessonsession.h"
#include "lessonviews.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "testresults.h"
#include "testtopologies.h"

#include "ctxscope/units.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTextBrowser>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

TEST(LessonViews, TheModeSwitchLessonRunOffscreenFillsTheLadderAndItsConclusion)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    QSignalSpy done(window.lessons(), &LessonController::finished);
    const Status started = window.lessons()->start(QStringLiteral("mode-switch"));
    ASSERT_TRUE(started.ok()) << started.error().message;
    ASSERT_TRUE(done.wait(300'000));
    ASSERT_TRUE(done.at(0).at(0).toBool());
    EXPECT_EQ(window.plots()->tabs()->currentWidget(), window.plots()->ladderPlot());
    // One bar per benchmark of the lesson, each labelled with the median its run measured.
    const auto& results = window.lesson()->results();
    const auto& rungs = window.plots()->ladderPlot()->rungs();
    ASSERT_EQ(rungs.size(), results.size());
    for (const RunResult& r : results) {
        const auto it = std::find_if(rungs.begin(), rungs.end(),
            [&](const LadderRung& rung) { return rung.bench == QString::fromStdString(r.bench); });
        ASSERT_NE(it, rungs.end()) << r.bench;
        EXPECT_DOUBLE_EQ(it->nsPerOp, r.stats.p50);
        EXPECT_TRUE(it->label.startsWith(QString::fromStdString(formatDuration(r.stats.p50)))) << r.bench;
    }
    // The explanation is the engine's conclusion from these results, with their numbers.
    EXPECT_FALSE(window.lessonPanel()->isHidden()) << "the conclusion shows beside the plots";
    const QString text = window.lessonView()->toPlainText();
    ASSERT_FALSE(window.lesson()->conclusion().empty());
    for (const std::string& sentence : window.lesson()->conclusion())
        EXPECT_TRUE(text.contains(QString::fromStdString(sentence))) << sentence;
    bool numbers = false;
    for (const RunResult& r : results)
        numbers = numbers || text.contains(QString::fromStdString(formatDuration(r.stats.p50)));
    EXPECT_TRUE(numbers) << text.toStdString();
}

TEST(LessonViews, CachePollutionRunsBecomeWorkingSetCurvesWithTheEnginesCost)
{
    const Topology topo = ctxscope::testing::synthetic("pack:1 l3:1 core:2 pu:1");
    std::vector<RunResult> results;
    const auto futex = [&](std::uint64_t ws, double p50, Relation rel) {
        RunResult r = *ctxscope::testing::futexResult();
        r.spec.wsBytes = ws;
        r.stats.p50 = p50;
        r.samples.clear();
        r.histogram.clear();
        r.placement.relation = rel;
        results.push_back(r);
    };
    const auto touch = [&](std::uint64_t ws, double p50) {
        RunResult r = *ctxscope::testing::futexResult();
        r.bench = "touch";
        r.spec.wsBytes = ws;
        r.stats.p50 = p50;
        r.samples.clear();
        r.histogram.clear();
        results.push_back(r);
    };
    futex(0, 8000, Relation::SamePu);
    futex(32768, 9000, Relation::SamePu);
    touch(32768, 200);
    futex(0, 30000, Relation::SharedL3);
    const auto sweeps = lessonSweeps("cache-pollution", results, topo.caches());
    ASSERT_EQ(sweeps.size(), 2U) << "same-pu and the farthest class";
    ASSERT_EQ(sweeps[0]->points.size(), 2U);
    EXPECT_EQ(sweeps[0]->points[1].wsBytes, 32768U);
    EXPECT_DOUBLE_EQ(*sweeps[0]->points[1].switchCostNs, (9000 - 2 * 200) / 2.0);
    EXPECT_EQ(sweeps[0]->caches, topo.caches());
    EXPECT_EQ(sweeps[1]->points.size(), 1U);
    EXPECT_TRUE(lessonSweeps("pinning", results, topo.caches()).empty());
    EXPECT_EQ(lessonView("cache-pollution"), QStringLiteral("working-set"));
    EXPECT_EQ(lessonView("coroutines"), QStringLiteral("ladder"));
}
