// SPDX-License-Identifier: MIT
#include "trace/tracefs_mount.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include <algorithm>
#include <cctype>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <unistd.h>

namespace ctxscope::trace {

std::string mountedTracefs()
{
    std::ifstream mounts("/proc/self/mounts");
    std::string line;
    std::string found;
    while (std::getline(mounts, line)) {
        std::istringstream fields(line);
        std::string device, where, type;
        fields >> device >> where >> type;
        if (type != "tracefs")
            continue;
        // The canonical place wins over the debugfs copy (/sys/kernel/debug/tracing).
        if (where == kTracefsHome)
            return where;
        if (found.empty())
            found = where;
    }
    return found;
}

std::string tracingRefusal()
{
    const std::string where = mountedTracefs();
    if (where.empty()) {
        if (geteuid() == 0)
            return {};
        return fmt::format("tracing needs tracefs, which is not mounted, and only root may mount it: run as root, "
                           "or have an administrator run 'mount -t tracefs nodev {0}' and give your group write "
                           "access to it (chgrp -R GROUP {0}; chmod -R g+rwX {0})",
            kTracefsHome);
    }
    const std::string instances = where + "/instances";
    if (access(instances.c_str(), W_OK) == 0 && access(where.c_str(), R_OK | X_OK) == 0)
        return {};
    return fmt::format("tracing needs write access to {} (a private ftrace instance is made there), which this user "
                       "lacks: run as root, or have an administrator give your group access (chgrp -R GROUP {}; "
                       "chmod -R g+rwX {})",
        instances, where, where);
}

namespace {

std::mutex g_mutex;
std::weak_ptr<TracefsMount> g_mount;

// "/run/ctxscope-tracefs-4026531841": one name per mount namespace, whose tracefs it is about.
std::string lockBase()
{
    char link[64] = {};
    const ssize_t n = readlink("/proc/self/ns/mnt", link, sizeof link - 1);
    std::string ns = n > 0 ? std::string(link, static_cast<std::size_t>(n)) : std::string("mnt");
    std::erase_if(ns, [](char c) { return !std::isdigit(static_cast<unsigned char>(c)); });
    return fmt::format("{}/ctxscope-tracefs-{}", kTracefsLockDir, ns.empty() ? "0" : ns);
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// A lock file held open; -1 where /run is not this user's to write (not root: then it cannot
// have mounted tracefs either, and there is nothing to decide).
int openLock(const std::string& path) { return open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600); }

// The decision lock, held alone for the moment of deciding on a mount or an unmount.
class Deciding {
public:
    Deciding()
        : m_fd(openLock(lockBase() + ".decide"))
    {
        if (m_fd >= 0)
            flock(m_fd, LOCK_EX);
    }
    ~Deciding()
    {
        if (m_fd >= 0)
            close(m_fd);
    }
    Deciding(const Deciding&) = delete;
    Deciding& operator=(const Deciding&) = delete;

private:
    int m_fd;
};

} // namespace

TracefsMount::TracefsMount(std::string path, bool mountedByUs, int lockFd)
    : m_path(std::move(path))
    , m_mountedByUs(mountedByUs)
    , m_lockFd(lockFd)
{
}

TracefsMount::~TracefsMount()
{
    if (m_lockFd < 0)
        return;
    const Deciding deciding; // no other ctxscope starts or ends meanwhile
    // Let go of the users' lock, then ask for it alone: granted only when no other ctxscope
    // still traces here.
    flock(m_lockFd, LOCK_UN);
    if (flock(m_lockFd, LOCK_EX | LOCK_NB) == 0) {
        const std::string marker = lockBase() + ".mounted";
        if (exists(marker) && mountedTracefs() == m_path) {
            // Lazily: a reader still holding a file open keeps it alive until it closes.
            umount2(m_path.c_str(), MNT_DETACH);
        }
        if (mountedTracefs().empty())
            unlink(marker.c_str());
    }
    close(m_lockFd);
}

Expected<std::shared_ptr<TracefsMount>> TracefsMount::acquire()
{
    std::lock_guard lock(g_mutex);
    if (auto held = g_mount.lock())
        return held;
    if (std::string refusal = tracingRefusal(); !refusal.empty())
        return makeError(refusal);
    const std::string base = lockBase();
    const Deciding deciding; // the mount is decided alone
    // The users' lock, held shared while this process traces (never waited on for long: it is
    // taken alone only by a ctxscope ending, briefly, under the decision lock).
    const int users = openLock(base + ".lock");
    if (users >= 0)
        flock(users, LOCK_SH);
    std::shared_ptr<TracefsMount> mount;
    if (std::string where = mountedTracefs(); !where.empty()) {
        mount.reset(new TracefsMount(where, exists(base + ".mounted"), users));
    } else {
        if (::mount("nodev", kTracefsHome, "tracefs", 0, nullptr) != 0) {
            const int error = errno;
            if (users >= 0)
                close(users);
            return makeError(fmt::format(
                "tracefs is not mounted, and mounting it on {} failed: {}", kTracefsHome, std::strerror(error)));
        }
        if (const int marker = openLock(base + ".mounted"); marker >= 0)
            close(marker);
        mount.reset(new TracefsMount(kTracefsHome, true, users));
    }
    g_mount = mount;
    return mount;
}

} // namespace ctxscope::trace
