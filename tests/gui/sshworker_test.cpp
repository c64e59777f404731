// SPDX-License-Identifier: MIT
// The app's worker on a machine reached over ssh, against Debian's real sshd on 127.0.0.1
// (localsshd.h) through the system's ssh client: a run comes back as a result, and each bad
// path (unknown host key, refused login, nothing listening, no CLI on the server, another
// protocol version, a connection that stops answering) ends in its one sentence.
#include "connectdialog.h"
#include "localsshd.h"
#include "machineconnect.h"
#include "workerclient.h"

#include "ctxscope/topology.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "test_paths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <csignal>
#include <functional>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

class SshWorker : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!m_sshd.problem().isEmpty())
            GTEST_FAIL() << "the local sshd for the ssh tests: " << m_sshd.problem().toStdString();
        qputenv("CTXSCOPE_SSH_COMMAND", m_sshd.sshCommand().toUtf8());
    }
    void TearDown() override { qunsetenv("CTXSCOPE_SSH_COMMAND"); }

    // What the worker on `host` fails with when it starts.
    static QString failureOf(const QString& host, const QString& cli = QString::fromUtf8(ctxscope::test::cliPath()))
    {
        WorkerClient controller;
        controller.setLink(MachineLink { host, cli });
        QSignalSpy failed(&controller, &WorkerClient::workerFailed);
        controller.startWorker();
        if (!failed.wait(40'000))
            return QStringLiteral("(no failure within 40 s)");
        return failed.at(0).at(0).toString();
    }

    // What the app, headless, saved after `arguments` (then --save-results FILE --quit), with
    // a settings directory of the test's own (it remembers the hosts it connected to); empty,
    // with a failure, when it did not finish well.
    static QJsonObject savedByApp(const QTemporaryDir& dir, const QStringList& arguments)
    {
        const QString saved = dir.filePath(QStringLiteral("r.json"));
        QProcess app;
        app.setProcessChannelMode(QProcess::ForwardedChannels);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        app.setProcessEnvironment(environment);
        app.start(QString::fromUtf8(ctxscope::test::appPath()),
            arguments + QStringList { QStringLiteral("--save-results"), saved, QStringLiteral("--quit") });
        if (!app.waitForFinished(180'000) || app.exitCode() != 0) {
            ADD_FAILURE() << "the app did not finish well: exit code " << app.exitCode();
            return {};
        }
        QFile file(saved);
        if (!file.open(QIODevice::ReadOnly)) {
            ADD_FAILURE() << "no saved results";
            return {};
        }
        return QJsonDocument::fromJson(file.readAll()).object();
    }

    LocalSshd m_sshd;
};

} // namespace

TEST_F(SshWorker, ARunOnTheServerComesBackAsAResult)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const int cpu = live->allowedPus().front();
    WorkerClient controller;
    controller.setLink(MachineLink { QStringLiteral("lab-test"), QString::fromUtf8(ctxscope::test::cliPath()) });
    QSignalSpy ready(&controller, &WorkerClient::workerReady);
    QSignalSpy results(&controller, &WorkerClient::resultAvailable);
    QSignalSpy failed(&controller, &WorkerClient::workerFailed);
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { cpu, cpu };
    spec.iterations = 2000;
    spec.repetitions = 2;
    ASSERT_TRUE(controller.start(spec).has_value());
    ASSERT_TRUE(results.wait(90'000) || !results.isEmpty())
        << (failed.isEmpty() ? "no result" : failed.at(0).at(0).toString().toStdString());
    ASSERT_EQ(ready.count(), 1);
    const auto result = results.at(0).at(1).value<std::shared_ptr<const RunResult>>();
    EXPECT_EQ(result->bench, "futex");
    EXPECT_EQ(result->placement.cpus, (std::vector<int> { cpu, cpu }));
    // The worker's hello came over ssh: the machine it describes is the server's.
    EXPECT_TRUE(controller.workerContext().contains("host_name")) << controller.workerContext().dump();
    auto remote = Topology::loadXmlBuffer(controller.workerTopologyXml());
    ASSERT_TRUE(remote.ok()) << remote.error().message;
    EXPECT_EQ(remote->allowedPus(), live->allowedPus());
    controller.stopWorker();
    EXPECT_TRUE(failed.isEmpty());
}

TEST_F(SshWorker, AnUnknownHostKeyIsNeverAcceptedAndTheMessageSaysHowToCheckIt)
{
    const QString why = failureOf(QStringLiteral("lab-newkey"));
    EXPECT_TRUE(why.contains(QStringLiteral("connect once with `ssh lab-newkey` in a terminal"))) << why.toStdString();
}

TEST_F(SshWorker, ARefusedLoginSaysThatNoPasswordIsAsked)
{
    const QString why = failureOf(QStringLiteral("lab-wrongkey"));
    EXPECT_TRUE(why.contains(QStringLiteral("lab-wrongkey refused the login"))) << why.toStdString();
}

TEST_F(SshWorker, NothingListeningIsARefusedConnection)
{
    const QString why = failureOf(QStringLiteral("lab-closed"));
    EXPECT_TRUE(why.contains(QStringLiteral("lab-closed refused the connection"))) << why.toStdString();
}

TEST_F(SshWorker, NoCliOnTheServerSaysHowToInstallIt)
{
    const QString why = failureOf(QStringLiteral("lab-test"), QStringLiteral("/nonexistent/ctxscope-cli"));
    EXPECT_TRUE(why.contains(QStringLiteral("lab-test has no `/nonexistent/ctxscope-cli`"))) << why.toStdString();
    EXPECT_TRUE(why.contains(QStringLiteral("Install the ctxscope-cli package there")));
}

TEST_F(SshWorker, AnotherProtocolVersionNamesTheServerAndBothVersions)
{
    // A real worker whose hello claims protocol 999.
    const QString script = QDir::temp().filePath(QStringLiteral("ctxscope-other-protocol-%1.sh")).arg(::getpid());
    QFile file(script);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("#!/bin/sh\n") + ctxscope::test::cliPath()
        + QByteArray(" worker | sed -u 's/\"protocol\":[0-9]*/\"protocol\":999/'\n"));
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const QString why = failureOf(QStringLiteral("lab-test"), script);
    QFile::remove(script);
    EXPECT_TRUE(why.contains(QStringLiteral("The worker on lab-test speaks protocol version 999")))
        << why.toStdString();
    EXPECT_TRUE(why.contains(QStringLiteral("this app speaks %1").arg(protocol::kVersion)));
}

TEST_F(SshWorker, AConnectionThatStopsAnsweringIsReportedWithinTheKeepAliveTime)
{
    WorkerClient controller;
    controller.setLink(MachineLink { QStringLiteral("lab-test"), QString::fromUtf8(ctxscope::test::cliPath()) });
    QSignalSpy ready(&controller, &WorkerClient::workerReady);
    QSignalSpy failed(&controller, &WorkerClient::workerFailed);
    controller.startWorker();
    ASSERT_TRUE(ready.wait(40'000)) << (failed.isEmpty() ? "" : failed.at(0).at(0).toString().toStdString());
    // The server freezes (as a machine that lost its network would): its sshd stops answering.
    const std::vector<int> sessions = m_sshd.sessionPids();
    ASSERT_FALSE(sessions.empty());
    for (int pid : sessions)
        ::kill(pid, SIGSTOP);
    QElapsedTimer noticed;
    noticed.start();
    const bool reported = failed.wait((kServerAliveIntervalS * kServerAliveCountMax + 15) * 1000);
    for (int pid : sessions)
        ::kill(pid, SIGKILL);
    ASSERT_TRUE(reported);
    const QString why = failed.at(0).at(0).toString();
    EXPECT_TRUE(why.contains(QStringLiteral("The connection to lab-test dropped"))) << why.toStdString();
    // ssh gives up after ServerAliveCountMax unanswered probes, ServerAliveInterval apart
    // (plus one interval before the first probe): the bound the issue names, with slack.
    EXPECT_LE(noticed.elapsed(), (kServerAliveIntervalS * (kServerAliveCountMax + 1) + 5) * 1000);
}

namespace {

// A copy of this build's CLI without its debug information (hundreds of MB under ASan) in
// `dir`: what the tests push, as the app pushes the portable bundle.
QString strippedCli(const QTemporaryDir& dir)
{
    const QString copy = dir.filePath(QStringLiteral("ctxscope-cli-test-linux-x86_64"));
    if (QProcess::execute(QStringLiteral("strip"),
            { QStringLiteral("--strip-debug"), QStringLiteral("-o"), copy,
                QString::fromUtf8(ctxscope::test::cliPath()) })
        != 0)
        return {};
    return copy;
}

// The push folders on the loopback host (this machine's temporary folder).
QStringList pushFolders()
{
    return QDir(qEnvironmentVariable("TMPDIR", QStringLiteral("/tmp")))
        .entryList({ QStringLiteral("ctxscope-push.*") }, QDir::Dirs | QDir::NoDotAndDotDot);
}

bool waitFor(const std::function<bool()>& done, int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < ms)
        QTest::qWait(50);
    return done();
}

} // namespace

TEST_F(SshWorker, AServerWithoutTheCliRunsTheCopiedBundleForTheSessionAndKeepsNothing)
{
    QTemporaryDir dir;
    const QString copy = strippedCli(dir);
    ASSERT_FALSE(copy.isEmpty()) << "strip failed";
    const QStringList before = pushFolders();
    WorkerClient controller;
    const MachineLink missing { QStringLiteral("lab-test"), QStringLiteral("/nonexistent/ctxscope-cli") };
    ASSERT_FALSE(connectMachine(controller, missing, 40'000).ok());
    EXPECT_TRUE(controller.remoteCliMissing()) << "the shell's 127 is told apart from other failures";

    auto bundle = ssh::readPushBundle(copy.toStdString());
    ASSERT_TRUE(bundle) << bundle.error().message;
    MachineLink pushed = missing;
    pushed.push = std::make_shared<const ssh::PushBundle>(std::move(*bundle));
    auto topology = connectMachine(controller, pushed, 60'000);
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    EXPECT_FALSE(controller.remoteCliMissing());
    QStringList during = pushFolders();
    for (const QString& old : before)
        during.removeAll(old);
    ASSERT_EQ(during.size(), 1) << "the worker runs from one mktemp -d folder on the host";

    // A run on the pushed worker comes back as a result.
    QSignalSpy results(&controller, &WorkerClient::resultAvailable);
    BenchSpec spec;
    spec.bench = "syscall";
    spec.cpus = { topology->allowedPus().front() };
    spec.iterations = 2000;
    spec.repetitions = 2;
    ASSERT_TRUE(controller.start(spec).has_value());
    ASSERT_TRUE(results.wait(60'000) || !results.isEmpty());

    controller.stopWorker();
    EXPECT_TRUE(waitFor([&] { return !pushFolders().contains(during.front()); }, 10'000))
        << "the copy is removed when the session ends";

    // A connection that drops (ssh killed): the host's side sees its stdin close and cleans up.
    ASSERT_TRUE(connectMachine(controller, pushed, 60'000).ok());
    QStringList again = pushFolders();
    for (const QString& old : before)
        again.removeAll(old);
    ASSERT_EQ(again.size(), 1);
    QProcess* ssh = nullptr;
    for (QProcess* p : controller.findChildren<QProcess*>())
        if (p->state() == QProcess::Running)
            ssh = p;
    ASSERT_NE(ssh, nullptr);
    ASSERT_EQ(::kill(static_cast<pid_t>(ssh->processId()), SIGKILL), 0);
    EXPECT_TRUE(waitFor([&] { return !pushFolders().contains(again.front()); }, 15'000))
        << "left on the host after the connection dropped: " << again.front().toStdString();
    controller.stopWorker();
}

TEST_F(SshWorker, TheConnectDialogOffersToCopyTheBundleOnlyWhenTheServerHasNoCli)
{
    QTemporaryDir dir;
    const QString copy = strippedCli(dir);
    ASSERT_FALSE(copy.isEmpty());
    qputenv("CTXSCOPE_BUNDLE", copy.toUtf8());
    WorkerClient controller;
    ConnectDialog dialog(controller, {}, {}, QStringLiteral("/nonexistent/ctxscope-cli"));
    QSignalSpy connected(&dialog, &ConnectDialog::connected);

    dialog.hostField()->setText(QStringLiteral("lab-closed"));
    dialog.connectToHost();
    ASSERT_TRUE(waitFor([&] { return !dialog.isConnecting(); }, 40'000));
    EXPECT_FALSE(dialog.pushButton()->isVisibleTo(&dialog)) << "a refused connection is not a missing CLI";

    dialog.hostField()->setText(QStringLiteral("lab-test"));
    dialog.connectToHost();
    ASSERT_TRUE(waitFor([&] { return !dialog.isConnecting(); }, 40'000));
    EXPECT_TRUE(dialog.pushButton()->isVisibleTo(&dialog)) << dialog.message().toStdString();
    EXPECT_TRUE(dialog.message().contains(QStringLiteral("Copy this machine's portable ctxscope-cli")))
        << dialog.message().toStdString();

    dialog.pushButton()->click();
    ASSERT_TRUE(connected.wait(60'000) || !connected.isEmpty()) << dialog.message().toStdString();
    EXPECT_TRUE(controller.link().push != nullptr) << "the session runs the copied bundle";
    controller.stopWorker();
    qunsetenv("CTXSCOPE_BUNDLE");
}

TEST_F(SshWorker, ConnectingWaitsForTheHelloAndGivesTheServersTopologyOrTheSentence)
{
    WorkerClient controller;
    auto topology = connectMachine(
        controller, MachineLink { QStringLiteral("lab-test"), QString::fromUtf8(ctxscope::test::cliPath()) }, 40'000);
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    EXPECT_EQ(controller.state(), WorkerClient::State::Idle);
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    EXPECT_EQ(topology->pus().size(), live->pus().size());

    auto refused = connectMachine(
        controller, MachineLink { QStringLiteral("lab-closed"), QString::fromUtf8(ctxscope::test::cliPath()) }, 40'000);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("lab-closed refused the connection"), std::string::npos)
        << refused.error().message;
    auto bad = connectMachine(controller, MachineLink { QStringLiteral("-oProxyCommand=x"), QString() }, 1000);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("starts with '-'"), std::string::npos) << bad.error().message;
}

TEST_F(SshWorker, TheAppMeasuresTheLastRemoteHeadlesslyAndTheSavedResultsNameIt)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const QString cpu = QString::number(live->allowedPus().front());
    QTemporaryDir dir;
    const QJsonObject results = savedByApp(dir,
        { QStringLiteral("--remote"), QStringLiteral("lab-closed"), QStringLiteral("--remote"),
            QStringLiteral("lab-test"), QStringLiteral("--remote-cli"), QString::fromUtf8(ctxscope::test::cliPath()),
            QStringLiteral("--run"), QStringLiteral("futex"), QStringLiteral("--cpus"), cpu + u',' + cpu });
    EXPECT_EQ(results.value(QStringLiteral("context")).toObject().value(QStringLiteral("machine")).toString(),
        QStringLiteral("lab-test"));
    EXPECT_FALSE(
        results.value(QStringLiteral("context")).toObject().value(QStringLiteral("host_name")).toString().isEmpty());
    EXPECT_EQ(results.value(QStringLiteral("benchmarks")).toArray().size(), 1);
}

// A traced run on a server: its events come over ssh before its result, in order, and the
// result's trace block holds the hand-over's segments (the server is this machine: the test
// traces only where this machine may).
TEST_F(SshWorker, ATracedRunOnTheServerSendsItsEventsAndSegments)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const std::vector<int> pus = live->allowedPus();
    WorkerClient controller;
    controller.setLink(MachineLink { QStringLiteral("lab-test"), QString::fromUtf8(ctxscope::test::cliPath()) });
    QSignalSpy parts(&controller, &WorkerClient::traceEventsAvailable);
    QSignalSpy results(&controller, &WorkerClient::resultAvailable);
    QSignalSpy failed(&controller, &WorkerClient::runFailed);
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { pus.front(), pus.back() };
    spec.iterations = 2000;
    spec.repetitions = 1;
    ASSERT_TRUE(controller.start(spec, protocol::RunTrace { 2000, 0, 50'000 }).has_value());
    ASSERT_TRUE(results.wait(120'000) || !results.isEmpty())
        << (failed.isEmpty() ? "no result" : failed.at(0).at(1).toString().toStdString());
    EXPECT_TRUE(controller.tracingRefusal().isEmpty());
    const auto result = results.at(0).at(1).value<std::shared_ptr<const RunResult>>();
    ASSERT_TRUE(result->trace.has_value());
    EXPECT_FALSE(result->trace->segments.empty());
    ASSERT_FALSE(parts.isEmpty());
    std::uint64_t next = 0;
    for (const QList<QVariant>& part : parts) {
        const auto events = part.at(1).value<std::shared_ptr<const protocol::TraceEventsEvent>>();
        EXPECT_EQ(events->first, next); // in order, none missing
        next += events->events.size();
        EXPECT_LE(events->window, 50'000U);
    }
    EXPECT_GT(next, 0U);
    controller.stopWorker();
}

// The app, headless, traces a run on the server as it does here: --trace over --remote, and
// the saved results keep the run's trace block.
TEST_F(SshWorker, TheAppTracesARunOnTheServerAndSavesItsSegments)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const std::vector<int> pus = live->allowedPus();
    QTemporaryDir dir;
    const QJsonObject results = savedByApp(dir,
        { QStringLiteral("--remote"), QStringLiteral("lab-test"), QStringLiteral("--remote-cli"),
            QString::fromUtf8(ctxscope::test::cliPath()), QStringLiteral("--run"), QStringLiteral("futex"),
            QStringLiteral("--cpus"), QString::number(pus.front()) + u',' + QString::number(pus.back()),
            QStringLiteral("--trace"), QStringLiteral("--view"), QStringLiteral("timeline") });
    const QJsonArray runs = results.value(QStringLiteral("benchmarks")).toArray();
    ASSERT_EQ(runs.size(), 1);
    const QJsonObject trace = runs[0].toObject().value(QStringLiteral("trace")).toObject();
    EXPECT_FALSE(trace.value(QStringLiteral("segments")).toArray().isEmpty()) << "no trace block";
}

// A lesson on a server is planned from the map its worker's hello gave, and its runs are
// measured there: each is a row of that machine.
TEST_F(SshWorker, ALessonRunsOnTheServerAndItsRunsAreThatMachines)
{
    QTemporaryDir dir;
    const QJsonObject results = savedByApp(dir,
        { QStringLiteral("--remote"), QStringLiteral("lab-test"), QStringLiteral("--remote-cli"),
            QString::fromUtf8(ctxscope::test::cliPath()), QStringLiteral("--lesson"), QStringLiteral("mode-switch") });
    EXPECT_EQ(results.value(QStringLiteral("context")).toObject().value(QStringLiteral("machine")).toString(),
        QStringLiteral("lab-test"));
    QStringList benches;
    for (const QJsonValue& run : results.value(QStringLiteral("benchmarks")).toArray())
        benches << run.toObject().value(QStringLiteral("bench")).toString();
    EXPECT_EQ(benches, (QStringList { QStringLiteral("syscall"), QStringLiteral("vdso"), QStringLiteral("futex") }));
}

TEST_F(SshWorker, TheAppSaysWhyItCannotReachTheRemoteAndExits)
{
    QProcess app;
    app.start(QString::fromUtf8(ctxscope::test::appPath()),
        { QStringLiteral("--remote"), QStringLiteral("lab-newkey"), QStringLiteral("--quit") });
    ASSERT_TRUE(app.waitForFinished(120'000));
    EXPECT_EQ(app.exitCode(), 2);
    const QString said = QString::fromUtf8(app.readAllStandardError());
    EXPECT_TRUE(said.contains(QStringLiteral("ctxscope: --remote: ssh does not know the host key of lab-newkey")))
        << said.toStdString();
}
