// SPDX-License-Identifier: MIT
#include "trace/tracefs_mount.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

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

} // namespace

TracefsMount::TracefsMount(std::string path, bool mountedByUs)
    : m_path(std::move(path))
    , m_mountedByUs(mountedByUs)
{
}

TracefsMount::~TracefsMount()
{
    // Lazily: a reader still holding a file open keeps it alive until it closes.
    if (m_mountedByUs)
        umount2(m_path.c_str(), MNT_DETACH);
}

Expected<std::shared_ptr<TracefsMount>> TracefsMount::acquire()
{
    std::lock_guard lock(g_mutex);
    if (auto held = g_mount.lock())
        return held;
    if (std::string refusal = tracingRefusal(); !refusal.empty())
        return makeError(refusal);
    std::shared_ptr<TracefsMount> mount;
    if (std::string where = mountedTracefs(); !where.empty()) {
        mount.reset(new TracefsMount(where, false));
    } else {
        if (::mount("nodev", kTracefsHome, "tracefs", 0, nullptr) != 0)
            return makeError(fmt::format(
                "tracefs is not mounted, and mounting it on {} failed: {}", kTracefsHome, std::strerror(errno)));
        mount.reset(new TracefsMount(kTracefsHome, true));
    }
    g_mount = mount;
    return mount;
}

} // namespace ctxscope::trace
