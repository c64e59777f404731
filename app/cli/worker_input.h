// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

namespace ctxscope::cli {

// The worker's two ends of its connection to the controller: reads command lines from the
// input descriptor and notices, even while waiting for the next line, that the controller is
// gone: the input ended, the output descriptor reports an error or hang-up (a pipe whose
// reader closed it, a socket whose peer went), or a write to it failed (outputFailed()).
class WorkerInput {
public:
    WorkerInput(int input, int output);
    ~WorkerInput();
    WorkerInput(const WorkerInput&) = delete;
    WorkerInput& operator=(const WorkerInput&) = delete;

    enum class Event {
        Line, // `line` holds the next line, without its newline
        LongLine, // a line longer than the limit was read and dropped (`bytes` says how long)
        InputEnded, // end of input: no more lines will come
        OutputGone, // nobody reads the output any more
    };
    struct Read {
        Event event = Event::InputEnded;
        std::size_t bytes = 0; // the line's whole length, without the newline
    };

    // Blocks until a whole line, the end of input or the end of the output. Holds at most
    // `limit` bytes of a line: a longer one is read to its newline and dropped, so a
    // controller that sends gigabytes without a newline cannot make the worker hold them.
    Read next(std::string& line, std::size_t limit);

    // Says, from any thread, that a write to the output failed (EPIPE and the like): a
    // waiting next() returns OutputGone at once.
    void outputFailed();

private:
    // Waits until input can be read; false when the output is gone first.
    bool waitForInput();

    int m_input;
    int m_output;
    int m_wake = -1; // an eventfd that outputFailed() signals
    std::atomic<bool> m_outputFailed { false };
    char m_buffer[65536] {};
    std::size_t m_at = 0;
    std::size_t m_end = 0;
};

} // namespace ctxscope::cli
