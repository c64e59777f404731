// SPDX-License-Identifier: MIT
// Runs through a real `ctxscope-cli worker` (CTXSCOPE_CLI, set by the test main to the one
// built with the tests). Uses only what the live machine reports: its first allowed PU.
#include "distributionplot.h"
#include "lessoncontroller.h"
#include "lessonsession.h"
#include "liveplot.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runbroker.h"
#include "runmenu.h"
#include "runpanel.h"
#include "statuspanel.h"
#include "topologymappanel.h"
#include "workerclient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

int firstAllowedCpu()
{
    auto live = Topology::loadLive();
    EXPECT_TRUE(live.ok());
    return live ? live->allowedPus().front() : 0;
}

// A window on this machine set up for a short futex run with both tasks on one PU.
void prepareShortRun(MainWindow& window, int cpu)
{
    ASSERT_TRUE(window.runPanel()->setBenchmark(QStringLiteral("futex")));
    window.runPanel()->setIterations(2000);
    window.runPanel()->setRepetitions(2);
    ASSERT_TRUE(window.mapPanel()->map()->setSelection({ cpu, cpu }).ok());
    window.runPanel()->usePlacement(RunPanel::PlacementKind::Map);
}

// The window on this machine's topology, set up as prepareShortRun does on its first allowed PU
// (returned in cpu).
void prepareLiveShortRun(MainWindow& window, int& cpu)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    cpu = live->allowedPus().front();
    window.setTopology(*live);
    prepareShortRun(window, cpu);
}

} // namespace

TEST(RunThroughWorker, AShortRunAddsARowAndPlotsExactlyItsSamples)
{
    MainWindow window;
    int cpu = 0;
    ASSERT_NO_FATAL_FAILURE(prepareLiveShortRun(window, cpu));
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    const auto id = window.launcher()->startRun();
    ASSERT_TRUE(id.has_value()) << window.runAction()->toolTip().toStdString();
    EXPECT_TRUE(window.cancelAction()->isEnabled());
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    EXPECT_EQ(finished.at(0).at(0).toULongLong(), *id);

    ASSERT_EQ(window.resultsModel()->rowCount(), 1);
    const ResultRow& row = window.resultsModel()->results().front();
    EXPECT_EQ(row.id, *id);
    EXPECT_EQ(row.result->bench, "futex");
    EXPECT_EQ(row.result->placement.cpus, (std::vector<int> { cpu, cpu }));
    EXPECT_EQ(row.result->placement.relation, Relation::SamePu);

    // The live curve held the samples the worker streamed (to 6 digits); once the run ended it
    // holds the result's, unrounded, and draws them (or, for many, each pixel column's extremes
    // and an even selection).
    const LivePlot* livePlot = window.plots()->livePlot();
    const auto kept = livePlot->samples(*id);
    const auto& expected = row.result->samples;
    ASSERT_GT(kept.size(), 0U);
    ASSERT_EQ(kept.size(), expected.size());
    for (std::size_t i = 0; i < kept.size(); ++i)
        ASSERT_DOUBLE_EQ(kept[i], expected[i]) << "sample " << i;
    const QCPGraph* drawn = livePlot->samplesGraph(*id);
    ASSERT_NE(drawn, nullptr);
    ASSERT_GT(drawn->dataCount(), 0);
    for (int i = 0; i < drawn->dataCount(); ++i) {
        const auto index = static_cast<std::size_t>(drawn->data()->at(i)->key);
        ASSERT_LT(index, expected.size());
        ASSERT_DOUBLE_EQ(drawn->data()->at(i)->value, expected[index]) << "drawn point " << i;
    }
    const QCPGraph* median = window.plots()->livePlot()->medianGraph(*id);
    ASSERT_NE(median, nullptr);
    EXPECT_GT(median->dataCount(), 0);
    const QCPGraph* distribution = window.plots()->distributionPlot()->graph(*id);
    ASSERT_NE(distribution, nullptr);
    EXPECT_GT(distribution->dataCount(), 0);

    EXPECT_TRUE(window.runAction()->isEnabled()) << "ready for the next run";
    EXPECT_FALSE(window.cancelAction()->isEnabled());
}

// A syscall run (one task) after A and B were placed runs on A and leaves B on the
// map, which says that syscall leaves it unused.
TEST(RunThroughWorker, AOneTaskRunKeepsBOnTheMap)
{
    MainWindow window;
    int cpu = 0;
    ASSERT_NO_FATAL_FAILURE(prepareLiveShortRun(window, cpu));
    ASSERT_TRUE(window.runPanel()->setBenchmark(QStringLiteral("syscall")));
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(window.launcher()->startRun().has_value()) << window.runAction()->toolTip().toStdString();
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    ASSERT_EQ(window.resultsModel()->rowCount(), 1);
    EXPECT_EQ(window.resultsModel()->results().front().result->placement.cpus, std::vector<int> { cpu });
    EXPECT_EQ(window.mapPanel()->map()->selection(), (std::vector<int> { cpu, cpu }));
    EXPECT_NE(window.mapPanel()->map()->selectionSummary().indexOf(QStringLiteral("B unused")), -1)
        << window.mapPanel()->map()->selectionSummary().toStdString();
}

