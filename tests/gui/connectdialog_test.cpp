// SPDX-License-Identifier: MIT
// File → Connect to a machine…, Disconnect and reconnecting, through the real window and
// Debian's real sshd on 127.0.0.1 (localsshd.h): the dialog connects to lab-test and the map
// shows the server's topology, a failure stays in the dialog as its sentence, Cancel stops
// waiting, and after a disconnect or a dropped connection the status says so and the next
// Run asks before it reconnects. The dialogs are grabbed to PNGs beside the test binary
// (connect-dialog*.png) to be looked at.
#include "compareplot.h"
#include "connectdialog.h"
#include "filemenu.h"
#include "liveplot.h"
#include "localsshd.h"
#include "machinecontroller.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runbroker.h"
#include "runmenu.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "testtopologies.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"

#include "ctxscope/sysinfo.h"
#include "test_paths.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr int kConnectMs = 60'000;

class ConnectDialogTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!m_sshd.problem().isEmpty())
            GTEST_FAIL() << "the local sshd for the ssh tests: " << m_sshd.problem().toStdString();
        qputenv("CTXSCOPE_SSH_COMMAND", m_sshd.sshCommand().toUtf8());
        QSettings().remove(QStringLiteral("machines")); // no recent hosts or CLI of an earlier test
        m_window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:2"));
        // A short futex run from the run panel, whatever an earlier test left in its settings.
        ASSERT_TRUE(m_window.runPanel()->setBenchmark(QStringLiteral("futex")));
        m_window.runPanel()->setIterations(2000);
        m_window.runPanel()->setRepetitions(2);
        m_window.show();
    }
    void TearDown() override { qunsetenv("CTXSCOPE_SSH_COMMAND"); }

    // The dialog with `host` typed and the CLI built with these tests as the server's.
    ConnectDialog* dialogFor(const QString& host, const QString& cli = QString::fromUtf8(ctxscope::test::cliPath()))
    {
        ConnectDialog* dialog = m_window.machines()->showConnectDialog();
        dialog->hostField()->setText(host);
        dialog->cliField()->setText(cli);
        return dialog;
    }

    // Connects to lab-test through the dialog, as a user would.
    ::testing::AssertionResult connectToLabTest()
    {
        ConnectDialog* dialog = dialogFor(QStringLiteral("lab-test"));
        QSignalSpy connected(dialog, &ConnectDialog::connected);
        dialog->connectButton()->click();
        if (!connected.wait(kConnectMs))
            return ::testing::AssertionFailure() << "not connected: " << dialog->message().toStdString();
        return ::testing::AssertionSuccess();
    }

    static void grab(QWidget* widget, const char* name)
    {
        const QString path = QDir::current().filePath(QString::fromLatin1(name));
        EXPECT_TRUE(widget->grab().save(path)) << path.toStdString();
    }

    // A short futex run on the first allowed PU of the machine shown.
    BenchSpec shortRun() const
    {
        BenchSpec spec;
        spec.bench = "futex";
        const int cpu = m_window.topology()->allowedPus().front();
        spec.cpus = { cpu, cpu };
        spec.iterations = 2000;
        spec.repetitions = 2;
        return spec;
    }

    LocalSshd m_sshd;
    MainWindow m_window;
};

} // namespace

