// SPDX-License-Identifier: MIT
// Ctrl-C for long commands: SIGINT and SIGTERM become a stop request that the engine answers
// between and within runs, instead of killing the process mid-measurement.
#pragma once

#include <atomic>
#include <stop_token>
#include <thread>

namespace ctxscope::cli {

class InterruptWatcher {
public:
    // Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it starts
    // afterwards) and waits for them on a thread of its own.
    InterruptWatcher();
    ~InterruptWatcher();
    InterruptWatcher(const InterruptWatcher&) = delete;
    InterruptWatcher& operator=(const InterruptWatcher&) = delete;

    std::stop_token token() const { return m_source.get_token(); }
    bool interrupted() const { return m_interrupted.load(); }

private:
    std::stop_source m_source;
    std::atomic<bool> m_interrupted { false };
    std::atomic<bool> m_leaving { false };
    std::thread m_thread;
};

} // namespace ctxscope::cli
