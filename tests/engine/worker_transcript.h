// SPDX-License-Identifier: MIT
// A WorkerSession's output as a test reads it: lines collected from the session's threads,
// waited for by type in order.
#pragma once

#include "ctxscope/protocol.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope::test {

// Collects a session's output lines and lets a test wait for one of a type.
class Transcript {
public:
    void add(const std::string& line)
    {
        std::lock_guard lock(m_mutex);
        m_lines.push_back(line);
        m_cv.notify_all();
    }
    std::optional<protocol::Message> waitFor(std::string_view type, std::chrono::seconds timeout)
    {
        std::unique_lock lock(m_mutex);
        std::optional<protocol::Message> found;
        m_cv.wait_for(lock, timeout, [&] {
            for (; m_seen < m_lines.size(); ++m_seen) {
                auto m = protocol::parseMessage(m_lines[m_seen]);
                if (m && m->type == type) {
                    found = *m;
                    ++m_seen;
                    return true;
                }
            }
            return false;
        });
        return found;
    }

    std::vector<std::string> lines()
    {
        std::lock_guard lock(m_mutex);
        return m_lines;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<std::string> m_lines;
    std::size_t m_seen = 0;
};

} // namespace ctxscope::test
