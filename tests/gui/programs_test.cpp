// SPDX-License-Identifier: MIT
// The Programs dock with the real worker: a demonstration workload started by the test is
// watched (its threads on the map and in the table), re-pinned by clicking a PU and Apply,
// restored, asked about when the watch stops, and its end ends the watch with a sentence; the
// same through a worker over ssh (the loopback sshd of the ssh tests).
#include "localsshd.h"
#include "machinecontroller.h"
#include "machinelink.h"
#include "mainwindow.h"
#include "plotstyle.h"
#include "plotsview.h"
#include "processtablemodel.h"
#include "programplot.h"
#include "programscontroller.h"
#include "programspanel.h"
#include "programwatch.h"
#include "qcp.h"
#include "runpanel.h"
#include "threadtablemodel.h"
#include "timelineview.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"
#include "wakeupplot.h"
#include "workerclient.h"

#include "ctxscope/sched_watch.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "test_paths.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <gtest/gtest.h>

#include <sched.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr int kWaitMs = 30'000;

std::vector<int> affinityOf(long tid)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(static_cast<pid_t>(tid), sizeof set, &set) != 0)
        return {};
    std::vector<int> cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(static_cast<std::size_t>(cpu), &set))
            cpus.push_back(cpu);
    return cpus;
}

// `ctxscope-cli workload pingpong`: pairs of threads handing messages through futexes (one
// pair unless told).
struct Workload {
    QProcess process;
    long pid = 0;
    long ping = 0;
    long pong = 0;

    bool start(int pairs = 1)
    {
        process.start(QString::fromUtf8(ctxscope::test::cliPath()),
            { QStringLiteral("workload"), QStringLiteral("pingpong"), QStringLiteral("--threads"),
                QString::number(pairs), QStringLiteral("--duration"), QStringLiteral("120") });
        if (!process.waitForStarted() || !process.waitForReadyRead(kWaitMs))
            return false;
        const QString first = QString::fromUtf8(process.readLine());
        const auto match = QRegularExpression(QStringLiteral("PID (\\d+).*ping0 (\\d+) pong0 (\\d+)")).match(first);
        if (!match.hasMatch())
            return false;
        pid = match.captured(1).toLong();
        ping = match.captured(2).toLong();
        pong = match.captured(3).toLong();
        return true;
    }
    ~Workload()
    {
        process.kill();
        process.waitForFinished();
    }
};

class Programs : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto live = Topology::loadLive();
        ASSERT_TRUE(live.ok());
        m_allowed = live->allowedPus();
        m_window.setTopology(*live);
        ASSERT_TRUE(m_workload.start()) << "the workload did not start";
        m_panel = m_window.programs();
        m_map = m_window.mapPanel()->map();
        m_original = affinityOf(m_workload.pong);
        ASSERT_FALSE(m_original.empty());
    }

    // Watches the workload until both its threads are in the table and on the map.
    void watchWorkload()
    {
        m_panel->pidField()->setText(QString::number(m_workload.pid));
        m_panel->watchButton()->click();
        ProgramWatch* watch = m_panel->controller()->watchData();
        ASSERT_TRUE(QTest::qWaitFor(
            [&] {
                return watch->threads()->rowOfThread(m_workload.ping) >= 0
                    && watch->threads()->rowOfThread(m_workload.pong) >= 0 && m_map->threadMarkers().size() >= 2;
            },
            kWaitMs))
            << m_panel->statusText().toStdString();
    }

    void selectThread(long tid)
    {
        const int row = m_panel->controller()->watchData()->threads()->rowOfThread(tid);
        ASSERT_GE(row, 0);
        m_panel->threadTable()->clearSelection();
        m_panel->threadTable()->selectRow(row);
    }

    std::vector<int> m_allowed;
    MainWindow m_window;
    Workload m_workload;
    ProgramsPanel* m_panel = nullptr;
    TopologyMapWidget* m_map = nullptr;
    std::vector<int> m_original;
};

} // namespace

