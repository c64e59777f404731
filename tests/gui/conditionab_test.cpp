// SPDX-License-Identifier: MIT
// Issue 41 in the app: the run panel's conditions (keep-awake, C-states held shallow), a
// condition's A/B from the worker kept as a pair with its sentence, and the pair's breakdown
// and timeline.
#include "breakdownplot.h"
#include "conditionpair.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "runbroker.h"
#include "runmenu.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "testresults.h"
#include "testtopologies.h"
#include "timelinepage.h"
#include "timelineview.h"
#include "workerclient.h"
#include "workerready.h"

#include "ctxscope/sysinfo.h"
#include "test_paths.h"

#include <QCheckBox>
#include <QFile>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;
using ctxscope::testing::workerReady;

namespace {

RunPanel& placedFutex(RunPanel& panel)
{
    panel.setTopology(synthetic("pack:2 l3:2 core:4 pu:2"));
    panel.setBenchmark(QStringLiteral("futex"));
    panel.usePlacement(RunPanel::PlacementKind::Map);
    panel.setMapSelection({ 3, 17 });
    panel.setIterations(5000);
    return panel;
}

// A traced futex result across CPUs 0 and 1, with its hand-over cut into steps; `idleExitNs` 0
// leaves the idle exit out (the CPU was kept awake).
std::shared_ptr<const RunResult> tracedFutex(double idleExitNs, std::vector<int> keepAwake)
{
    RunResult r = *ctxscope::testing::futexResult({ 0, 1 });
    r.placement.relation = Relation::CrossPackage;
    r.spec.keepAwakeCpus = std::move(keepAwake);
    TraceSummary t;
    const auto step = [](const char* name, double ns) {
        TraceSegment s;
        s.name = name;
        s.crossCpu = true;
        s.p50Ns = ns;
        s.p90Ns = ns * 1.5;
        s.count = 900;
        return s;
    };
    t.segments = { step("wake call", 300), step("IPI sent", 1900) };
    if (idleExitNs > 0)
        t.segments.push_back(step("idle exit", idleExitNs));
    t.segments.push_back(step("switch-in", 1500));
    t.tasks = { 501, 502 };
    if (!r.spec.keepAwakeCpus.empty())
        t.keepAwakeTasks = { 900, 901 };
    r.trace = t;
    return std::make_shared<const RunResult>(std::move(r));
}

// A few switches on CPU 1, the keep-awake thread among them.
std::shared_ptr<const TraceWindow> events()
{
    auto w = std::make_shared<TraceWindow>();
    w->events = { TraceEvent { 1000, 1, 900, 502, -1, 0, TraceEventKind::Switch },
        TraceEvent { 4000, 1, 502, 900, -1, 0, TraceEventKind::Switch },
        TraceEvent { 9000, 1, 900, 502, -1, 0, TraceEventKind::Switch } };
    w->comms = { { 900, "ctxscope-awake" }, { 502, "ctxscope-cli" } };
    w->recorded = 3;
    return w;
}

} // namespace

TEST(ConditionAb, TheConditionSwitchesSayWhenTheyApplyAndWhy)
{
    RunPanel panel;
    placedFutex(panel);
    QCheckBox* awake = panel.keepAwakeSwitch();
    QCheckBox* shallow = panel.shallowSwitch();
    EXPECT_TRUE(awake->isEnabled());
    EXPECT_TRUE(awake->toolTip().contains(QStringLiteral("SCHED_IDLE"))) << awake->toolTip().toStdString();
    EXPECT_TRUE(awake->toolTip().contains(QStringLiteral("not counted as interference")));
    // Idle states are known from the worker's hello: before it, and on a machine without them,
    // holding them shallow is off and says why.
    EXPECT_FALSE(shallow->isEnabled());
    EXPECT_TRUE(shallow->toolTip().contains(QStringLiteral("once its worker has started")));
    panel.setIdleStates(0);
    EXPECT_FALSE(shallow->isEnabled());
    EXPECT_TRUE(shallow->toolTip().contains(QStringLiteral("no cpuidle states"))) << shallow->toolTip().toStdString();
    panel.setIdleStates(3);
    EXPECT_TRUE(shallow->isEnabled());
    EXPECT_TRUE(shallow->toolTip().contains(QStringLiteral("/dev/cpu_dma_latency")));
    // An unpinned run has no CPUs of its own to keep awake.
    panel.usePlacement(RunPanel::PlacementKind::Unpinned);
    EXPECT_FALSE(awake->isEnabled());
    EXPECT_TRUE(awake->toolTip().contains(QStringLiteral("unpinned")));
    EXPECT_TRUE(shallow->isEnabled());
    // A topology file (no machine to measure): both greyed out as Run is, with its reason.
    const QString off = QStringLiteral("Runs are disabled: the map shows a file, not a machine to measure.");
    panel.usePlacement(RunPanel::PlacementKind::Map);
    panel.setRunsDisabled(off);
    EXPECT_FALSE(awake->isEnabled());
    EXPECT_FALSE(shallow->isEnabled());
    EXPECT_EQ(awake->toolTip(), off);
    EXPECT_EQ(shallow->toolTip(), off);
    panel.setRunsDisabled(QString());
    EXPECT_TRUE(awake->isEnabled());
}

