// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <string>

namespace ctxscope::cli {

// A one-line progress display with an ETA on stderr, only when stderr is a terminal.
class ProgressLine {
public:
    ProgressLine();
    ~ProgressLine(); // clears the line
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(const std::string& what, double fraction);
    void clear();

private:
    bool m_enabled;
    bool m_shown = false;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
};

} // namespace ctxscope::cli