TEST_F(Programs, AWatchedWorkloadsThreadsAppearOnTheMapAndInTheTableWithTheirRates)
{
    watchWorkload();
    ProgramWatch* watch = m_panel->controller()->watchData();
    // Markers sit on PUs the threads last ran on, labelled with their names (issue 44: not TIDs).
    std::vector<long> tids;
    for (const auto& marker : m_map->threadMarkers()) {
        tids.push_back(marker.tid);
        EXPECT_NE(std::find(m_allowed.begin(), m_allowed.end(), marker.cpu), m_allowed.end()) << marker.cpu;
        if (!marker.name.isEmpty()) {
            EXPECT_EQ(marker.label, marker.name);
        }
    }
    EXPECT_NE(std::find(tids.begin(), tids.end(), m_workload.ping), tids.end());
    // A ping-pong pair switches voluntarily thousands of times a second.
    ASSERT_TRUE(QTest::qWaitFor([&] { return watch->samples() >= 2; }, kWaitMs));
    const auto* history = watch->history(m_workload.pong);
    ASSERT_NE(history, nullptr);
    const auto busiest = std::max_element(history->begin(), history->end(),
        [](const ThreadPoint& a, const ThreadPoint& b) { return a.switchesPerS < b.switchesPerS; });
    EXPECT_GT(busiest->switchesPerS, 1000.0);
    EXPECT_NE(m_panel->statusText().indexOf(QStringLiteral("Watching")), -1) << m_panel->statusText().toStdString();
    // Selecting a thread draws its curves (switches and run-queue wait) instead of the process's.
    selectThread(m_workload.pong);
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return m_panel->plot()->threads() == std::vector<long> { m_workload.pong }; }, 1000));
    EXPECT_TRUE(std::any_of(m_map->threadMarkers().begin(), m_map->threadMarkers().end(),
        [&](const auto& m) { return m.selected && m.tid == m_workload.pong; }));
}

TEST_F(Programs, ClickingAPuAndApplyPinsTheSelectedThreadAndRestoreGivesBackItsAffinity)
{
    watchWorkload();
    const int target = m_allowed.back();
    selectThread(m_workload.pong);
    ASSERT_TRUE(m_map->setPinTargets({ target }).ok());
    ASSERT_TRUE(m_panel->applyButton()->isEnabled());
    QSignalSpy done(m_panel->controller(), &ProgramsController::pinDone);
    m_panel->applyButton()->click();
    ASSERT_TRUE(done.wait(kWaitMs)) << m_panel->statusText().toStdString();
    EXPECT_EQ(affinityOf(m_workload.pong), std::vector<int> { target }); // as `taskset -p` would read it
    EXPECT_EQ(affinityOf(m_workload.ping), m_original); // only the selected thread moved
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_panel->plot()->pinLineCount() == 1; }, 1000));
    // The thread runs where it was pinned once a sample has seen it there.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto& markers = m_map->threadMarkers();
            return std::any_of(markers.begin(), markers.end(),
                [&](const auto& m) { return m.tid == m_workload.pong && m.cpu == target; });
        },
        kWaitMs));
    ASSERT_TRUE(m_panel->restoreButton()->isEnabled());
    m_panel->restoreButton()->click();
    ASSERT_TRUE(done.wait(kWaitMs));
    EXPECT_EQ(affinityOf(m_workload.pong), m_original);
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_panel->plot()->pinLineCount() == 2; }, 1000));
}

TEST_F(Programs, StoppingAfterARepinAsksToRestoreAndYesRestoresBeforeTheWatchEnds)
{
    watchWorkload();
    const int target = m_allowed.front();
    selectThread(m_workload.ping);
    ASSERT_TRUE(m_map->setPinTargets({ target }).ok());
    QSignalSpy done(m_panel->controller(), &ProgramsController::pinDone);
    m_panel->applyPin();
    ASSERT_TRUE(done.wait(kWaitMs));
    ASSERT_EQ(affinityOf(m_workload.ping), std::vector<int> { target });
    // The next sample shows the new affinity; with the pin's answer the plan is known at once.
    QSignalSpy ended(m_panel->controller(), &ProgramsController::watchEnded);
    m_panel->stopButton()->click();
    ASSERT_NE(m_panel->restoreQuestion(), nullptr);
    EXPECT_TRUE(m_panel->controller()->isWatching()); // nothing ends before the answer
    m_panel->restoreQuestion()->button(QMessageBox::Yes)->click();
    ASSERT_TRUE(ended.wait(kWaitMs));
    ASSERT_TRUE(QTest::qWaitFor([&] { return affinityOf(m_workload.ping) == m_original; }, kWaitMs));
    EXPECT_TRUE(m_map->threadMarkers().empty()); // no live threads on the map after the watch
    EXPECT_FALSE(m_panel->stopButton()->isEnabled());
}