TEST_F(ConnectDialogTest, OffersTheConfigsAliasesAndConnectsToTheServerWhoseMapItThenShows)
{
    ConnectDialog* dialog = m_window.machines()->showConnectDialog();
    // The aliases of the configuration ssh reads ($CTXSCOPE_SSH_COMMAND's -F file).
    const auto items = dialog->hostList()->findItems(QStringLiteral("lab-test"), Qt::MatchStartsWith);
    ASSERT_EQ(items.size(), 1);
    EXPECT_EQ(dialog->hostList()->findItems(QStringLiteral("lab-closed"), Qt::MatchStartsWith).size(), 1);
    dialog->hostList()->scrollToItem(items.front());
    QTest::mouseClick(
        dialog->hostList()->viewport(), Qt::LeftButton, {}, dialog->hostList()->visualItemRect(items.front()).center());
    EXPECT_EQ(dialog->hostField()->text(), QStringLiteral("lab-test"));
    EXPECT_EQ(dialog->cliField()->text(), QStringLiteral("ctxscope-cli")); // the default
    dialog->cliField()->setText(QString::fromUtf8(ctxscope::test::cliPath()));
    grab(dialog, "connect-dialog.png");

    QSignalSpy connected(dialog, &ConnectDialog::connected);
    dialog->connectButton()->click();
    EXPECT_TRUE(dialog->isConnecting());
    EXPECT_FALSE(dialog->connectButton()->isEnabled());
    EXPECT_TRUE(dialog->message().contains(QStringLiteral("Connecting to lab-test")))
        << dialog->message().toStdString();
    grab(dialog, "connect-dialog-connecting.png");
    ASSERT_TRUE(connected.wait(kConnectMs)) << dialog->message().toStdString();

    // The map shows the server's topology (this machine, reached over ssh) and runs go there.
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    ASSERT_TRUE(m_window.topology().has_value());
    EXPECT_EQ(m_window.topology()->allowedPus(), live->allowedPus());
    EXPECT_TRUE(m_window.launcher()->isLive());
    EXPECT_EQ(m_window.controller()->link().destination, QStringLiteral("lab-test"));
    // The title and the status bar name it: as the user did, with the CPU, kernel and VM or metal.
    const SysInfo sys = readSysInfo();
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return m_window.windowTitle().contains(QString::fromStdString(sys.kernel)); }, 5000));
    const QString title = m_window.windowTitle();
    EXPECT_TRUE(title.startsWith(QStringLiteral("ctxscope — lab-test"))) << title.toStdString();
    EXPECT_TRUE(title.contains(QString::fromStdString(sys.cpuModel).simplified())) << title.toStdString();
    EXPECT_TRUE(title.contains(sys.hypervisor ? QStringLiteral("virtual machine") : QStringLiteral("bare metal")))
        << title.toStdString();
    EXPECT_TRUE(m_window.statusPanel()->machineText().startsWith(QStringLiteral("lab-test")));
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return m_window.statusPanel()->workerText() == QStringLiteral("lab-test: connected"); }, 5000))
        << m_window.statusPanel()->workerText().toStdString();
    EXPECT_EQ(MachineController::recentHosts().value(0), QStringLiteral("lab-test"));
    grab(&m_window, "connect-window.png");

    // A run measures the server and comes back as a row.
    QSignalSpy finished(m_window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(m_window.launcher()->startSpec(shortRun()).has_value());
    ASSERT_TRUE(finished.wait(kConnectMs));
    EXPECT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    EXPECT_EQ(m_window.resultsModel()->rowCount(), 1);
}

TEST_F(ConnectDialogTest, AFailureStaysInTheDialogAsItsSentenceAndTheWindowAsItWas)
{
    ConnectDialog* dialog = dialogFor(QStringLiteral("lab-closed"));
    dialog->connectButton()->click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !dialog->isConnecting(); }, kConnectMs));
    EXPECT_TRUE(dialog->isVisible());
    EXPECT_TRUE(dialog->message().contains(QStringLiteral("lab-closed refused the connection")))
        << dialog->message().toStdString();
    EXPECT_TRUE(dialog->connectButton()->isEnabled()); // try another host
    // Every line of the sentence shows: the dialog grew to the wrapped text's height.
    const QLabel* label = dialog->messageLabel();
    EXPECT_GE(label->height(), label->heightForWidth(label->width()));
    grab(dialog, "connect-dialog-failed.png");
    EXPECT_FALSE(m_window.controller()->link().isRemote());
    EXPECT_EQ(m_window.topology()->pus().size(), 4U); // still the synthetic one (pack:1 core:2 pu:2)
    EXPECT_FALSE(MachineController::recentHosts().contains(QStringLiteral("lab-closed")));

    // Option injection is refused before anything runs.
    dialog->hostField()->setText(QStringLiteral("-oProxyCommand=touch /tmp/x"));
    dialog->connectButton()->click();
    EXPECT_FALSE(dialog->isConnecting());
    EXPECT_TRUE(dialog->message().contains(QStringLiteral("starts with '-'"))) << dialog->message().toStdString();
    dialog->cancelButton()->click();
    EXPECT_FALSE(dialog->isVisible());
}

