// SPDX-License-Identifier: MIT
// The ssh command the app runs for a remote machine, and the sentences it makes of what
// ssh says when it fails. The messages quoted here are OpenSSH 9.2's (Debian bookworm), the
// same the real-sshd tests (sshworker_test.cpp) provoke.
#include "machinelink.h"
#include "sshfailure.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QThread>

#include <gtest/gtest.h>

using namespace ctxscope::gui;

TEST(MachineLink, RunsSshInBatchModeWithKeepAlivesAndTheQuotedCli)
{
    const MachineLink link { QStringLiteral("lab-3"), QStringLiteral("/opt/ctx scope/ctxscope-cli") };
    const WorkerCommand command = sshWorkerCommand(link, {});
    EXPECT_EQ(command.program, QStringLiteral("ssh"));
    const QStringList expected { QStringLiteral("-T"), QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
        QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=3"), QStringLiteral("-o"),
        QStringLiteral("ServerAliveCountMax=4"), QStringLiteral("-o"), QStringLiteral("ConnectTimeout=15"),
        QStringLiteral("--"), QStringLiteral("lab-3"), QStringLiteral("'/opt/ctx scope/ctxscope-cli' worker") };
    EXPECT_EQ(command.arguments, expected);
    EXPECT_FALSE(command.arguments.contains(QStringLiteral("StrictHostKeyChecking=no")));
}