// The dock moved out for room, put back, or closed and opened again: the watch goes on, with no
// question and no "Stopped watching" (issue 31).
TEST_F(Programs, AFloatedRedockedOrReopenedDockKeepsItsWatch)
{
    m_window.show();
    auto* dock = m_window.findChild<QDockWidget*>(QStringLiteral("programsDock"));
    ASSERT_NE(dock, nullptr);
    dock->show();
    watchWorkload();
    ProgramWatch* watch = m_panel->controller()->watchData();
    QSignalSpy ended(m_panel->controller(), &ProgramsController::watchEnded);
    QSignalSpy sampled(watch, &ProgramWatch::sampleAdded);
    const auto stillWatching = [&](const char* after) {
        sampled.clear();
        ASSERT_TRUE(sampled.wait(kWaitMs)) << "no sample after " << after;
        EXPECT_TRUE(m_panel->controller()->isWatching()) << after;
        EXPECT_EQ(ended.count(), 0) << after;
        EXPECT_EQ(m_panel->restoreQuestion(), nullptr) << after;
        EXPECT_GE(m_map->threadMarkers().size(), 2U) << after;
    };
    dock->setFloating(true);
    stillWatching("floating");
    dock->setFloating(false);
    stillWatching("docking");
    dock->close();
    stillWatching("closing");
    dock->show();
    stillWatching("reopening");
    EXPECT_NE(m_panel->statusText().indexOf(QStringLiteral("Watching")), -1) << m_panel->statusText().toStdString();
}

// A traced watch (root, as CI runs it): the selected thread's wake-ups fill the Wake-ups tab as
// log2 bins with p50 and p99, its wakers name its partner; after a re-pin the thread's wake-ups
// after it are a second series beside those before.
TEST_F(Programs, ATracedWatchShowsTheSelectedThreadsWakeUpsBeforeAndAfterARepin)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    ProgramWatch* watch = m_panel->controller()->watchData();
    m_panel->controller()->refreshProcesses(); // the dock's worker says hello: whether it may trace
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_panel->traceSwitch()->isEnabled(); }, kWaitMs))
        << m_panel->traceSwitch()->toolTip().toStdString();
    m_panel->traceSwitch()->setChecked(true);
    watchWorkload();
    selectThread(m_workload.pong);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return watch->wakeups(m_workload.pong) && watch->wakeups(m_workload.pong)->back().count > 10; },
        kWaitMs));
    EXPECT_TRUE(watch->traced());
    EXPECT_FALSE(m_panel->wakeupPlot()->isHidden());
    QCustomPlot* plot = m_panel->wakeupPlot()->plot();
    ASSERT_TRUE(QTest::qWaitFor([&] { return plot->plottableCount() == 1; }, 2000));
    EXPECT_TRUE(plot->plottable(0)->name().contains(QStringLiteral("p99"))) << plot->plottable(0)->name().toStdString();
    EXPECT_TRUE(m_panel->wakeupPlot()->peersText().contains(QStringLiteral("(%1)").arg(m_workload.ping)))
        << m_panel->wakeupPlot()->peersText().toStdString(); // its partner wakes it

    const int target = m_allowed.back();
    ASSERT_TRUE(m_map->setPinTargets({ target }).ok());
    QSignalSpy done(m_panel->controller(), &ProgramsController::pinDone);
    m_panel->applyButton()->click();
    ASSERT_TRUE(done.wait(kWaitMs)) << m_panel->statusText().toStdString();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return watch->wakeups(m_workload.pong)->size() == 2 && watch->wakeups(m_workload.pong)->back().count > 10;
        },
        kWaitMs));
    ASSERT_TRUE(QTest::qWaitFor([&] { return plot->plottableCount() == 2; }, 2000)); // before and after
    EXPECT_FALSE(m_panel->wakeupPlot()->isHidden());
}

// Without the timeline's events a traced watch takes the cheapest backend the worker may use:
// BPF, counting in the kernel, where it may (issue 40: the app's traced watch). The Timeline tab
// says it keeps no events; Record the events watches again with ftrace, whose events it draws.
TEST_F(Programs, ATracedWatchCountsInTheKernelUntilItsTimelineAsksForTheEvents)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    ProgramWatch* watch = m_panel->controller()->watchData();
    m_panel->controller()->refreshProcesses();
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_panel->traceSwitch()->isEnabled(); }, kWaitMs))
        << m_panel->traceSwitch()->toolTip().toStdString();
    m_panel->traceSwitch()->setChecked(true);
    watchWorkload();
    ASSERT_TRUE(QTest::qWaitFor([&] { return watch->traced() && watch->samples() >= 2; }, kWaitMs))
        << m_panel->statusText().toStdString();
    const bool bpf = bpfUnavailable().empty();
    EXPECT_EQ(watch->backend(), bpf ? SchedBackend::Bpf : SchedBackend::Ftrace);
    EXPECT_TRUE(m_panel->statusText().contains(bpf ? QStringLiteral("(BPF)") : QStringLiteral("ftrace")))
        << m_panel->statusText().toStdString();
    EXPECT_FALSE(m_panel->controller()->watchKeepsEvents());
    EXPECT_TRUE(watch->timeline().events.empty());
    EXPECT_TRUE(m_panel->timelineCaption().contains(QStringLiteral("keeps no events")))
        << m_panel->timelineCaption().toStdString();

    m_panel->plotTabs()->setCurrentIndex(ProgramsPanel::TimelineTab); // where the check is
    m_panel->timelineSwitch()->setChecked(true);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return watch->backend() == SchedBackend::Ftrace && !watch->timeline().events.empty(); }, kWaitMs))
        << m_panel->timelineCaption().toStdString();
    EXPECT_EQ(m_panel->plotTabs()->currentIndex(), ProgramsPanel::TimelineTab) << "the new watch opens on it again";
    EXPECT_TRUE(m_panel->controller()->watchKeepsEvents());
    EXPECT_TRUE(m_panel->statusText().contains(QStringLiteral("ftrace"))) << m_panel->statusText().toStdString();
    EXPECT_FALSE(m_panel->timelineCaption().contains(QStringLiteral("keeps no events")))
        << m_panel->timelineCaption().toStdString();
}

