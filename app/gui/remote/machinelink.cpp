// SPDX-License-Identifier: MIT
#include "machinelink.h"

#include "ctxscope/ssh_command.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>

#include <pwd.h>
#include <unistd.h>

namespace ctxscope::gui {

QString MachineLink::displayName() const
{
    return isRemote() ? destination : QCoreApplication::translate("MachineLink", "this machine");
}

std::optional<QString> destinationProblem(const QString& destination)
{
    auto tr = [](const char* text) { return QCoreApplication::translate("MachineLink", text); };
    const auto problem = ssh::hostProblem(destination.toStdString());
    if (!problem)
        return std::nullopt;
    switch (*problem) {
    case ssh::HostProblem::Empty:
        return tr("Give a host: an alias of ~/.ssh/config, user@host or ssh://user@host:port.");
    case ssh::HostProblem::LooksLikeOption:
        return tr("'%1' starts with '-', which ssh would read as an option; give a host name.").arg(destination);
    case ssh::HostProblem::BlankOrControl:
        break;
    }
    return tr("'%1' contains a space or a control character; give one host, as ssh takes it.").arg(destination);
}

QString shellQuote(const QString& word) { return QString::fromStdString(ssh::shellQuote(word.toStdString())); }

WorkerCommand sshWorkerCommand(const MachineLink& link, const QString& sshCommand)
{
    const std::string remote = link.push
        ? "sh -c " + ssh::shellQuote(ssh::pushScript(*link.push, "worker", ssh::PushedStdin::Passed))
        : ssh::shellQuote(link.remoteCli.toStdString()) + " worker";
    const std::vector<std::string> words
        = ssh::sshArguments(link.destination.toStdString(), remote, sshCommand.toStdString());
    WorkerCommand command { QString::fromStdString(words.front()), {} };
    for (auto word = words.begin() + 1; word != words.end(); ++word)
        command.arguments.append(QString::fromStdString(*word));
    return command;
}

std::optional<QString> findPushBundle()
{
    if (const QString named = qEnvironmentVariable("CTXSCOPE_BUNDLE"); !named.isEmpty())
        return QFileInfo(named).isFile() ? std::optional<QString>(named) : std::nullopt;
    // build/PRESET/app/gui/ctxscope: build/bundle is three folders up.
    QDir dir(QCoreApplication::applicationDirPath());
    for (int up = 0; up < 4 && dir.cdUp();) {
        ++up;
        const QDir bundles(dir.filePath(QStringLiteral("bundle")));
        const QFileInfoList found = bundles.entryInfoList(
            { QStringLiteral("ctxscope-cli-*-linux-*") }, QDir::Files | QDir::Executable, QDir::Time);
        for (const QFileInfo& file : found)
            if (!file.fileName().endsWith(QLatin1String(".sha256")) && !file.fileName().endsWith(QLatin1String(".tmp")))
                return file.filePath();
    }
    return std::nullopt;
}

namespace {

// The words of a command as /bin/sh splits it (the ssh command runs through `sh -c`): blanks
// separate words; '...' keeps everything; "..." keeps everything but a backslash before
// " \ $ or `; a backslash outside quotes keeps the next character. No expansions: a config file
// is named literally. (QProcess::splitCommand knows only double quotes.)
QStringList shellWords(const QString& command)
{
    QStringList words;
    QString word;
    bool inWord = false;
    for (qsizetype i = 0; i < command.size(); ++i) {
        const QChar c = command[i];
        if (c == QLatin1Char('\'')) {
            inWord = true;
            for (++i; i < command.size() && command[i] != QLatin1Char('\''); ++i)
                word += command[i];
        } else if (c == QLatin1Char('"')) {
            inWord = true;
            for (++i; i < command.size() && command[i] != QLatin1Char('"'); ++i) {
                if (command[i] == QLatin1Char('\\') && i + 1 < command.size()
                    && QStringLiteral("\"\\$`").contains(command[i + 1]))
                    ++i;
                word += command[i];
            }
        } else if (c == QLatin1Char('\\')) {
            inWord = true;
            if (i + 1 < command.size())
                word += command[++i];
        } else if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n')) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
        } else {
            inWord = true;
            word += c;
        }
    }
    if (inWord)
        words << word;
    return words;
}

} // namespace

QString sshConfigFile(const QString& sshCommand)
{
    const QStringList words = shellWords(sshCommand);
    for (qsizetype i = 0; i < words.size(); ++i) {
        if (words[i] == QStringLiteral("-F") && i + 1 < words.size())
            return words[i + 1];
        if (words[i].startsWith(QStringLiteral("-F")) && words[i].size() > 2)
            return words[i].mid(2);
    }
    const passwd* account = ::getpwuid(::getuid());
    const QString home = account && account->pw_dir ? QString::fromLocal8Bit(account->pw_dir) : QDir::homePath();
    return QDir(home).filePath(QStringLiteral(".ssh/config"));
}

QStringList sshConfigHostAliases(const QString& configText)
{
    QStringList aliases;
    static const QRegularExpression hostLine(
        QStringLiteral("^\\s*Host(?:\\s*=\\s*|\\s+)(.*)$"), QRegularExpression::CaseInsensitiveOption);
    for (const QString& line : configText.split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch match = hostLine.match(line);
        if (!match.hasMatch())
            continue;
        QString patterns = match.captured(1);
        patterns = patterns.left(patterns.indexOf(QLatin1Char('#'))); // a trailing comment
        for (QString name : patterns.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
            name.remove(QLatin1Char('"'));
            const bool pattern = name.contains(QLatin1Char('*')) || name.contains(QLatin1Char('?'))
                || name.startsWith(QLatin1Char('!'));
            if (!name.isEmpty() && !pattern && !aliases.contains(name))
                aliases << name;
        }
    }
    return aliases;
}

} // namespace ctxscope::gui