TEST(RunThroughWorker, KillingTheWorkerMidRunIsReportedWithinASecondAndTheNextRunWorks)
{
    MainWindow window;
    int cpu = 0;
    ASSERT_NO_FATAL_FAILURE(prepareLiveShortRun(window, cpu));
    window.runPanel()->setMinTime(60); // long: it is killed long before it ends
    QSignalSpy progress(window.controller(), &WorkerClient::progress);
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(window.launcher()->startRun().has_value());
    ASSERT_TRUE(progress.wait(120'000)) << "the run never started";
    const qint64 pid = window.controller()->workerPid();
    ASSERT_GT(pid, 0);

    QElapsedTimer clock;
    clock.start();
    ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    ASSERT_TRUE(finished.wait(1000)) << "no word of the dead worker within a second";
    EXPECT_LT(clock.elapsed(), 1000);
    EXPECT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Failed);
    EXPECT_TRUE(finished.at(0).at(2).toString().contains(QStringLiteral("killed by signal 9")))
        << finished.at(0).at(2).toString().toStdString();
    EXPECT_EQ(window.controller()->state(), WorkerClient::State::Dead);
    QCoreApplication::processEvents(); // the queued state change reaches the status bar
    EXPECT_TRUE(window.statusPanel()->workerText().contains(QStringLiteral("stopped")));
    EXPECT_EQ(window.resultsModel()->rowCount(), 0);

    // The next Run starts a new worker and works.
    prepareShortRun(window, cpu);
    ASSERT_TRUE(window.launcher()->startRun().has_value());
    ASSERT_TRUE(finished.wait(120'000));
    EXPECT_EQ(finished.at(1).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(1).at(2).toString().toStdString();
    EXPECT_EQ(window.resultsModel()->rowCount(), 1);
    EXPECT_NE(window.controller()->workerPid(), pid);
}

TEST(RunThroughWorker, CancelStopsTheRunAndKeepsTheWorker)
{
    MainWindow window;
    int cpu = 0;
    ASSERT_NO_FATAL_FAILURE(prepareLiveShortRun(window, cpu));
    window.runPanel()->setMinTime(60);
    QSignalSpy progress(window.controller(), &WorkerClient::progress);
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(window.launcher()->startRun().has_value());
    ASSERT_TRUE(progress.wait(120'000));
    const qint64 pid = window.controller()->workerPid();
    ASSERT_TRUE(window.cancelAction()->isEnabled());
    window.cancelAction()->trigger(); // what Esc does
    ASSERT_TRUE(finished.wait(5000));
    EXPECT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Cancelled);
    EXPECT_EQ(finished.at(0).at(2).toString(), QStringLiteral("cancelled"));
    EXPECT_EQ(window.controller()->state(), WorkerClient::State::Idle);
    EXPECT_EQ(window.controller()->workerPid(), pid);
    EXPECT_EQ(window.resultsModel()->rowCount(), 0);
    EXPECT_TRUE(window.runAction()->isEnabled());
}

TEST(RunThroughWorker, GarbageLinesAreReportedAndTheRunStillCompletes)
{
    const int cpu = firstAllowedCpu();
    // The real worker, with garbage slipped into its stream after its first progress line
    // (a shell loop: it passes each line on at once, where awk or sed would buffer).
    const QString script = QStringLiteral(R"sh("$0" worker | while IFS= read -r line; do
    printf '%s\n' "$line"
    case $line in *'"type":"progress"'*)
        if [ -z "$done" ]; then
            done=1
            printf '%s\n' 'garbage {' '{"type":"dance"}' '{"type":"samples","id":1,"ns_per_op":"many"}'
        fi;;
    esac
done)sh");
    WorkerClient controller;
    controller.setWorkerCommand(
        QStringLiteral("/bin/sh"), { QStringLiteral("-c"), script, WorkerClient::defaultProgram() });
    QSignalSpy garbage(&controller, &WorkerClient::protocolError);
    QSignalSpy results(&controller, &WorkerClient::resultAvailable);
    QSignalSpy failed(&controller, &WorkerClient::runFailed);
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { cpu, cpu };
    spec.iterations = 2000;
    spec.repetitions = 1;
    const auto id = controller.start(spec);
    ASSERT_EQ(id, 1U);
    ASSERT_TRUE(results.wait(120'000)) << (failed.isEmpty() ? std::string("no result")
                                                            : failed.at(0).at(1).toString().toStdString());
    ASSERT_EQ(garbage.count(), 3);
    EXPECT_TRUE(garbage.at(0).at(0).toString().contains(QStringLiteral("not a JSON line")));
    EXPECT_TRUE(garbage.at(1).at(0).toString().contains(QStringLiteral("unknown type 'dance'")));
    EXPECT_TRUE(garbage.at(2).at(0).toString().contains(QStringLiteral("malformed 'samples'")));
    const auto result = results.at(0).at(1).value<std::shared_ptr<const RunResult>>();
    ASSERT_NE(result, nullptr);
    EXPECT_EQ(result->bench, "futex");
    EXPECT_EQ(controller.state(), WorkerClient::State::Idle);
}

TEST(RunThroughWorker, AWorkerThatCannotStartIsAnErrorNotAHang)
{
    WorkerClient controller;
    controller.setWorkerCommand(QStringLiteral("/nonexistent/ctxscope-cli"), { QStringLiteral("worker") });
    QSignalSpy failed(&controller, &WorkerClient::runFailed);
    BenchSpec spec;
    spec.bench = "syscall";
    const auto id = controller.start(spec);
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(failed.count() > 0 || failed.wait(5000));
    EXPECT_EQ(failed.at(0).at(0).toULongLong(), *id);
    EXPECT_TRUE(failed.at(0).at(1).toString().contains(QStringLiteral("Could not start the worker")));
    EXPECT_EQ(controller.state(), WorkerClient::State::Dead);
}

// The worker's stdout (or ssh's, for a server) is a 1 MiB pipe (fs.pipe-max-size if lower), so
// the worker or ssh keeps writing while the app redraws (a 64 KiB pipe held 3,600 samples and
// stalled the stream through ssh at 0.6 million samples/s); and the worker runs on the CPUs it
// was given.
TEST(RunThroughWorker, TheWorkerWritesIntoAMebibytePipeOnTheCpusItWasGiven)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const int cpu = live->allowedPus().back();
    QTemporaryDir dir;
    const QString report = dir.filePath(QStringLiteral("report"));
    WorkerClient controller;
    controller.setWorkerCpus({ cpu });
    // perl (perl-base is essential in Debian) asks the kernel for the size of the pipe on its
    // stdout (F_GETPIPE_SZ = 1032); grep reports the CPUs the shell passed on; then the worker.
    controller.setWorkerCommand(QStringLiteral("/bin/sh"),
        { QStringLiteral("-c"),
            QStringLiteral(
                R"sh(perl -e 'open(my $o, ">", $ARGV[0]) or die; print $o fcntl(STDOUT, 1032, 0) + 0, "\n"' "$1" &&
grep Cpus_allowed_list /proc/self/status >> "$1" && exec "$0" worker)sh"),
            WorkerClient::defaultProgram(), report });
    QSignalSpy ready(&controller, &WorkerClient::workerReady);
    controller.startWorker();
    ASSERT_TRUE(ready.wait(10'000));
    QFile file(report);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    ASSERT_EQ(lines.size(), 2);
    // 1 MiB, or less where fs.pipe-max-size was lowered (the default is 1 MiB).
    QFile limit(QStringLiteral("/proc/sys/fs/pipe-max-size"));
    ASSERT_TRUE(limit.open(QIODevice::ReadOnly));
    const int allowed = std::min(1 << 20, limit.readAll().trimmed().toInt());
    EXPECT_EQ(lines[0], QByteArray::number(allowed));
    EXPECT_EQ(lines[1].split('\t').last(), QByteArray::number(cpu));
    controller.stopWorker();
}

TEST(RunThroughWorker, ALessonRunsItsStepsAndShowsTheConclusionTheEngineDraws)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    EXPECT_FALSE(window.lessons()->start(QStringLiteral("no-such-lesson")).ok());
    QSignalSpy done(window.lessons(), &LessonController::finished);
    const Status started = window.lessons()->start(QStringLiteral("mode-switch"));
    ASSERT_TRUE(started.ok()) << started.error().message;
    ASSERT_TRUE(done.wait(300'000));
    EXPECT_TRUE(done.at(0).at(0).toBool());
    auto plan = planLesson("mode-switch", *live, RunBudget {});
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(window.resultsModel()->rowCount(), static_cast<int>(plan->size())) << "a row per experiment";
    ASSERT_NE(window.lesson(), nullptr);
    const auto& conclusion = window.lesson()->conclusion();
    ASSERT_FALSE(conclusion.empty());
    // The same sentences the engine draws from these results, shown in the Lesson tab.
    std::vector<RunResult> results;
    for (const ResultRow& row : window.resultsModel()->results())
        results.push_back(*row.result);
    EXPECT_EQ(conclusion, concludeLesson("mode-switch", results));
    const QString shown = window.lessonView()->toPlainText();
    for (const std::string& sentence : conclusion)
        EXPECT_TRUE(shown.contains(QString::fromStdString(sentence))) << sentence;
}

TEST(RunThroughWorker, LessonsNeedThisMachine)
{
    MainWindow window;
    auto synth = Topology::loadSynthetic("pack:1 core:2 pu:2");
    ASSERT_TRUE(synth.ok());
    window.setTopology(*synth);
    const Status refused = window.lessons()->start(QStringLiteral("mode-switch"));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("not it"), std::string::npos) << refused.error().message;
}