// The status line names what traced the watch and, where the worker's default could not use
// BPF, why (the sample's backend_fallback: no capabilities or BTF, or the kernel refused the
// programs), as the CLI says it on stderr. A watch on ftrace for its timeline's events is no
// fallback and says nothing more.
TEST(ProgramsStatus, ATracedWatchThatCouldNotUseBpfSaysWhy)
{
    MainWindow window;
    ProgramsPanel* panel = window.programs();
    ProgramWatch* watch = panel->controller()->watchData();
    watch->begin(4242);
    const auto traced = [](SchedBackend backend, std::string fallback, double seconds) {
        WatchSample s;
        s.pid = 4242;
        s.name = "server";
        s.seconds = seconds;
        s.intervalS = 0.5;
        ThreadRates t;
        t.tid = 4242;
        t.name = "server";
        t.state = 'S';
        t.affinity = { 0 };
        t.sched = ThreadSched {};
        s.threads = { t };
        s.backend = backend;
        s.backendFallback = std::move(fallback);
        return s;
    };
    const std::string refused = "the kernel refused the BPF programs: Permission denied";
    watch->addSample(traced(SchedBackend::Ftrace, refused, 0.5));
    EXPECT_TRUE(panel->statusText().contains(
        QStringLiteral("traced with ftrace (not BPF: the kernel refused the BPF programs: Permission denied)")))
        << panel->statusText().toStdString();
    watch->addSample(traced(SchedBackend::Bpf, "", 1.0));
    EXPECT_TRUE(panel->statusText().contains(QStringLiteral("traced in the kernel (BPF)")))
        << panel->statusText().toStdString();
    EXPECT_FALSE(panel->statusText().contains(QStringLiteral("not BPF"))) << panel->statusText().toStdString();
    watch->addSample(traced(SchedBackend::Ftrace, "", 1.5)); // the timeline's events
    EXPECT_TRUE(panel->statusText().contains(QStringLiteral("traced with ftrace.")))
        << panel->statusText().toStdString();
}