TEST_F(ConnectDialogTest, CancelStopsWaitingForAServerThatNeverSaysHello)
{
    // A "CLI" on the server that never answers: the worker's hello never comes.
    const QString silent = QDir::temp().filePath(QStringLiteral("ctxscope-silent-%1.sh")).arg(::getpid());
    QFile file(silent);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/sh\nexec sleep 10\n");
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    ConnectDialog* dialog = dialogFor(QStringLiteral("lab-test"), silent);
    dialog->connectButton()->click();
    ASSERT_TRUE(dialog->isConnecting());
    QTest::qWait(300); // ssh is on its way
    dialog->cancelButton()->click();
    QFile::remove(silent);
    EXPECT_FALSE(dialog->isConnecting());
    EXPECT_TRUE(dialog->isVisible()); // Cancel stopped the wait; a second one closes
    EXPECT_TRUE(dialog->message().startsWith(QStringLiteral("Cancelled"))) << dialog->message().toStdString();
    EXPECT_FALSE(m_window.controller()->link().isRemote());
    dialog->cancelButton()->click();
    EXPECT_FALSE(dialog->isVisible());
}

TEST_F(ConnectDialogTest, AfterDisconnectTheRowsStayAndRunAsksBeforeItReconnects)
{
    ASSERT_TRUE(connectToLabTest());
    QSignalSpy finished(m_window.runs(), &RunBroker::runFinished);
    ASSERT_TRUE(m_window.launcher()->startSpec(shortRun()).has_value()); // also places the tasks on the map
    ASSERT_TRUE(finished.wait(kConnectMs));
    ASSERT_EQ(m_window.resultsModel()->rowCount(), 1);

    QAction* disconnect = m_window.machines()->disconnectAction();
    ASSERT_TRUE(QTest::qWaitFor([&] { return disconnect->isEnabled(); }, 5000));
    disconnect->trigger();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return m_window.statusPanel()->workerText()
                == QStringLiteral("lab-test: disconnected — the next Run offers to reconnect");
        },
        5000))
        << m_window.statusPanel()->workerText().toStdString();
    EXPECT_EQ(m_window.resultsModel()->rowCount(), 1);
    EXPECT_TRUE(m_window.windowTitle().startsWith(QStringLiteral("ctxscope — lab-test")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !disconnect->isEnabled(); }, 5000));

    // Run asks (a window-modal box, answered here without a nested event loop) and, once
    // reconnected, runs the run panel's placement on the server.
    ASSERT_TRUE(m_window.runAction()->isEnabled());
    m_window.runAction()->trigger();
    QMessageBox* question = m_window.machines()->reconnectQuestion();
    ASSERT_NE(question, nullptr);
    EXPECT_TRUE(question->text().contains(QStringLiteral("lab-test is not connected")))
        << question->text().toStdString();
    grab(question, "connect-reconnect-question.png");
    EXPECT_EQ(m_window.controller()->state(), WorkerClient::State::Stopped); // nothing ran before the answer
    question->button(QMessageBox::Yes)->click();
    ASSERT_TRUE(finished.wait(kConnectMs));
    EXPECT_EQ(finished.at(1).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(1).at(2).toString().toStdString();
    EXPECT_EQ(m_window.resultsModel()->rowCount(), 2);
    EXPECT_EQ(m_window.controller()->link().destination, QStringLiteral("lab-test"));
}

