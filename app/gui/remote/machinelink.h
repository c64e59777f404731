// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bundle_push.h"
#include "ctxscope/ssh_command.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <utility>

namespace ctxscope::gui {

// How the app reaches a machine's worker: this machine (ctxscope-cli run directly) or a
// server through the system's OpenSSH client. No ssh library and no transport of our own:
// ProxyJump, ControlMaster, agents and keys work as the user configured them for `ssh`.
struct MachineLink {
    MachineLink() = default;
    MachineLink(QString destination_, QString remoteCli_ = QStringLiteral("ctxscope-cli"),
        std::shared_ptr<const ssh::PushBundle> push_ = {})
        : destination(std::move(destination_))
        , remoteCli(std::move(remoteCli_))
        , push(std::move(push_))
    {
    }

    // The host as the user gave it, the way `ssh` takes it: an alias of ~/.ssh/config,
    // user@host or ssh://user@host:port. Empty for this machine.
    QString destination;
    // The command that starts the CLI on the server (`--remote-cli`): a name on the
    // server's PATH or a path; passed to the remote shell as one quoted word.
    QString remoteCli = QStringLiteral("ctxscope-cli");
    // A portable bundle copied to the server for this session and run from a private temporary
    // folder there instead of remoteCli (a server with no ctxscope-cli), removed when the worker
    // ends or the connection drops (ssh::pushScript); none: run remoteCli.
    std::shared_ptr<const ssh::PushBundle> push;

    bool isRemote() const { return !destination.isEmpty(); }
    // What the app calls the machine: the destination, or "this machine".
    QString displayName() const;
};

// A program and its arguments, as QProcess::start takes them.
struct WorkerCommand {
    QString program;
    QStringList arguments;
};

// ssh's time-outs, for the sentences that name them (ctxscope/ssh_command.h holds the policy).
using ssh::kConnectTimeoutS;
using ssh::kServerAliveCountMax;
using ssh::kServerAliveIntervalS;

// Why a destination cannot be one (empty, starts with '-', has spaces or control
// characters), as a sentence; nothing when it can.
std::optional<QString> destinationProblem(const QString& destination);

// The command that runs the worker over ssh (ssh::sshArguments): ssh ... -- HOST 'cli' worker,
// or with a bundle to push, ssh ... -- HOST sh -c SCRIPT (the caller writes the bundle first).
// `sshCommand` is $CTXSCOPE_SSH_COMMAND (like git's GIT_SSH_COMMAND: split by /bin/sh, so
// quotes and variables work as in a shell); empty means plain `ssh` from PATH.
WorkerCommand sshWorkerCommand(const MachineLink& link, const QString& sshCommand);

// The portable bundle this machine can copy to a server for a session, when there is one:
// $CTXSCOPE_BUNDLE, else the newest build/bundle/ctxscope-cli-*-linux-ARCH of the build tree the
// app runs from (./packaging/dev.sh bundle makes it). Nothing when neither is there.
std::optional<QString> findPushBundle();

// `word` quoted for a POSIX shell when it needs it (ssh::shellQuote).
QString shellQuote(const QString& word);

// The client configuration file ssh reads with `sshCommand` ($CTXSCOPE_SSH_COMMAND): the
// one its `-F FILE` names, else ~/.ssh/config of the account's home directory (the passwd
// entry's, as OpenSSH takes it, not $HOME).
QString sshConfigFile(const QString& sshCommand);

// The Host aliases of an ssh_config text that name one host (no wildcards, no negation),
// in file order, without duplicates: what the Connect dialog offers.
QStringList sshConfigHostAliases(const QString& configText);

} // namespace ctxscope::gui