// A traced watch's Timeline tab: the watched threads' runs over the last seconds on the PUs they
// ran on (the PUs on the map), the selected thread in its curve's colour, the rest of a PU's
// time as the thin band; clicking a thread's run selects its row.
TEST_F(Programs, ATracedWatchsTimelineShowsTheWatchedThreadsRunsAndAClickSelectsOne)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    m_window.resize(1280, 800);
    m_window.show();
    m_window.findChild<QDockWidget*>(QStringLiteral("programsDock"))->show();
    m_panel->controller()->refreshProcesses();
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_panel->traceSwitch()->isEnabled(); }, kWaitMs))
        << m_panel->traceSwitch()->toolTip().toStdString();
    m_panel->traceSwitch()->setChecked(true);
    m_panel->timelineSwitch()->setChecked(true); // the events, which only ftrace records
    watchWorkload();
    selectThread(m_workload.ping);
    m_panel->plotTabs()->setCurrentIndex(ProgramsPanel::TimelineTab);
    TimelineView* view = m_panel->timelineView();
    // The runs of pong (the thread not selected) on the PUs it ran on: its latest that has
    // ended. (A PU's last run is drawn up to the newest event of any PU, and ends where that PU's
    // own next events, read later, say.)
    const auto latestPongRun = [&]() -> std::optional<std::pair<int, TimelineSlice>> {
        const TimelineData* d = view->data();
        std::optional<std::pair<int, TimelineSlice>> latest;
        if (d == nullptr)
            return latest;
        for (const int pu : d->pus())
            for (const TimelineSlice& slice : d->visible(pu, d->beginNs(), d->endNs() + 1, 0))
                if (slice.pid == m_workload.pong && slice.endNs - slice.beginNs >= 1000 && slice.endNs < d->endNs()
                    && (!latest || slice.endNs > latest->second.endNs))
                    latest = { pu, slice };
        return latest;
    };
    std::optional<std::pair<int, TimelineSlice>> pongRun;
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const TimelineData* d = view->data();
            if (!view->isVisible() || d == nullptr || d->endNs() - d->beginNs() < 500'000'000)
                return false;
            pongRun = latestPongRun();
            return pongRun.has_value();
        },
        kWaitMs))
        << m_panel->timelineCaption().toStdString();
    const int pu = pongRun->first;
    EXPECT_TRUE(std::find(m_allowed.begin(), m_allowed.end(), pu) != m_allowed.end()) << "PU " << pu;
    EXPECT_FALSE(view->laneRect(pu).isEmpty()) << "a lane for the PU it ran on";
    EXPECT_TRUE(m_panel->timelineCaption().contains(QStringLiteral("PID %1").arg(m_workload.pid)))
        << m_panel->timelineCaption().toStdString();
    // Issue 44: times count from the watch's start, and stay put while the window moves on.
    EXPECT_TRUE(m_panel->timelineCaption().contains(QStringLiteral("after the watch began")))
        << m_panel->timelineCaption().toStdString();
    const std::uint64_t origin = view->timeOriginNs();
    EXPECT_LE(origin, view->data()->beginNs());
    const std::uint64_t endBefore = view->data()->endNs();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view->data() && view->data()->endNs() > endBefore; }, kWaitMs));
    EXPECT_EQ(view->timeOriginNs(), origin);
    EXPECT_EQ(view->taskColor(static_cast<std::int32_t>(m_workload.ping)), runColor(0, m_panel->palette()))
        << "the selected thread in its curve's colour";
    // Zoomed to pong's latest ended run (found again: the window has moved on since), a click on
    // its middle selects pong in the table.
    pongRun = latestPongRun();
    ASSERT_TRUE(pongRun.has_value());
    const auto [runPu, run] = *pongRun;
    view->showSpan(run.beginNs - (run.endNs - run.beginNs), run.endNs + (run.endNs - run.beginNs));
    const std::uint64_t middle = run.beginNs + (run.endNs - run.beginNs) / 2;
    QTest::mouseClick(view, Qt::LeftButton, {},
        QPoint(static_cast<int>(view->xOf(middle)), static_cast<int>(view->laneRect(runPu).center().y())));
    const auto rows = m_panel->threadTable()->selectionModel()->selectedRows();
    ASSERT_EQ(rows.size(), 1);
    EXPECT_EQ(rows.front().data(ThreadTableModel::TidRole).toLongLong(), m_workload.pong);
}