TEST(ConditionAb, TheSpecCarriesTheConditionsChecked)
{
    RunPanel panel;
    placedFutex(panel);
    panel.setIdleStates(2);
    auto plain = panel.spec();
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_FALSE(plain->conditioned()); // off by default
    panel.keepAwakeSwitch()->setChecked(true);
    auto awake = panel.spec();
    ASSERT_TRUE(awake.ok()) << awake.error().message;
    EXPECT_EQ(awake->keepAwakeCpus, (std::vector<int> { 3, 17 })); // both tasks' CPUs
    EXPECT_FALSE(awake->pmQosUs.has_value());
    panel.shallowSwitch()->setChecked(true);
    auto both = panel.spec();
    ASSERT_TRUE(both.ok());
    EXPECT_EQ(both->pmQosUs, 0);
    // Both tasks on one PU: that PU, once.
    panel.setMapSelection({ 5, 5 });
    EXPECT_EQ(panel.spec()->keepAwakeCpus, std::vector<int> { 5 });
    // A class: its representative pair, as the engine places it.
    panel.usePlacement(RunPanel::PlacementKind::Relation, Relation::CrossPackage);
    const auto classSpec = panel.spec();
    ASSERT_TRUE(classSpec.ok());
    const auto placed = RunPanel::measuredCpus(*classSpec, synthetic("pack:2 l3:2 core:4 pu:2"));
    ASSERT_EQ(placed.size(), 2U);
    EXPECT_EQ(classSpec->keepAwakeCpus,
        (std::vector<int> { std::min(placed[0], placed[1]), std::max(placed[0], placed[1]) }));
    // A working set takes no condition: the switches go grey and the spec carries none.
    panel.usePlacement(RunPanel::PlacementKind::Map);
    panel.setWorkingSet(QStringLiteral("64K"));
    EXPECT_FALSE(panel.keepAwakeSwitch()->isEnabled());
    EXPECT_FALSE(panel.spec()->conditioned());
    panel.setWorkingSet(QString()); // settings outlive the test
}