TEST_F(ConnectDialogTest, ADroppedConnectionIsSaidAtOnceAndRunOffersToReconnect)
{
    ASSERT_TRUE(connectToLabTest());
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return m_window.statusPanel()->workerText() == QStringLiteral("lab-test: connected"); }, 5000))
        << m_window.statusPanel()->workerText().toStdString();
    // The server side goes away: ssh sees its connection closed.
    for (int pid : m_sshd.sessionPids())
        ::kill(pid, SIGKILL);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return m_window.statusPanel()->workerText()
                == QStringLiteral("lab-test: connection lost — the next Run offers to reconnect");
        },
        20'000))
        << m_window.statusPanel()->workerText().toStdString();
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_window.launcher()->needsConnection(); }, 5000));
    const int cpu = m_window.topology()->allowedPus().front();
    ASSERT_TRUE(m_window.mapPanel()->map()->setSelection({ cpu, cpu }).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_window.runAction()->isEnabled(); }, 5000));
    m_window.runAction()->trigger();
    QMessageBox* question = m_window.machines()->reconnectQuestion();
    ASSERT_NE(question, nullptr);
    EXPECT_TRUE(question->text().contains(QStringLiteral("lab-test"))) << question->text().toStdString();
    question->button(QMessageBox::No)->click();
    EXPECT_TRUE(m_window.launcher()->needsConnection()); // No: nothing reconnected
}