// At a projector's 1280x800 the docked Programs view is a page in the plots' place (issue 31):
// the map stays beside it with room to be read and clicked, the thread table shows a program's
// six threads whole, and the plot draws its axes, titles and legend uncut. (Docked beside the
// plots it had 460 pixels: 2 rows of 6, a clipped plot.) Closed, the plots come back. The run
// panel asks for a number of iterations, whose field was wider than the minimum time's and
// pushed the window 3 pixels wider than the screen.
TEST(ProgramsView, At1280TheTableShowsSixThreadsBesideTheMapAndThePlotIsWhole)
{
    Workload workload;
    ASSERT_TRUE(workload.start(3)) << "the workload did not start"; // 3 pairs: 6 threads and main
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    window.runPanel()->setIterations(20000);
    window.resize(1280, 800);
    window.show();
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("programsDock"));
    ASSERT_NE(dock, nullptr);
    dock->toggleViewAction()->trigger(); // View → Programs
    ProgramsPanel* panel = window.programs();
    panel->pidField()->setText(QString::number(workload.pid));
    panel->watchButton()->click();
    ProgramWatch* watch = panel->controller()->watchData();
    ASSERT_TRUE(QTest::qWaitFor([&] { return watch->threads()->rowCount() >= 7 && watch->samples() >= 2; }, kWaitMs))
        << panel->statusText().toStdString();
    QTest::qWait(100); // the plot's coalesced redraw
    EXPECT_EQ(window.width(), 1280) << "the window keeps its size";

    TopologyMapWidget* map = window.mapPanel()->map();
    EXPECT_TRUE(map->isVisible());
    EXPECT_GE(window.mapPanel()->width(), 300) << "the map stays readable";
    for (const int cpu : live->allowedPus()) {
        const int box = map->mapLayout().puBox(cpu);
        ASSERT_GE(box, 0);
        const QRectF pu = map->mapLayout().boxes[static_cast<std::size_t>(box)].rect;
        EXPECT_GE(pu.width(), 16) << "PU " << cpu << " is a target a hand can click";
        EXPECT_TRUE(QRectF(map->rect()).contains(pu)) << "PU " << cpu;
    }

    const QTableView* table = panel->threadTable();
    for (int row = 0; row < 6; ++row)
        EXPECT_TRUE(table->viewport()->rect().contains(table->visualRect(table->model()->index(row, 0))))
            << "thread row " << row << " in view whole; the table is " << table->height() << " pixels high";

    QCustomPlot* plot = panel->plot()->plot();
    plot->replot(); // lays the axes out now
    const QRect axes = plot->axisRect()->rect();
    EXPECT_TRUE(plot->rect().contains(plot->axisRect()->outerRect()));
    EXPECT_GE(axes.width(), 300) << "the plot's axes";
    EXPECT_GE(axes.height(), 120) << "the plot's axes";
    const auto along
        = [](const QCPAxis* axis) { return QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label()); };
    EXPECT_LE(along(plot->xAxis), axes.width()) << "the time axis's title";
    EXPECT_LE(along(plot->yAxis), axes.height()) << "the switch rate's title";
    EXPECT_LE(along(plot->yAxis2), axes.height()) << "the run-queue wait's title";
    EXPECT_TRUE(axes.contains(plot->legend->outerRect())) << "the legend inside the axes";

    dock->toggleViewAction()->trigger(); // closed: the plots are back, the watch goes on
    // The splitter lays the plots out again in a later event: waited for, not a fixed 50 ms,
    // which a busy machine (right after a build) once overran.
    const bool laidOut
        = QTest::qWaitFor([&] { return window.plots()->isVisible() && window.plots()->width() >= 560; }, kWaitMs);
    EXPECT_TRUE(laidOut) << "the plots " << (window.plots()->isVisible() ? "shown" : "hidden") << ", "
                         << window.plots()->width() << " pixels wide";
    EXPECT_TRUE(panel->controller()->isWatching());
}

// With the dock watching, a PU click picks where threads go; the run's tasks stay where they
// were placed, and the run panel keeps its spec. Closed, the dock gives clicks back to the run.
TEST_F(Programs, ARepinClickLeavesTheRunsPlacementUnchanged)
{
    m_window.resize(1280, 800);
    m_window.show();
    auto* dock = m_window.findChild<QDockWidget*>(QStringLiteral("programsDock"));
    ASSERT_NE(dock, nullptr);
    dock->show();
    ASSERT_TRUE(m_window.runPanel()->setBenchmark(QStringLiteral("futex")));
    m_window.runPanel()->usePlacement(RunPanel::PlacementKind::Map);
    ASSERT_TRUE(m_map->setSelection({ m_allowed.front(), m_allowed.front() }).ok()); // same-pu A and B
    const std::vector<int> placed = m_map->selection();
    const auto specBefore = m_window.runPanel()->spec();
    ASSERT_TRUE(specBefore.ok()) << specBefore.error().message;
    watchWorkload();
    ASSERT_TRUE(m_map->repinMode());
    selectThread(m_workload.pong);
    const int target = m_allowed.back();
    const auto centre = [&](int cpu) {
        const int box = m_map->mapLayout().puBox(cpu);
        EXPECT_GE(box, 0);
        return m_map->mapLayout().boxes[static_cast<std::size_t>(box)].rect.center().toPoint();
    };
    QTest::mouseClick(m_map, Qt::LeftButton, Qt::NoModifier, centre(target));
    EXPECT_EQ(m_map->selection(), placed);
    EXPECT_EQ(m_map->pinTargets(), std::vector<int> { target });
    const auto specAfter = m_window.runPanel()->spec();
    ASSERT_TRUE(specAfter.ok()) << specAfter.error().message;
    EXPECT_EQ(specAfter->cpus, specBefore->cpus);
    EXPECT_TRUE(m_panel->applyButton()->isEnabled());
    EXPECT_NE(m_window.mapPanel()->map()->selectionSummary().indexOf(QStringLiteral("Re-pinning")), -1);
    // A second click drops the target again, still without touching the tasks.
    QTest::mouseClick(m_map, Qt::LeftButton, Qt::NoModifier, centre(target));
    EXPECT_TRUE(m_map->pinTargets().empty());
    EXPECT_EQ(m_map->selection(), placed);
    dock->close();
    EXPECT_FALSE(m_map->repinMode());
    EXPECT_TRUE(m_panel->controller()->isWatching());
    QTest::mouseClick(m_map, Qt::LeftButton, Qt::NoModifier, centre(m_allowed.front()));
    EXPECT_EQ(m_map->selection(), std::vector<int> { m_allowed.front() }); // the last task on it went
}

