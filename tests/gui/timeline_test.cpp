// SPDX-License-Identifier: MIT
// The Timeline tab on a real traced run through the worker: a futex run across two CPUs,
// traced, followed from its breakdown down to one hand-over on the timeline, the map's PU lit
// from the lane under the mouse; the "Trace the scheduler" check where the worker may not trace.
// Tracing needs root (CI runs these as root); without it the run tests skip and say why, and
// the refusal is checked with a worker whose hello refuses.
#include "breakdownplot.h"
#include "filemenu.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runbroker.h"
#include "runmenu.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "timelinepage.h"
#include "timelineview.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"
#include "workerclient.h"
#include "workerready.h"

#include "ctxscope/sched_watch.h" // bpfUnavailable
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "test_paths.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::workerReady;

namespace {

// A traced futex run on `cpus`, started from the run panel as a user starts it, traced as
// `backend` (from its events, or in the kernel).
RunOutcome tracedFutex(MainWindow& window, std::vector<int> cpus, TraceBackend backend = TraceBackend::Ftrace)
{
    RunPanel* panel = window.runPanel();
    panel->setBenchmark(QStringLiteral("futex"));
    EXPECT_TRUE(window.mapPanel()->map()->setSelection(cpus).ok());
    panel->usePlacement(RunPanel::PlacementKind::Map);
    panel->setIterations(3000);
    panel->setRepetitions(1);
    panel->setTraced(true);
    panel->setTraceBackend(backend);
    EXPECT_EQ(panel->traceBackend(), backend) << panel->traceBackendChooser()->toolTip().toStdString();
    EXPECT_TRUE(panel->traced()) << panel->traceSwitch()->toolTip().toStdString();
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    if (!window.launcher()->startRun())
        return RunOutcome::Failed;
    if (!finished.wait(120'000))
        return RunOutcome::Failed;
    EXPECT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    return finished.at(0).at(1).value<RunOutcome>();
}

} // namespace

TEST(TimelineApp, ATracedRunAcrossTwoCpusIsFollowedFromItsBreakdownDownToOneHandover)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const std::vector<int> pus = live->allowedPus();
    if (pus.size() < 2)
        GTEST_SKIP() << "needs two allowed PUs";
    MainWindow window;
    window.resize(1280, 800);
    window.setTopology(*live);
    window.show();
    ASSERT_TRUE(workerReady(window));
    ASSERT_EQ(tracedFutex(window, { pus[0], pus[1] }), RunOutcome::Succeeded);

    // The document holds the run's figures (untraced), its segments and its events.
    ASSERT_EQ(window.store()->runs().size(), 1U);
    const ResultRow& row = window.store()->runs().front();
    ASSERT_TRUE(row.result->trace.has_value());
    ASSERT_TRUE(row.traceWindow);
    EXPECT_FALSE(row.traceWindow->events.empty());
    EXPECT_GT(row.result->trace->handovers, 0U);
    EXPECT_NE(row.result->stats.p50, row.result->trace->nsPerOp); // the untraced run's figures stay the row's
    EXPECT_TRUE(window.resultsModel()
                    ->data(window.resultsModel()->index(0, ResultsModel::Bench))
                    .toString()
                    .endsWith(QStringLiteral("traced")));

    window.plots()->showView(QStringLiteral("timeline"));
    TimelinePage* page = window.plots()->timelinePage();
    BreakdownPlot* breakdown = page->breakdown();
    ASSERT_EQ(breakdown->runs().size(), 1U);
    const BreakdownBar& bar = breakdown->runs().front().bar;
    ASSERT_FALSE(bar.steps.empty());
    EXPECT_EQ(page->shownRun(), row.id);
    TimelineView* view = page->timeline();
    ASSERT_NE(view->data(), nullptr);
    EXPECT_EQ(view->fromNs(), view->data()->beginNs()); // the whole recording first

    // A click on the bar's longest step shows a typical hand-over that took it, the step under
    // the ruler: microseconds, not the 0.25 s of the recording.
    std::size_t longest = 0;
    for (std::size_t i = 0; i < bar.steps.size(); ++i)
        if (bar.steps[i].ns > bar.steps[longest].ns)
            longest = i;
    QTest::mouseClick(breakdown->plot(), Qt::LeftButton, {}, breakdown->stepCenter(0, longest).toPoint());
    ASSERT_TRUE(view->ruler().has_value()) << "no example of " << bar.steps[longest].name;
    const auto [rulerFrom, rulerTo] = *view->ruler();
    EXPECT_GE(rulerFrom, view->fromNs());
    EXPECT_LE(rulerTo, view->toNs());
    // One hand-over (the step under the ruler, a fifth of the hand-over each side), not the
    // whole recording. The bar's heaviest step on a loaded machine can be a rare wait of
    // milliseconds behind another program, so the bound is a tenth of the recording.
    const std::uint64_t recording = view->data()->endNs() - view->data()->beginNs();
    EXPECT_LT(view->toNs() - view->fromNs(), recording / 10) << "one hand-over, not the whole run";
    EXPECT_TRUE(page->caption().contains(QString::fromStdString(bar.steps[longest].name)))
        << page->caption().toStdString() << " does not name " << bar.steps[longest].name;
    // Down to one switch: in that span a measured task's slice is drawn on its own (not merged
    // into a level-of-detail piece) on one of the run's lanes.
    const double nsPerPixel = static_cast<double>(view->toNs() - view->fromNs()) / view->width();
    bool measuredSlice = false;
    QPoint sliceAt;
    for (int pu : { pus[0], pus[1] })
        for (const TimelineSlice& s :
            view->data()->visible(pu, view->fromNs(), view->toNs(), static_cast<std::uint64_t>(nsPerPixel)))
            for (long task : row.result->trace->tasks)
                if (s.pid == task && !s.merged && !measuredSlice) {
                    measuredSlice = true;
                    const std::uint64_t from = std::max(s.beginNs, view->fromNs());
                    const std::uint64_t to = std::min(s.endNs, view->toNs());
                    sliceAt = QPoint(static_cast<int>(view->xOf(from + (to - from) / 2)),
                        static_cast<int>(view->laneRect(pu).center().y()));
                }
    EXPECT_TRUE(measuredSlice);

    // Issue 44: a click on that slice selects its run's row and keeps the zoom.
    window.resultsTable()->setCurrentIndex({});
    window.resultsTable()->clearSelection();
    QTest::mouseClick(breakdown->plot(), Qt::LeftButton, {}, breakdown->stepCenter(0, longest).toPoint());
    const std::uint64_t zoomedFrom = view->fromNs();
    const std::uint64_t zoomedTo = view->toNs();
    // The measured tasks are named as on the map, A and B, their process in the tooltip, and
    // the legend says what each colour is.
    EXPECT_TRUE(page->legend().contains(QStringLiteral("task A")) && page->legend().contains(QStringLiteral("task B")))
        << page->legend().toStdString();
    EXPECT_TRUE(
        page->legend().contains(QStringLiteral("other tasks")) && page->legend().contains(QStringLiteral("idle")));
    if (measuredSlice) {
        QMouseEvent hover(QEvent::MouseMove, QPointF(sliceAt), view->mapToGlobal(QPointF(sliceAt)), Qt::NoButton,
            Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(view, &hover);
        EXPECT_TRUE(view->toolTip().startsWith(QStringLiteral("task A: "))
            || view->toolTip().startsWith(QStringLiteral("task B: ")))
            << view->toolTip().toStdString();
        QTest::mouseClick(view, Qt::LeftButton, {}, sliceAt);
        EXPECT_EQ(window.resultsTable()->currentIndex().row(), 0) << "the slice's run is selected";
        EXPECT_EQ(view->fromNs(), zoomedFrom);
        EXPECT_EQ(view->toNs(), zoomedTo);
    }

    // The lane under the mouse lights its PU on the map.
    const QRectF lane = view->laneRect(pus[1]);
    QTest::mouseMove(view, lane.center().toPoint());
    EXPECT_EQ(window.mapPanel()->map()->hoveredPu(), pus[1]);

    // File -> Export trace: Perfetto's JSON from the events, trace.dat as the worker wrote it.
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("t.json"));
    ASSERT_TRUE(window.fileMenu()->exportTrace(json).ok());
    QFile exported(json);
    ASSERT_TRUE(exported.open(QIODevice::ReadOnly));
    const auto parsed = nlohmann::json::parse(exported.readAll().toStdString(), nullptr, false);
    ASSERT_FALSE(parsed.is_discarded());
    EXPECT_GT(parsed["traceEvents"].size(), 100U);
    const QString dat = dir.filePath(QStringLiteral("t.dat"));
    const Status written = window.fileMenu()->exportTrace(dat);
    ASSERT_TRUE(written.ok()) << written.error().message;
    QFile traceDat(dat);
    ASSERT_TRUE(traceDat.open(QIODevice::ReadOnly));
    EXPECT_TRUE(traceDat.read(10).startsWith(QByteArray("\x17\x08\x44tracing"))); // trace-cmd's magic
    const Status refused = window.fileMenu()->exportTrace(dir.filePath(QStringLiteral("t.pdf")));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find(".json"), std::string::npos);
}

