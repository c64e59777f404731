// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <stop_token>
#include <thread>

namespace ctxscope::cli {

// While alive, Ctrl-C (SIGINT) and SIGTERM request a stop instead of killing the process, so
// a run ends cleanly: tasks joined, children reaped, what finished printed, exit 130.
// The signals are blocked in every thread started after this and taken by a watcher thread
// with sigwaitinfo, so nothing unsafe runs in a signal handler.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

    std::stop_token token() const { return m_source.get_token(); }
    bool requested() const { return m_source.stop_requested(); }

private:
    std::stop_source m_source;
    std::atomic<bool> m_done { false };
    std::thread m_watcher;
};

} // namespace ctxscope::cli