// A lean watch (docs/protocol.md): the worker sends wakers, preemptors and wake-up bins only for
// the threads the page shows. Its focus follows the table's visible rows as it scrolls, and
// keeps the selected ones wherever the table is scrolled.
TEST_F(Programs, TheWatchsFocusFollowsTheTablesVisibleAndSelectedRows)
{
    Workload many;
    ASSERT_TRUE(many.start(30)); // 61 threads: more rows than the table shows
    m_window.resize(1280, 800);
    m_window.show();
    m_window.findChild<QDockWidget*>(QStringLiteral("programsDock"))->show();
    m_panel->pidField()->setText(QString::number(many.pid));
    m_panel->watchButton()->click();
    ProgramsController* programs = m_panel->controller();
    QTableView* table = m_panel->threadTable();
    ASSERT_TRUE(QTest::qWaitFor([&] { return programs->watchData()->threads()->rowCount() >= 61; }, kWaitMs));
    const long first = programs->watchData()->threads()->threads().front().tid;
    const long last = programs->watchData()->threads()->threads().back().tid;
    const auto inFocus = [&](long tid) {
        const std::vector<long>& shown = programs->shownThreads();
        return std::binary_search(shown.begin(), shown.end(), tid);
    };
    ASSERT_TRUE(QTest::qWaitFor([&] { return inFocus(first); }, kWaitMs));
    ASSERT_LT(programs->shownThreads().size(), 61U) << "the table shows every row: the test needs fewer";
    EXPECT_FALSE(inFocus(last));
    EXPECT_EQ(programs->shownThreads(), m_panel->shownThreads());
    table->scrollToBottom();
    ASSERT_TRUE(QTest::qWaitFor([&] { return inFocus(last) && !inFocus(first); }, kWaitMs));
    // Selected without scrolling to it: in focus although out of view.
    table->selectionModel()->select(
        table->model()->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    ASSERT_TRUE(QTest::qWaitFor([&] { return inFocus(first) && inFocus(last); }, kWaitMs));
    EXPECT_EQ(programs->shownThreads(), m_panel->shownThreads());
}

TEST_F(Programs, TheProgramEndingEndsTheWatchWithASentenceAndABadPidIsRefused)
{
    watchWorkload();
    QSignalSpy ended(m_panel->controller(), &ProgramsController::watchEnded);
    m_workload.process.kill();
    ASSERT_TRUE(ended.wait(kWaitMs));
    EXPECT_FALSE(ended.at(0).at(0).toString().isEmpty());
    EXPECT_NE(m_panel->statusText().indexOf(QString::number(m_workload.pid)), -1)
        << m_panel->statusText().toStdString();
    // A PID that runs nothing: the worker's sentence, and the panel stays usable.
    m_panel->pidField()->setText(QStringLiteral("999999999"));
    QSignalSpy failed(m_panel->controller(), &ProgramsController::failed);
    m_panel->watchButton()->click();
    ASSERT_TRUE(failed.wait(kWaitMs));
    EXPECT_NE(failed.at(0).at(0).toString().indexOf(QStringLiteral("999999999")), -1)
        << failed.at(0).at(0).toString().toStdString();
    EXPECT_FALSE(m_panel->controller()->isWatching());
    m_panel->pidField()->setText(QStringLiteral("twelve"));
    m_panel->watchButton()->click();
    EXPECT_NE(m_panel->statusText().indexOf(QStringLiteral("whole number")), -1);
}

TEST_F(Programs, TheProcessListComesOwnFirstAndFiltersByName)
{
    QSignalSpy listed(m_panel->controller(), &ProgramsController::processesChanged);
    m_panel->controller()->refreshProcesses();
    ASSERT_TRUE(listed.wait(kWaitMs));
    const auto& processes = m_panel->controller()->processes()->processes();
    ASSERT_FALSE(processes.empty());
    EXPECT_TRUE(processes.front().own);
    m_panel->filter()->setText(QString::number(m_workload.pid));
    const QAbstractItemModel* shown = m_panel->processTable()->model();
    ASSERT_GE(shown->rowCount(), 1);
    bool found = false;
    for (int row = 0; row < shown->rowCount(); ++row)
        found = found || shown->index(row, 0).data(ProcessTableModel::PidRole).toLongLong() == m_workload.pid;
    EXPECT_TRUE(found);
    m_panel->filter()->setText(QStringLiteral("no such command at all"));
    EXPECT_EQ(shown->rowCount(), 0);
}

// Over ssh: the machine connected (this one, through the loopback sshd) is the one whose
// programs the dock watches and re-pins; its worker runs there, not in this process's tree.
TEST(ProgramsOverSsh, AServersProgramIsWatchedAndRepinnedThroughItsWorker)
{
    LocalSshd sshd;
    if (!sshd.problem().isEmpty())
        GTEST_FAIL() << "the local sshd for the ssh tests: " << sshd.problem().toStdString();
    qputenv("CTXSCOPE_SSH_COMMAND", sshd.sshCommand().toUtf8());
    struct Unset {
        ~Unset() { qunsetenv("CTXSCOPE_SSH_COMMAND"); }
    } unset;
    Workload workload;
    ASSERT_TRUE(workload.start());
    MainWindow window;
    const auto server = window.machines()->connectNow(
        MachineLink { QStringLiteral("lab-test"), QString::fromUtf8(ctxscope::test::cliPath()) }, 60'000);
    ASSERT_TRUE(server.ok()) << server.error().message;
    ProgramsPanel* panel = window.programs();
    panel->pidField()->setText(QString::number(workload.pid));
    panel->watchButton()->click();
    ProgramWatch* watch = panel->controller()->watchData();
    ASSERT_TRUE(QTest::qWaitFor([&] { return watch->threads()->rowOfThread(workload.pong) >= 0; }, kWaitMs))
        << panel->statusText().toStdString();
    // The watching worker is the server's: ssh is what this app started.
    EXPECT_TRUE(panel->controller()->worker()->link().isRemote());
    const std::vector<int> original = affinityOf(workload.pong);
    const int target = server->allowedPus().back();
    panel->threadTable()->selectRow(watch->threads()->rowOfThread(workload.pong));
    ASSERT_TRUE(window.mapPanel()->map()->setPinTargets({ target }).ok());
    QSignalSpy done(panel->controller(), &ProgramsController::pinDone);
    panel->applyButton()->click();
    ASSERT_TRUE(done.wait(kWaitMs)) << panel->statusText().toStdString();
    EXPECT_EQ(affinityOf(workload.pong), std::vector<int> { target });
    panel->restoreButton()->click();
    ASSERT_TRUE(done.wait(kWaitMs));
    EXPECT_EQ(affinityOf(workload.pong), original);
}

// A pin the worker had no time to answer before it was stopped (another machine chosen) is
// answered as failed, so the dock's count of pins in flight goes back to zero; and what was
// listed and watched on the old machine goes with it.
TEST(ProgramsController, AMachineChangeFailsPinsInFlightAndForgetsTheOldMachinesProcesses)
{
    Workload workload;
    ASSERT_TRUE(workload.start());
    ProgramsController programs;
    QSignalSpy changed(&programs, &ProgramsController::processesChanged);
    programs.refreshProcesses();
    ASSERT_TRUE(changed.wait(kWaitMs));
    ASSERT_GT(programs.processes()->rowCount(), 0);
    ASSERT_TRUE(programs.watch(workload.pid));
    ProgramWatch* watch = programs.watchData();
    ASSERT_TRUE(QTest::qWaitFor([&] { return watch->threads()->rowOfThread(workload.pong) >= 0; }, kWaitMs));
    const std::vector<int> original = affinityOf(workload.pong);
    QSignalSpy refused(&programs, &ProgramsController::pinRefused);
    QSignalSpy failed(&programs, &ProgramsController::failed);
    QSignalSpy ended(&programs, &ProgramsController::watchEnded);
    programs.pinThreads({ workload.pong }, { original.front() });
    ASSERT_EQ(programs.pinsInFlight(), 1);
    // A server that does not exist: the switch stops this machine's worker at once.
    programs.setMachine(MachineLink { QStringLiteral("no-such-host.invalid"), QStringLiteral("ctxscope-cli") });
    EXPECT_EQ(programs.pinsInFlight(), 0);
    EXPECT_EQ(programs.processes()->rowCount(), 0);
    EXPECT_EQ(watch->threads()->rowCount(), 0);
    EXPECT_FALSE(programs.isWatching());
    // The watch ended because the user switched, not because something failed.
    EXPECT_EQ(failed.count(), 0);
    ASSERT_EQ(ended.count(), 1);
    EXPECT_TRUE(ended.at(0).at(0).toString().isEmpty());
    EXPECT_TRUE(watch->restorePlan().empty()) << "nothing of the old machine to restore here";
    ASSERT_EQ(refused.count(), 1); // the pin, failed with the stopped worker
    EXPECT_NE(refused.at(0).at(0).toString().indexOf(QStringLiteral("stopped")), -1);
}