TEST(TimelineApp, TheTraceCheckIsDisabledWithTheWorkersReasonWhereItMayNotTrace)
{
    // A real worker whose hello says it may not trace, whoever runs the test.
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("worker.sh"));
    QFile file(script);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("#!/bin/sh\n") + ctxscope::test::cliPath()
        + QByteArray(" worker \"$@\" | sed -u -e 's/\"tracing\":\"[^\"]*\"/\"tracing\":\"Tracing needs root here.\"/' "
                     "-e 's/\"bpf\":\"[^\"]*\"/\"bpf\":\"BPF needs root here.\"/'\n"));
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.controller()->setWorkerCommand(script, {});
    window.setTopology(*live);
    RunPanel* panel = window.runPanel();
    panel->setBenchmark(QStringLiteral("futex"));
    EXPECT_FALSE(panel->traceSwitch()->isEnabled()); // before any hello: not known yet
    ASSERT_TRUE(workerReady(window));
    EXPECT_FALSE(panel->traceSwitch()->isEnabled());
    EXPECT_EQ(panel->traceSwitch()->toolTip(), QStringLiteral("Tracing needs root here."));
    panel->setTraced(true);
    EXPECT_FALSE(panel->traced());
}

// A traced run cut in the kernel (the run panel's "in the kernel"): the worker's BPF programs
// give the run its steps and no events, so the breakdown has its bar and the timeline no lanes.
TEST(TimelineApp, ARunTracedInTheKernelHasItsStepsAndNoEvents)
{
    if (std::string why = bpfUnavailable(); !why.empty())
        GTEST_SKIP() << why;
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const std::vector<int> pus = live->allowedPus();
    MainWindow window;
    window.resize(1280, 800);
    window.setTopology(*live);
    window.show();
    ASSERT_TRUE(workerReady(window));
    ASSERT_EQ(tracedFutex(window, { pus[0], pus[0] }, TraceBackend::Bpf), RunOutcome::Succeeded);
    ASSERT_EQ(window.store()->runs().size(), 1U);
    const ResultRow& row = window.store()->runs().front();
    ASSERT_TRUE(row.result->trace.has_value());
    EXPECT_EQ(row.result->trace->backend, "bpf");
    EXPECT_GT(row.result->trace->handovers, 0U);
    EXPECT_FALSE(row.traceWindow) << "a run cut in the kernel keeps no events";
    window.plots()->showView(QStringLiteral("timeline"));
    TimelinePage* page = window.plots()->timelinePage();
    ASSERT_EQ(page->breakdown()->runs().size(), 1U);
    EXPECT_FALSE(page->breakdown()->runs().front().bar.steps.empty());
    EXPECT_TRUE(page->caption().contains(QStringLiteral("in the kernel"))) << page->caption().toStdString();
    // Nothing to export: its events were never recorded.
    QTemporaryDir dir;
    const Status refused = window.fileMenu()->exportTrace(dir.filePath(QStringLiteral("t.json")));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("from its events"), std::string::npos) << refused.error().message;
}

