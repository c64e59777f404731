// SPDX-License-Identifier: MIT
// Finding tracefs, and mounting it only when it is nowhere and we may: what we mounted we
// unmount when the last session that needed it ends.
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

class TracefsMount {
public:
    // Mounts tracefs when it is not mounted (root only). Shared: one mount per process.
    static Expected<std::shared_ptr<TracefsMount>> acquire();
    ~TracefsMount();
    TracefsMount(const TracefsMount&) = delete;
    TracefsMount& operator=(const TracefsMount&) = delete;

    const std::string& path() const { return m_path; }
    bool mountedByUs() const { return m_mountedByUs; }

private:
    TracefsMount(std::string path, bool mountedByUs);
    std::string m_path;
    bool m_mountedByUs = false;
};

} // namespace ctxscope::trace
