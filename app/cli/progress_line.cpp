// SPDX-License-Identifier: MIT
#include "progress_line.h"

#include <fmt/core.h>
#include <unistd.h>

namespace ctxscope::cli {

ProgressLine::ProgressLine()
    : m_enabled(::isatty(STDERR_FILENO) != 0)
    , m_start(std::chrono::steady_clock::now())
{
}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(const std::string& what, double fraction)
{
    if (!m_enabled)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (m_shown && now - m_last < std::chrono::milliseconds(100))
        return; // at most 10 redraws a second
    m_last = now;
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    std::string eta = "ETA --";
    if (fraction > 0.02 && fraction < 1)
        eta = fmt::format("ETA {:.0f} s", elapsed * (1 - fraction) / fraction);
    std::string text = fmt::format("{:3.0f}%  {}  {}", 100 * fraction, eta, what);
    if (text.size() > 78)
        text.resize(78);
    fmt::print(stderr, "\r\033[K{}", text);
    std::fflush(stderr);
    m_shown = true;
}

void ProgressLine::clear()
{
    if (m_shown)
        fmt::print(stderr, "\r\033[K");
    m_shown = false;
}

} // namespace ctxscope::cli