// Each way of tracing is offered where the worker allows it: ftrace refused and BPF allowed
// leaves the check on with "in the kernel" only; both refused disables the check.
TEST(TimelineApp, TheTraceChoiceOffersWhatTheWorkerAllows)
{
    RunPanel panel;
    panel.setBenchmark(QStringLiteral("futex"));
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Ftrace) << "before a hello allows either, the choice stays";
    panel.setTracingRefusal(QString());
    panel.setBpfRefusal(QString());
    panel.setTraced(true);
    EXPECT_TRUE(panel.traceBackendChooser()->isEnabled());
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Ftrace); // from its events by default
    panel.setTraceBackend(TraceBackend::Bpf);
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Bpf);
    panel.setTraceBackend(TraceBackend::Ftrace);
    panel.setTracingRefusal(QStringLiteral("Tracing needs root here."));
    EXPECT_TRUE(panel.traced());
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Bpf) << "the one allowed";
    EXPECT_TRUE(panel.traceBackendChooser()->toolTip().contains(QStringLiteral("Tracing needs root here.")))
        << panel.traceBackendChooser()->toolTip().toStdString();
    panel.setBpfRefusal(QStringLiteral("BPF needs root here."));
    EXPECT_FALSE(panel.traced());
    EXPECT_FALSE(panel.traceBackendChooser()->isEnabled());
    panel.setTracingRefusal(QString());
    EXPECT_TRUE(panel.traced());
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Ftrace);
    // Moved to the kernel where ftrace was refused, back to the choice where it is allowed again.
    panel.setTracingRefusal(QStringLiteral("Tracing needs root here."));
    panel.setBpfRefusal(QString());
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Bpf);
    panel.setTracingRefusal(QString());
    EXPECT_EQ(panel.traceBackend(), TraceBackend::Ftrace);
    panel.setTraced(false);
    EXPECT_FALSE(panel.traceBackendChooser()->isEnabled()) << "offered only with the check on";
}

TEST(TimelineApp, ABenchmarkWithNothingToTraceDisablesTheCheckAndSaysWhy)
{
    RunPanel panel;
    panel.setTracingRefusal(QString()); // the worker may trace
    panel.setBenchmark(QStringLiteral("futex"));
    EXPECT_TRUE(panel.traceSwitch()->isEnabled());
    EXPECT_FALSE(panel.traced()); // off by default
    panel.setBenchmark(QStringLiteral("syscall"));
    EXPECT_FALSE(panel.traceSwitch()->isEnabled());
    EXPECT_TRUE(panel.traceSwitch()->toolTip().contains(QStringLiteral("nothing to trace")))
        << panel.traceSwitch()->toolTip().toStdString();
}