// This machine and lab-test in one window: the toolbar's switcher lists both and moves runs
// between them, each row names where it ran, Compare gets one source for each machine, and a
// saved session keeps the server's runs under the server (read back the same).
TEST_F(ConnectDialogTest, TheSwitcherHoldsThisMachineAndTheServerAndEachRowNamesItsMachine)
{
    QComboBox* switcher = m_window.machines()->switcher();
    ASSERT_NE(switcher, nullptr);
    const auto waitIdle = [&](bool remote) {
        return QTest::qWaitFor(
            [&] {
                return m_window.controller()->link().isRemote() == remote && m_window.launcher()->isLive()
                    && m_window.controller()->state() == WorkerClient::State::Idle;
            },
            kConnectMs);
    };
    QSignalSpy finished(m_window.runs(), &RunBroker::runFinished);
    quint64 lastRun = 0;
    const auto runOnce = [&] {
        const qsizetype before = finished.size();
        const auto id = m_window.launcher()->startSpec(shortRun());
        if (!id)
            return false;
        lastRun = *id;
        return QTest::qWaitFor([&] { return finished.size() > before; }, kConnectMs)
            && finished.back().at(1).value<RunOutcome>() == RunOutcome::Succeeded;
    };

    // The synthetic map the fixture shows comes first, named as such; this machine after it.
    EXPECT_EQ(switcher->itemText(0).toStdString(), m_window.topology()->origin());
    EXPECT_EQ(switcher->currentIndex(), 0);
    emit switcher->activated(switcher->findData(QString()));
    ASSERT_TRUE(waitIdle(false));
    ASSERT_TRUE(runOnce());
    EXPECT_TRUE(m_window.resultsTable()->isColumnHidden(ResultsModel::Machine)) << "one machine: no column";

    ASSERT_TRUE(connectToLabTest());
    ASSERT_TRUE(waitIdle(true));
    ASSERT_EQ(switcher->count(), 2);
    EXPECT_EQ(switcher->itemText(0), QStringLiteral("this machine"));
    EXPECT_EQ(switcher->itemText(1), QStringLiteral("lab-test"));
    EXPECT_EQ(switcher->currentIndex(), 1);
    ASSERT_TRUE(runOnce());
    ResultsModel* rows = m_window.resultsModel();
    ASSERT_EQ(rows->rowCount(), 2);
    EXPECT_EQ(rows->data(rows->index(0, ResultsModel::Machine)).toString(), QStringLiteral("this machine"));
    EXPECT_EQ(rows->data(rows->index(1, ResultsModel::Machine)).toString(), QStringLiteral("lab-test"));
    EXPECT_FALSE(m_window.resultsTable()->isColumnHidden(ResultsModel::Machine));
    EXPECT_EQ(m_window.resultsTable()->horizontalHeader()->visualIndex(ResultsModel::Machine), 0);
    const QCPGraph* curve = m_window.plots()->livePlot()->medianGraph(lastRun);
    ASSERT_NE(curve, nullptr);
    EXPECT_TRUE(curve->name().endsWith(QStringLiteral(" · lab-test"))) << curve->name().toStdString();
    grab(&m_window, "connect-two-machines.png");
    // Compare: this session's runs as one source for each machine, the server's named so.
    const auto& sources = m_window.plots()->comparePlot()->sources();
    ASSERT_GE(sources.size(), 2U);
    EXPECT_EQ(sources[0].origin, QStringLiteral("this session"));
    EXPECT_EQ(sources[0].results.size(), 1U);
    EXPECT_EQ(sources[1].origin, QStringLiteral("this session, lab-test"));
    EXPECT_EQ(sources[1].results.size(), 1U);

    // A matrix measured there: its rows are the server's too.
    {
        const int before = rows->rowCount();
        RunBudget quick;
        quick.minTimeSeconds = 0.02;
        quick.repetitions = 2;
        ASSERT_TRUE(m_window.launcher()->startMatrix("futex", BenchMode::Thread, MatrixMode::Classes, quick));
        EXPECT_TRUE(QTest::qWaitFor([&] { return !switcher->isEnabled(); }, 5000)) << "no switch while it measures";
        ASSERT_TRUE(QTest::qWaitFor([&] { return rows->rowCount() > before; }, kConnectMs));
        ASSERT_TRUE(waitIdle(true));
        EXPECT_TRUE(QTest::qWaitFor([&] { return switcher->isEnabled(); }, 5000));
        for (int r = before; r < rows->rowCount(); ++r)
            EXPECT_EQ(rows->data(rows->index(r, ResultsModel::Machine)).toString(), QStringLiteral("lab-test")) << r;
        // Compare's server source holds them: the run and the matrix's rows.
        EXPECT_EQ(m_window.plots()->comparePlot()->sources()[1].results.size(),
            static_cast<std::size_t>(rows->rowCount() - 1));
    }
    const int serverRows = rows->rowCount() - 1;

    // Back to this machine: the server is listed as not connected, and runs go here.
    emit switcher->activated(0);
    ASSERT_TRUE(waitIdle(false));
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return switcher->itemText(1) == QStringLiteral("lab-test (not connected)"); }, 5000))
        << switcher->itemText(1).toStdString();
    EXPECT_EQ(switcher->currentIndex(), 0);
    ASSERT_TRUE(runOnce());
    EXPECT_EQ(rows->data(rows->index(rows->rowCount() - 1, ResultsModel::Machine)).toString(),
        QStringLiteral("this machine"));

    // A server that cannot be reached: the window comes back to this machine, its worker again.
    m_window.store()->setMachineContext(QStringLiteral("lab-closed"), nlohmann::json::object());
    ASSERT_EQ(switcher->count(), 3);
    EXPECT_EQ(switcher->itemText(2), QStringLiteral("lab-closed (not connected)"));
    emit switcher->activated(2);
    ASSERT_TRUE(waitIdle(false));
    ASSERT_TRUE(QTest::qWaitFor([&] { return switcher->currentIndex() == 0; }, kConnectMs))
        << switcher->currentText().toStdString();
    EXPECT_TRUE(m_window.launcher()->isLive());

    // And to the server again, connected anew with the CLI it was reached with.
    emit switcher->activated(1);
    // Until its worker says hello, the server is not called connected.
    if (QTest::qWaitFor([&] { return m_window.controller()->state() == WorkerClient::State::Starting; }, 5000)) {
        QCoreApplication::processEvents();
        if (m_window.controller()->state() == WorkerClient::State::Starting) {
            EXPECT_EQ(switcher->itemText(1), QStringLiteral("lab-test (not connected)"));
        }
    }
    ASSERT_TRUE(waitIdle(true));
    EXPECT_EQ(m_window.controller()->link().destination, QStringLiteral("lab-test"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return switcher->currentText() == QStringLiteral("lab-test"); }, 5000))
        << switcher->currentText().toStdString();
    for (const QLabel* label : m_window.findChildren<QLabel*>()) // connected: no saved-map banner
        EXPECT_FALSE(label->isVisibleTo(&m_window) && label->text().contains(QStringLiteral("last saw it")))
            << label->text().toStdString();

    // The session keeps each machine's runs apart and reads back the same.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("two.json"));
    ASSERT_TRUE(m_window.fileMenu()->saveSession(path).ok());
    const Session saved = m_window.fileMenu()->session();
    EXPECT_EQ(saved.runs.size(), 2U);
    ASSERT_EQ(saved.machines.size(), 1U) << "lab-closed measured nothing";
    EXPECT_EQ(saved.machines[0].name, "lab-test");
    EXPECT_EQ(saved.machines[0].runs.size(), static_cast<std::size_t>(serverRows));
    EXPECT_FALSE(saved.machines[0].topologyXml.empty());
    EXPECT_TRUE(saved.machines[0].context.contains("host_name"));
    MainWindow second;
    second.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:2"));
    const Status opened = second.fileMenu()->loadSession(path);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ASSERT_EQ(second.resultsModel()->rowCount(), 2 + serverRows);
    int onServer = 0;
    for (int r = 0; r < second.resultsModel()->rowCount(); ++r)
        onServer += second.resultsModel()->data(second.resultsModel()->index(r, ResultsModel::Machine)).toString()
            == QStringLiteral("lab-test");
    EXPECT_EQ(onServer, serverRows);
    EXPECT_TRUE(second.store()->machineKeys().contains(QStringLiteral("lab-test")));
    // After the session's map (shown from the file, so named as such) and this machine.
    const int labTest = second.machines()->switcher()->findData(QStringLiteral("lab-test"));
    EXPECT_EQ(labTest, second.machines()->switcher()->count() - 1);
    EXPECT_EQ(second.machines()->switcher()->itemText(labTest), QStringLiteral("lab-test (not connected)"));

    // A server the session saw that cannot be reached now: its saved map stays shown behind
    // the banner, and Run offers to reconnect instead of measuring elsewhere.
    second.store()->setMachineTopologyXml(QStringLiteral("lab-closed"), saved.machines[0].topologyXml);
    second.store()->setMachineContext(QStringLiteral("lab-closed"), saved.machines[0].context);
    QComboBox* other = second.machines()->switcher();
    const int closed = other->findData(QStringLiteral("lab-closed"));
    ASSERT_GE(closed, 0);
    QSignalSpy failed(second.controller(), &WorkerClient::workerFailed);
    emit other->activated(closed);
    ASSERT_TRUE(failed.wait(kConnectMs)) << "lab-closed was reached";
    const auto bannerSays = [&](const QString& text) {
        const auto labels = second.findChildren<QLabel*>();
        return std::any_of(labels.begin(), labels.end(),
            [&](const QLabel* l) { return l->isVisibleTo(&second) && l->text().contains(text); });
    };
    ASSERT_TRUE(QTest::qWaitFor([&] { return second.launcher()->needsConnection(); }, 5000))
        << "state " << static_cast<int>(second.controller()->state());
    EXPECT_TRUE(bannerSays(QStringLiteral("Showing lab-closed as this session last saw it")));
    EXPECT_EQ(second.controller()->link().destination, QStringLiteral("lab-closed"));
    EXPECT_EQ(second.topology()->allowedPus(), m_window.topology()->allowedPus()) << "the saved map";
    EXPECT_EQ(other->currentText(), QStringLiteral("lab-closed (not connected)"));
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            return second.statusPanel()->workerText()
                == QStringLiteral("lab-closed: disconnected — the next Run offers to reconnect");
        },
        5000))
        << second.statusPanel()->workerText().toStdString();
    second.resize(1280, 800);
    second.show();
    grab(&second, "connect-saved-map.png");
    bool ran = false;
    second.launcher()->whenConnected([&] { ran = true; }); // what Run, sweeps and matrices go through
    EXPECT_FALSE(ran) << "nothing runs on an unconnected server";
    QMessageBox* question = second.machines()->reconnectQuestion();
    ASSERT_NE(question, nullptr);
    EXPECT_TRUE(question->text().contains(QStringLiteral("lab-closed is not connected")))
        << question->text().toStdString();
    question->button(QMessageBox::No)->click();
}
