// SPDX-License-Identifier: MIT
#include "localsshd.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <sstream>
#include <utility>

namespace {

constexpr const char* kSshd = "/usr/sbin/sshd";

// 127.0.0.1:port (0: any port the kernel picks).
sockaddr_in loopback(int port)
{
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    return address;
}

// Two ports on 127.0.0.1 the kernel just handed out (and took back), both bound at once so
// that they differ (bound one after the other, the kernel may hand out the same port twice,
// the likeliest cause of a CI run's refusal): free unless another program grabs one in the
// moment before sshd binds it. {0, 0} when the kernel refused.
std::pair<int, int> twoFreePorts()
{
    int fds[2] = { ::socket(AF_INET, SOCK_STREAM, 0), ::socket(AF_INET, SOCK_STREAM, 0) };
    int ports[2] = { 0, 0 };
    for (int i = 0; i < 2; ++i) {
        sockaddr_in address = loopback(0);
        socklen_t length = sizeof address;
        if (fds[i] >= 0 && ::bind(fds[i], reinterpret_cast<sockaddr*>(&address), sizeof address) == 0
            && ::getsockname(fds[i], reinterpret_cast<sockaddr*>(&address), &length) == 0)
            ports[i] = ntohs(address.sin_port);
    }
    for (int fd : fds)
        if (fd >= 0)
            ::close(fd);
    if (ports[0] == 0 || ports[1] == 0)
        return { 0, 0 };
    return { ports[0], ports[1] };
}

bool accepts(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const sockaddr_in address = loopback(port);
    const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
}

bool writeFile(const QString& path, const QString& text)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    file.write(text.toUtf8());
    return true;
}

int parentOf(int pid)
{
    // QFile, not an istreambuf_iterator: the process can end between the open and the read,
    // whose ESRCH libstdc++'s filebuf throws through the iterator (it ended a test once).
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const std::string text = stat.readAll().toStdString();
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return -1;
    std::istringstream rest(text.substr(close + 2));
    char state = 0;
    int parent = -1;
    rest >> state >> parent;
    return parent;
}

} // namespace

LocalSshd::LocalSshd()
{
    if (!QFile::exists(QString::fromLatin1(kSshd))) {
        m_problem = QStringLiteral("no %1: install Debian's openssh-server").arg(QString::fromLatin1(kSshd));
        return;
    }
    // sshd run by root separates privileges into this directory (the package's service makes it).
    if (::geteuid() == 0)
        ::mkdir("/run/sshd", 0755);
    if (!m_dir.isValid()) {
        m_problem = QStringLiteral("no temporary directory: %1").arg(m_dir.errorString());
        return;
    }
    const auto [port, closedPort] = twoFreePorts();
    if (port == 0) {
        m_problem = QStringLiteral("the kernel gave no free port on 127.0.0.1");
        return;
    }
    if (!makeKey(QStringLiteral("host")) || !makeKey(QStringLiteral("user")) || !makeKey(QStringLiteral("other"))
        || !writeConfigs(port, closedPort))
        return;
    m_sshd.setProcessChannelMode(QProcess::MergedChannels);
    m_sshd.setStandardOutputFile(m_dir.filePath(QStringLiteral("sshd.log")));
    m_sshd.start(QString::fromLatin1(kSshd),
        { QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
            m_dir.filePath(QStringLiteral("sshd_config")) });
    if (!m_sshd.waitForStarted(5000) || !waitUntilListening(port)) {
        QFile log(m_dir.filePath(QStringLiteral("sshd.log")));
        log.open(QIODevice::ReadOnly);
        m_problem = QStringLiteral("sshd did not start: %1").arg(QString::fromUtf8(log.readAll()).trimmed());
    }
}

LocalSshd::~LocalSshd()
{
    for (int pid : sessionPids())
        ::kill(pid, SIGKILL);
    if (m_sshd.state() != QProcess::NotRunning) {
        m_sshd.kill();
        m_sshd.waitForFinished(5000);
    }
}

