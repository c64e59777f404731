// SPDX-License-Identifier: MIT
// Finding tracefs, and mounting it only when it is nowhere and we may: what ctxscope mounted
// is unmounted when the last ctxscope using it (in any process of this mount namespace) ends.
#pragma once

#include "ctxscope/expected.h"

#include <memory>
#include <string>

namespace ctxscope::trace {

inline constexpr const char* kTracefsHome = "/sys/kernel/tracing";

// Where tracefs is mounted, from /proc/self/mounts ("" when nowhere).
std::string mountedTracefs();

// The sentence saying why this process may not trace, or "" when it may. Creates nothing.
std::string tracingRefusal();

// Every ctxscope process that traces holds a shared lock on a file in /run named after its
// mount namespace; a second lock file is taken alone for the moment of deciding on a mount or
// an unmount; a marker beside them says ctxscope mounted tracefs there. So a ctxscope that
// mounted tracefs never unmounts it under another one still tracing, and the last to end
// unmounts it (also after a ctxscope that mounted it was killed).
inline constexpr const char* kTracefsLockDir = "/run";

class TracefsMount {
public:
    // Mounts tracefs when it is not mounted (root only). Shared: one per process.
    static Expected<std::shared_ptr<TracefsMount>> acquire();
    ~TracefsMount();
    TracefsMount(const TracefsMount&) = delete;
    TracefsMount& operator=(const TracefsMount&) = delete;

    const std::string& path() const { return m_path; }
    // Whether ctxscope mounted it (this process or another one).
    bool mountedByUs() const { return m_mountedByUs; }

private:
    TracefsMount(std::string path, bool mountedByUs, int lockFd);
    std::string m_path;
    bool m_mountedByUs = false;
    int m_lockFd = -1; // holds the shared lock; -1 where /run is not ours to write (not root)
};

} // namespace ctxscope::trace
