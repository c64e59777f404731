// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/protocol.h"

#include <functional>
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
std::string watchJob(const protocol::WatchCommand& command, const JobContext& context);
// Not a job: done at once in the reading thread, even while a job runs; returns its one line.
std::string pinLine(const protocol::PinCommand& command, const Topology& topology);

} // namespace ctxscope::worker