QString LocalSshd::sshCommand() const
{
    return QStringLiteral("ssh -F '%1'").arg(m_dir.filePath(QStringLiteral("ssh_config")));
}

std::vector<int> LocalSshd::sessionPids() const
{
    std::vector<int> found;
    const int listener = static_cast<int>(m_sshd.processId());
    if (listener <= 0)
        return found;
    // Every descendant of the listener: the connections' sshd processes and what they run.
    bool grew = true;
    std::vector<int> family { listener };
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    while (grew) {
        grew = false;
        for (const QString& entry : entries) {
            bool numeric = false;
            const int pid = entry.toInt(&numeric);
            if (!numeric || std::find(family.begin(), family.end(), pid) != family.end())
                continue;
            if (std::find(family.begin(), family.end(), parentOf(pid)) != family.end()) {
                family.push_back(pid);
                found.push_back(pid);
                grew = true;
            }
        }
    }
    return found;
}

bool LocalSshd::makeKey(const QString& name)
{
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
        { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
            QStringLiteral("-f"), m_dir.filePath(name) });
    if (!keygen.waitForFinished(30'000) || keygen.exitCode() != 0) {
        m_problem = QStringLiteral("ssh-keygen failed: %1").arg(QString::fromUtf8(keygen.readAllStandardError()));
        return false;
    }
    return true;
}

bool LocalSshd::writeConfigs(int port, int closedPort)
{
    auto read = [this](const QString& name) {
        QFile file(m_dir.filePath(name));
        file.open(QIODevice::ReadOnly);
        return QString::fromUtf8(file.readAll()).trimmed();
    };
    const passwd* me = ::getpwuid(::geteuid());
    const QString user = me ? QString::fromLocal8Bit(me->pw_name) : QStringLiteral("root");
    const QString dir = m_dir.path();
    const QString sshd = QStringLiteral("ListenAddress 127.0.0.1\nPort %1\nHostKey %2/host\n"
                                        "AuthorizedKeysFile %2/authorized_keys\nPidFile none\nUsePAM no\n"
                                        "StrictModes no\nPermitRootLogin prohibit-password\n"
                                        "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                        "LogLevel ERROR\n")
                             .arg(port)
                             .arg(dir);
    const QString known = QStringLiteral("[127.0.0.1]:%1 %2\n").arg(port).arg(read(QStringLiteral("host.pub")));
    auto host = [&](const char* alias, int toPort, const char* key, const char* knownHosts) {
        return QStringLiteral("Host %1\n  HostName 127.0.0.1\n  Port %2\n  User %3\n  IdentityFile %4/%5\n"
                              "  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile %4/%6\n"
                              "  GlobalKnownHostsFile /dev/null\n")
            .arg(QString::fromLatin1(alias))
            .arg(toPort)
            .arg(user, dir, QString::fromLatin1(key), QString::fromLatin1(knownHosts));
    };
    const QString client = host("lab-test", port, "user", "known_hosts")
        + host("lab-newkey", port, "user", "no_known_hosts") + host("lab-wrongkey", port, "other", "known_hosts")
        + host("lab-closed", closedPort, "user", "known_hosts");
    if (!writeFile(m_dir.filePath(QStringLiteral("sshd_config")), sshd)
        || !writeFile(m_dir.filePath(QStringLiteral("authorized_keys")), read(QStringLiteral("user.pub")) + u'\n')
        || !writeFile(m_dir.filePath(QStringLiteral("known_hosts")), known)
        || !writeFile(m_dir.filePath(QStringLiteral("no_known_hosts")), QString())
        || !writeFile(m_dir.filePath(QStringLiteral("ssh_config")), client)) {
        m_problem = QStringLiteral("could not write the configuration into %1").arg(dir);
        return false;
    }
    QFile::setPermissions(
        m_dir.filePath(QStringLiteral("ssh_config")), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return true;
}

bool LocalSshd::waitUntilListening(int port)
{
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < 10'000) {
        if (accepts(port))
            return true;
        if (m_sshd.state() == QProcess::NotRunning)
            return false;
        QThread::msleep(20);
    }
    return false;
}
