// SPDX-License-Identifier: MIT
#include "sshfailure.h"

#include <QCoreApplication>

namespace ctxscope::gui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("SshFailure", text); }

bool says(const QString& text, const char* what) { return text.contains(QLatin1String(what), Qt::CaseInsensitive); }

QString checkInTerminal(const MachineLink& link)
{
    return tr("check with `ssh %1 true` in a terminal").arg(link.destination);
}

} // namespace

QString lastLine(const QString& text)
{
    const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it)
        if (!it->trimmed().isEmpty())
            return it->trimmed();
    return {};
}

QString explainRemoteExit(const MachineLink& link, int exitCode, const QString& stderrText)
{
    const QString host = link.destination;
    // Order matters: a changed host key also prints "Host key verification failed".
    if (says(stderrText, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
        return tr("The host key of %1 has changed since this account last connected, so ssh refused it (it could "
                  "be an attack): ask the server's administrator, then remove the old key with `ssh-keygen -R "
                  "HOST` and %2.")
            .arg(host, checkInTerminal(link));
    if (says(stderrText, "Host key verification failed"))
        return tr("ssh does not know the host key of %1 yet and ctxscope never accepts one unseen: connect once "
                  "with `ssh %1` in a terminal to check and accept it, then connect again.")
            .arg(host);
    if (says(stderrText, "Could not resolve hostname"))
        return tr("ssh could not find the host %1 (%2): check the name, or give it a Host entry in ~/.ssh/config.")
            .arg(host, lastLine(stderrText));
    if (says(stderrText, "Connection refused"))
        return tr("%1 refused the connection: no ssh server listens on that port; check that sshd runs there and "
                  "the port is right, then %2.")
            .arg(host, checkInTerminal(link));
    if (says(stderrText, "Permission denied"))
        return tr("%1 refused the login (%2). ctxscope runs ssh in batch mode and never asks for a password: load "
                  "your key into ssh-agent or name it with IdentityFile for this host in ~/.ssh/config, then %3.")
            .arg(host, lastLine(stderrText), checkInTerminal(link));
    if (says(stderrText, "Connection timed out") || says(stderrText, "No route to host")
        || says(stderrText, "Network is unreachable"))
        return tr("Could not reach %1 (%2): check the network and the host name.").arg(host, lastLine(stderrText));
    if (says(stderrText, "not responding") || says(stderrText, "closed by remote host")
        || says(stderrText, "Connection closed by") || says(stderrText, "Broken pipe")
        || says(stderrText, "Connection reset"))
        return tr("The connection to %1 dropped (%2). What was measured stays; reconnect to go on.")
            .arg(host, lastLine(stderrText));
    if (link.push && exitCode == 3) // the pushed bundle's script refused: another architecture, damaged, noexec
        return tr("%1: %2.").arg(host, lastLine(stderrText));
    if (exitCode == 127)
        return tr("%1 has no `%2` (the server's shell said: %3). Install the ctxscope-cli package there (`sudo "
                  "apt install ./ctxscope-cli_VERSION_amd64.deb`: no Qt, no display needed), or give the CLI's "
                  "path on the server with --remote-cli or in the Connect dialog.")
            .arg(host, link.remoteCli, lastLine(stderrText));
    if (exitCode == 255) // ssh's own failure, in words it did not print (LogLevel QUIET) or we do not know
        return tr("ssh could not reach %1 or lost the connection (ssh exited with status 255%2): %3.")
            .arg(host, lastLine(stderrText).isEmpty() ? QString() : tr(" and said: %1").arg(lastLine(stderrText)),
                checkInTerminal(link));
    return {};
}

} // namespace ctxscope::gui
