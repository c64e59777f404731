// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/protocol.h"

#include "ctxscope/watch_delta.h"

#include <functional>
#include <mutex>
#include <stop_token>
#include <string>

namespace ctxscope::worker {

struct JobContext {
    const Topology& topology;
    std::function<void(const std::string&)> write; // streamed lines
    std::stop_token stop;
    int readerTid = 0; // the thread reading commands, kept off the measured PUs meanwhile
    long controllerPid = 0; // the app driving the worker (WorkerSession::setController), 0: none
};

// Each runs one command in the calling thread and returns its last line: the result,
// "cancelled", or an error for the command's id.
std::string runJob(const protocol::RunCommand& command, const JobContext& context);
std::string sweepJob(const protocol::SweepCommand& command, const JobContext& context);
std::string matrixJob(const protocol::MatrixCommand& command, const JobContext& context);
std::string lessonJob(const protocol::LessonCommand& command, const JobContext& context);
std::string surveyJob(const protocol::SurveyCommand& command, const JobContext& context);
// Observing running programs (worker_programs.cpp): they measure nothing and move no thread.
std::string processesJob(const protocol::ProcessesCommand& command, const JobContext& context);
// A lean watch's focus, set by watch_focus in the reading thread, read by the watch before each
// sample.
class WatchFocusBox {
public:
    void set(const protocol::WatchFocusCommand& command);
    // The focus for the next sample; a one-shot `everything` is then spent.
    protocol::WatchFocus take();

private:
    std::mutex m_mutex;
    protocol::WatchFocus m_focus;
};
std::string watchJob(const protocol::WatchCommand& command, const JobContext& context, WatchFocusBox& focus);
// Not a job: done at once in the reading thread, even while a job runs; returns its one line.
std::string pinLine(const protocol::PinCommand& command, const Topology& topology);

} // namespace ctxscope::worker