TEST(MachineLink, TheSshCommandVariableIsSplitByTheShellAsGitDoes)
{
    const MachineLink link { QStringLiteral("user@host"), QStringLiteral("ctxscope-cli") };
    const WorkerCommand command = sshWorkerCommand(link, QStringLiteral("echo -F '/a b/config'"));
    // Run it: the shell splits the variable, our arguments arrive one by one after it.
    QProcess shell;
    shell.start(command.program, command.arguments);
    ASSERT_TRUE(shell.waitForFinished(10'000));
    EXPECT_EQ(QString::fromUtf8(shell.readAllStandardOutput()).trimmed(),
        QStringLiteral("-F /a b/config -T -o BatchMode=yes -o ServerAliveInterval=3 -o ServerAliveCountMax=4 -o "
                       "ConnectTimeout=15 -- user@host ctxscope-cli worker"));
}

// What the app kills when a connection must go (Cancel while connecting, a stuck worker) must
// be the ssh client itself: a killed shell would leave ssh connected and the server's worker
// running (SshDrop found that, with dash as /bin/sh).
TEST(MachineLink, TheProcessStartedForTheSshCommandIsTheCommandNotAShell)
{
    const WorkerCommand command = sshWorkerCommand(
        MachineLink { QStringLiteral("h"), QStringLiteral("cli") }, QStringLiteral("/bin/sh -c 'exec sleep 30'"));
    QProcess process;
    process.start(command.program, command.arguments);
    ASSERT_TRUE(process.waitForStarted());
    QByteArray comm;
    // Both execs take a moment: wait for the name to become sleep's (it stays "sh" without the fix).
    for (QDeadlineTimer deadline(10'000); !deadline.hasExpired() && comm != "sleep"; QThread::msleep(10)) {
        QFile file(QStringLiteral("/proc/%1/comm").arg(process.processId()));
        if (file.open(QIODevice::ReadOnly))
            comm = file.readAll().trimmed();
    }
    EXPECT_EQ(comm, QByteArray("sleep"));
    process.kill();
    process.waitForFinished();
}

TEST(MachineLink, ShellQuotingLeavesPlainWordsAndQuotesTheRest)
{
    EXPECT_EQ(shellQuote(QStringLiteral("ctxscope-cli")), QStringLiteral("ctxscope-cli"));
    EXPECT_EQ(shellQuote(QStringLiteral("/usr/local/bin/ctxscope-cli")), QStringLiteral("/usr/local/bin/ctxscope-cli"));
    EXPECT_EQ(shellQuote(QStringLiteral("a b")), QStringLiteral("'a b'"));
    EXPECT_EQ(shellQuote(QStringLiteral("it's;rm")), QStringLiteral("'it'\\''s;rm'"));
    EXPECT_EQ(shellQuote(QStringLiteral("$(reboot)")), QStringLiteral("'$(reboot)'"));
}

TEST(MachineLink, ADestinationIsOneHostAsSshTakesIt)
{
    EXPECT_FALSE(destinationProblem(QStringLiteral("lab-3")));
    EXPECT_FALSE(destinationProblem(QStringLiteral("me@10.0.0.7")));
    EXPECT_FALSE(destinationProblem(QStringLiteral("ssh://me@lab-3:2222")));
    EXPECT_TRUE(destinationProblem(QString()));
    EXPECT_TRUE(destinationProblem(QStringLiteral("  ")));
    EXPECT_TRUE(destinationProblem(QStringLiteral("-oProxyCommand=sh")));
    EXPECT_TRUE(destinationProblem(QStringLiteral("lab-3 rm")));
    EXPECT_TRUE(destinationProblem(QStringLiteral("lab\n3")));
}

TEST(MachineLink, TheDialogOffersConfigAliasesWithoutPatterns)
{
    const QString config = QStringLiteral("# lab machines\n"
                                          "Host lab-1 lab-2  # two of them\n"
                                          "    HostName 10.0.0.1\n"
                                          "Host *.example.org !bad lab-?\n"
                                          "host=gpu-box\n"
                                          "  Host \"quoted\" lab-1\n"
                                          "Match host foo\n"
                                          "HostName not-an-alias\n");
    EXPECT_EQ(sshConfigHostAliases(config),
        (QStringList {
            QStringLiteral("lab-1"), QStringLiteral("lab-2"), QStringLiteral("gpu-box"), QStringLiteral("quoted") }));
}

TEST(MachineLink, TheAliasesComeFromTheConfigFileSshWillRead)
{
    EXPECT_EQ(sshConfigFile(QStringLiteral("ssh -F '/tmp/a b/config' -v")), QStringLiteral("/tmp/a b/config"));
    EXPECT_EQ(sshConfigFile(QStringLiteral("ssh -F/tmp/cfg")), QStringLiteral("/tmp/cfg"));
    EXPECT_TRUE(sshConfigFile(QString()).endsWith(QStringLiteral("/.ssh/config")));
    EXPECT_TRUE(sshConfigFile(QStringLiteral("ssh -v")).endsWith(QStringLiteral("/.ssh/config")));
}

namespace {

QString explain(int code, const char* stderrText, const char* cli = "ctxscope-cli")
{
    return explainRemoteExit(
        MachineLink { QStringLiteral("lab-3"), QString::fromLatin1(cli) }, code, QString::fromLatin1(stderrText));
}

} // namespace

TEST(SshFailure, EachFailureIsOneSentenceNamingTheHostAndWhatToDo)
{
    const QString unknownHost = explain(255, "ssh: Could not resolve hostname lab-3: Name or service not known\r\n");
    EXPECT_TRUE(unknownHost.contains(QStringLiteral("could not find the host lab-3"))) << unknownHost.toStdString();
    EXPECT_TRUE(unknownHost.contains(QStringLiteral("~/.ssh/config")));

    const QString refused = explain(255, "ssh: connect to host 10.0.0.1 port 22: Connection refused\n");
    EXPECT_TRUE(refused.contains(QStringLiteral("lab-3 refused the connection"))) << refused.toStdString();

    const QString denied = explain(255, "me@10.0.0.1: Permission denied (publickey).\n");
    EXPECT_TRUE(denied.contains(QStringLiteral("refused the login"))) << denied.toStdString();
    EXPECT_TRUE(denied.contains(QStringLiteral("never asks for a password")));

    const QString newKey = explain(255, "Host key verification failed.\n");
    EXPECT_TRUE(newKey.contains(QStringLiteral("connect once with `ssh lab-3` in a terminal"))) << newKey.toStdString();

    const QString changed = explain(255,
        "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
        "Host key for [127.0.0.1]:22299 has changed and you have requested strict checking.\n"
        "Host key verification failed.\n");
    EXPECT_TRUE(changed.contains(QStringLiteral("has changed"))) << changed.toStdString();
    EXPECT_TRUE(changed.contains(QStringLiteral("ssh-keygen -R")));

    const QString timeout = explain(255, "Timeout, server lab-3 not responding.\n");
    EXPECT_TRUE(timeout.contains(QStringLiteral("dropped"))) << timeout.toStdString();

    const QString missing = explain(127, "bash: line 1: ctxscope-cli: command not found\n");
    EXPECT_TRUE(missing.contains(QStringLiteral("lab-3 has no `ctxscope-cli`"))) << missing.toStdString();
    EXPECT_TRUE(missing.contains(QStringLiteral("--remote-cli")));

    const QString silent = explain(255, "");
    EXPECT_TRUE(silent.contains(QStringLiteral("ssh could not reach lab-3 or lost the connection")))
        << silent.toStdString();
    EXPECT_TRUE(explain(1, "something else\n").isEmpty());
    EXPECT_EQ(lastLine(QStringLiteral("a\n b \n\n")), QStringLiteral("b"));
}