TEST(ConditionAb, AWorkersAbLandsAsAPairWithItsSentence)
{
    // The real worker, its A/B's sentence replaced on the way: what the app shows is the
    // worker's sentence, not one it made up.
    const QString sentence = QStringLiteral("the sentence the fake worker sent"); // no ' or / (sed)
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("worker.sh"));
    QFile file(script);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("#!/bin/sh\n") + ctxscope::test::cliPath()
        + QByteArray(" worker \"$@\" | sed -u 's/\"sentence\":\"[^\"]*\"/\"sentence\":\"") + sentence.toUtf8()
        + "\"/'\n");
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const int cpu = live->allowedPus().front();
    MainWindow window;
    window.controller()->setWorkerCommand(script, {});
    window.setTopology(*live);
    ASSERT_TRUE(workerReady(window));
    RunPanel* panel = window.runPanel();
    // The hello said whether this machine has idle states to hold.
    EXPECT_EQ(panel->shallowSwitch()->isEnabled(), !readSysInfo().idleStates.empty());
    panel->setBenchmark(QStringLiteral("futex"));
    panel->usePlacement(RunPanel::PlacementKind::Relation, Relation::SamePu);
    panel->setIterations(2000);
    panel->setRepetitions(1);
    panel->keepAwakeSwitch()->setChecked(true);
    ASSERT_TRUE(panel->spec().ok()) << panel->spec().error().message;
    EXPECT_EQ(panel->spec()->keepAwakeCpus, std::vector<int> { cpu });
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(window.launcher()->startRun());
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    QCoreApplication::processEvents();
    const std::vector<ResultRow>& runs = window.store()->runs();
    ASSERT_EQ(runs.size(), 2U);
    const auto pair = abPairOf(runs, runs[1].id);
    ASSERT_TRUE(pair.has_value());
    EXPECT_EQ(pair->asIs, &runs[0]);
    EXPECT_EQ(pair->with, &runs[1]);
    EXPECT_FALSE(runs[0].result->spec.conditioned());
    EXPECT_EQ(runs[1].result->spec.keepAwakeCpus, std::vector<int> { cpu });
    EXPECT_EQ(abSideName(runs[0]), QStringLiteral("as is"));
    EXPECT_EQ(abSideName(runs[1]), QStringLiteral("keep-awake %1").arg(cpu));
    EXPECT_EQ(window.resultsModel()->index(0, ResultsModel::Bench).data().toString(), QStringLiteral("futex · as is"));
    EXPECT_EQ(window.resultsModel()->index(1, ResultsModel::Bench).data().toString(),
        QStringLiteral("futex · keep-awake %1").arg(cpu));
    // Its sentence is the run's verdict: under the figures and in the status bar.
    EXPECT_TRUE(panel->outcomeText().contains(QStringLiteral("A/B: ") + sentence))
        << panel->outcomeText().toStdString();
    EXPECT_TRUE(window.statusBar()->currentMessage().contains(sentence))
        << window.statusBar()->currentMessage().toStdString();
    panel->keepAwakeSwitch()->setChecked(false);
}

TEST(ConditionAb, ThePairsBreakdownShowsBothSidesAndTheTimelineTheKeepAwakeThread)
{
    MainWindow window;
    window.setTopology(synthetic("pack:2 core:1 pu:1"));
    ResultRow asIs { 7001, tracedFutex(7000, {}), QColor(Qt::blue) };
    ResultRow awake { 7002, tracedFutex(0, { 0, 1 }), QColor(Qt::red), {}, events() };
    asIs.abPartner = awake.id;
    awake.abPartner = asIs.id;
    window.store()->addRun(asIs, QStringLiteral("ab.json"));
    window.store()->addRun(awake, QStringLiteral("ab.json"));
    TimelinePage* page = window.plots()->timelinePage();
    const auto& bars = page->breakdown()->runs();
    ASSERT_EQ(bars.size(), 2U);
    EXPECT_TRUE(bars[0].label.endsWith(QStringLiteral(" · as is"))) << bars[0].label.toStdString();
    EXPECT_TRUE(bars[1].label.endsWith(QStringLiteral(" · keep-awake 0-1"))) << bars[1].label.toStdString();
    // Side by side: the idle exit is in A's bar and gone from B's.
    const auto hasIdleExit = [](const BreakdownBar& bar) {
        return std::any_of(
            bar.steps.begin(), bar.steps.end(), [](const BreakdownStep& s) { return s.name == "idle exit"; });
    };
    EXPECT_TRUE(hasIdleExit(bars[0].bar));
    EXPECT_FALSE(hasIdleExit(bars[1].bar));
    EXPECT_GT(bars[0].bar.totalNs(), bars[1].bar.totalNs());
    // The kept-awake side's timeline draws its keep-awake thread in its own colour, named in the key.
    ASSERT_EQ(page->shownRun(), awake.id);
    EXPECT_EQ(page->timeline()->taskColor(900), TimelineView::keepAwakeColor());
    EXPECT_TRUE(page->legend().contains(QStringLiteral("keep-awake"))) << page->legend().toStdString();
    // The pair's A/B, computed from the two sides as the worker computes it.
    const auto pair = abPairOf(window.store()->runs(), asIs.id);
    ASSERT_TRUE(pair.has_value());
    const ConditionAb ab = compareCondition(*pair->asIs->result, *pair->with->result);
    EXPECT_EQ(ab.condition, "keep-awake 0-1");
    ASSERT_FALSE(ab.movedSteps.empty());
    EXPECT_NE(ab.movedSteps.front().find("idle exit"), std::string::npos) << ab.movedSteps.front();
}
