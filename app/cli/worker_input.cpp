// SPDX-License-Identifier: MIT
#include "worker_input.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace ctxscope::cli {

WorkerInput::WorkerInput(int input, int output)
    : m_input(input)
    , m_output(output)
    , m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
}

WorkerInput::~WorkerInput()
{
    if (m_wake >= 0)
        ::close(m_wake);
}

void WorkerInput::outputFailed()
{
    m_outputFailed.store(true);
    if (m_wake < 0)
        return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(m_wake, &one, sizeof one);
}

bool WorkerInput::waitForInput()
{
    for (;;) {
        if (m_outputFailed.load())
            return false;
        // No events asked of the output: poll still reports POLLERR (a pipe with no reader),
        // POLLHUP (a socket or terminal hung up) and POLLNVAL (closed), and never anything
        // for a regular file or /dev/null.
        pollfd fds[3] = { { m_input, POLLIN, 0 }, { m_output, 0, 0 }, { m_wake, POLLIN, 0 } };
        const nfds_t count = m_wake >= 0 ? 3 : 2;
        if (::poll(fds, count, -1) < 0) {
            if (errno == EINTR)
                continue;
            return true; // let read() say what is wrong with the input
        }
        if ((fds[1].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0 || fds[2].revents != 0)
            return false;
        if (fds[0].revents != 0)
            return true;
    }
}

WorkerInput::Read WorkerInput::next(std::string& line, std::size_t limit)
{
    line.clear();
    Read read { Event::Line, 0 };
    bool any = false;
    for (;;) {
        while (m_at < m_end) {
            any = true;
            const char* start = m_buffer + m_at;
            const auto* newline = static_cast<const char*>(std::memchr(start, '\n', m_end - m_at));
            const std::size_t n = newline ? static_cast<std::size_t>(newline - start) : m_end - m_at;
            if (read.bytes + n <= limit)
                line.append(start, n);
            else
                line.clear(); // over the limit: drop what was held, count the rest
            read.bytes += n;
            m_at += n;
            if (newline) {
                ++m_at;
                if (read.bytes > limit)
                    read.event = Event::LongLine;
                return read;
            }
        }
        if (!waitForInput())
            return { Event::OutputGone, 0 };
        const ssize_t got = ::read(m_input, m_buffer, sizeof m_buffer);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0) {
            // The end of input (or an input that cannot be read): a last line without its
            // newline still counts as a line.
            if (!any)
                return { Event::InputEnded, 0 };
            if (read.bytes > limit)
                read.event = Event::LongLine;
            return read;
        }
        m_at = 0;
        m_end = static_cast<std::size_t>(got);
    }
}

} // namespace ctxscope::cli
