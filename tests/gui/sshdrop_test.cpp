// SPDX-License-Identifier: MIT
// A connection that drops mid-run, through Debian's real sshd on 127.0.0.1 (localsshd.h):
// the app's ssh client is killed while the server's worker measures in process mode, and
// every ctxscope process on the server (the worker and the benchmark processes it forked)
// is gone within 2 s, without anyone on the server being told. The server runs the worker
// through a wrapper script (as `--remote-cli` may name one) whose shell stays its parent, so
// the worker's death signal from its parent (PR_SET_PDEATHSIG) cannot be what ends it: the
// worker itself must notice that its input ended and its output is gone.
#include "localsshd.h"
#include "workerclient.h"

#include "ctxscope/runner.h"
#include "ctxscope/topology.h"
#include "test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>

#include <gtest/gtest.h>

#include <csignal>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

QByteArray procField(int pid, const char* file)
{
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid).arg(QString::fromLatin1(file)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Running (a zombie has ended: it only waits for its parent to read its status).
bool running(int pid)
{
    const QByteArray stat = procField(pid, "stat");
    const qsizetype close = stat.lastIndexOf(')');
    return close >= 0 && stat.size() > close + 2 && stat.at(close + 2) != 'Z';
}

// The ctxscope processes among sshd's descendants: the worker and its benchmark children.
std::vector<int> serverCtxscopeProcesses(const LocalSshd& sshd)
{
    std::vector<int> found;
    for (int pid : sshd.sessionPids())
        if (procField(pid, "comm").trimmed() == "ctxscope-cli" && running(pid))
            found.push_back(pid);
    return found;
}

} // namespace

TEST(SshDrop, KillingTheSshClientMidRunLeavesNoCtxscopeProcessOnTheServer)
{
    LocalSshd sshd;
    if (!sshd.problem().isEmpty())
        GTEST_FAIL() << "the local sshd for the ssh tests: " << sshd.problem().toStdString();
    qputenv("CTXSCOPE_SSH_COMMAND", sshd.sshCommand().toUtf8());
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const int cpu = live->allowedPus().front();

    QTemporaryDir dir;
    const QString wrapper = dir.filePath(QStringLiteral("ctxscope-cli-wrapper"));
    QFile script(wrapper);
    ASSERT_TRUE(script.open(QIODevice::WriteOnly));
    script.write(QByteArray("#!/bin/sh\n") + ctxscope::test::cliPath() + QByteArray(" \"$@\"\nexit $?\n"));
    script.close();
    script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);

    WorkerClient controller;
    controller.setLink(MachineLink { QStringLiteral("lab-test"), wrapper });
    QSignalSpy progress(&controller, &WorkerClient::progress);
    QSignalSpy failed(&controller, &WorkerClient::workerFailed);
    BenchSpec spec;
    spec.bench = "futex";
    spec.mode = BenchMode::Process;
    spec.cpus = { cpu, cpu };
    spec.iterations = kMaxIterations; // far longer than the test
    spec.repetitions = 1;
    ASSERT_TRUE(controller.start(spec).has_value());
    QElapsedTimer waited;
    waited.start();
    bool measuring = false;
    while (!measuring && waited.elapsed() < 90'000 && failed.isEmpty()) {
        progress.wait(1000);
        for (const auto& args : progress)
            measuring = measuring || args.at(1).toString() == QStringLiteral("measuring");
    }
    qunsetenv("CTXSCOPE_SSH_COMMAND");
    ASSERT_TRUE(measuring) << (failed.isEmpty() ? "no progress" : failed.at(0).at(0).toString().toStdString());

    // On the server: the worker (its pid came in its hello) and its two benchmark processes.
    // Recorded now: once sshd's session ends they are no longer its descendants.
    const std::vector<int> server = serverCtxscopeProcesses(sshd);
    ASSERT_GE(server.size(), 3U);
    EXPECT_NE(std::find(server.begin(), server.end(), static_cast<int>(controller.workerPid())), server.end());
    // The app's side: the ssh client it started. Killed as a crash or a lost network would.
    QProcess* ssh = nullptr;
    for (QProcess* p : controller.findChildren<QProcess*>())
        if (p->state() == QProcess::Running)
            ssh = p;
    ASSERT_NE(ssh, nullptr);
    const auto sshPid = static_cast<pid_t>(ssh->processId());
    // The ssh client itself, not a shell around it (the CTXSCOPE_SSH_COMMAND shell execs it).
    ASSERT_EQ(procField(sshPid, "comm").trimmed(), QByteArray("ssh"));
    ASSERT_EQ(::kill(sshPid, SIGKILL), 0);
    QElapsedTimer gone;
    gone.start();
    std::vector<int> left = server;
    while (!left.empty() && gone.elapsed() < 10'000) {
        QThread::msleep(5);
        std::erase_if(left, [](int pid) { return !running(pid); });
    }
    const qint64 ms = gone.elapsed();
    ASSERT_TRUE(left.empty()) << left.size() << " ctxscope processes still run on the server 10 s later";
    std::printf("ssh client killed: the server's worker and %zu benchmark processes gone in %lld ms\n",
        server.size() - 1, static_cast<long long>(ms));
    // The target is 2 s (the figure above goes to docs/reliability.md); the assert leaves room for a
    // loaded machine under ASan and fails only on a worker that waits for something.
    EXPECT_LE(ms, 5000);
}
