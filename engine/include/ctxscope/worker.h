// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ctxscope {

// The worker side of the stream (see protocol.h), independent of stdin/stdout so tests can
// drive it in-process. One run at a time, in its own thread; the caller feeds input lines.
class WorkerSession {
public:
    // Called with each outgoing line (no newline), from the session's threads, one at a time.
    using Writer = std::function<void(const std::string& line)>;

    WorkerSession(Topology topology, Writer writer);
    ~WorkerSession(); // cancels a running benchmark and joins its thread
    WorkerSession(const WorkerSession&) = delete;
    WorkerSession& operator=(const WorkerSession&) = delete;

    // The process that drives this worker (the desktop app): runs count its CPU time on the
    // measured CPUs apart from other tasks' (Interference::controllerPid). Before any command.
    void setController(long pid);
    void sendHello();
    // Handles one input line; returns false once the controller asked to quit.
    bool handleLine(std::string_view line);
    // Answers an input line the reader refused to hold because it was longer than
    // protocol::kMaxLineBytes (it read and dropped `bytes` bytes up to the newline).
    void rejectLongLine(std::size_t bytes);
    // Waits for the current run (cancelling it first with cancelRun), then says bye.
    void finish(bool cancelRun);
    // The controller is gone (a write of the output failed): stops what runs and anything
    // started later. Safe from any thread, including from inside the writer.
    void abandon();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace ctxscope
