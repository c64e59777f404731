// SPDX-License-Identifier: MIT
#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <vector>

// Debian's real sshd on 127.0.0.1 (a free port, its own keys, config and known_hosts in a
// temporary directory) for the tests of machines reached over ssh: nothing is mocked, the
// app runs the system's ssh client against it through $CTXSCOPE_SSH_COMMAND. It stops with
// the object. The client config names these hosts:
//   lab-test        the server, key accepted, host key known
//   lab-newkey      the server, host key not yet known
//   lab-wrongkey    the server, a key it does not accept
//   lab-closed      127.0.0.1 on a port nobody listens on
class LocalSshd {
public:
    LocalSshd();
    ~LocalSshd();
    LocalSshd(const LocalSshd&) = delete;
    LocalSshd& operator=(const LocalSshd&) = delete;

    // Empty when it runs; else why not (no sshd, not root, ...), for GTEST_SKIP/FAIL.
    const QString& problem() const { return m_problem; }
    // "ssh -F <config>": the value for CTXSCOPE_SSH_COMMAND.
    QString sshCommand() const;
    // The processes sshd started for connections (not the listener itself).
    std::vector<int> sessionPids() const;

private:
    bool makeKey(const QString& name);
    bool writeConfigs(int port, int closedPort);
    bool waitUntilListening(int port);

    QTemporaryDir m_dir;
    QProcess m_sshd;
    QString m_problem;
};
