// SPDX-License-Identifier: MIT
// `ctxscope-cli worker`: the engine behind the GUI, speaking NDJSON on stdin/stdout.
#include "commands.h"
#include "parent_death.h"
#include "worker_input.h"

#include "ctxscope/protocol.h"
#include "ctxscope/worker.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <unistd.h>

namespace ctxscope::cli {

namespace {

bool writeLine(const std::string& line)
{
    return std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fputc('\n', stdout) != EOF
        && std::fflush(stdout) == 0;
}

int runWorker(bool finishOnEof, long controller)
{
    // A write to a closed pipe or socket must fail with EPIPE, not kill the worker before it
    // has stopped and reaped its benchmark children.
    std::signal(SIGPIPE, SIG_IGN);
    // The controller owns us: die with it.
    if (!dieWithParent())
        return kOk;
    auto topology = Topology::loadLive();
    if (!topology) {
        std::printf(
            "{\"type\":\"error\",\"id\":null,\"message\":\"%s\"}\n", "this machine's topology could not be read");
        return kMeasurementFailed;
    }
    WorkerInput input(STDIN_FILENO, STDOUT_FILENO);
    // Set once a write fails: what comes after is dropped, what runs is stopped.
    std::atomic<bool> outputBroken { false };
    WorkerSession* running = nullptr;
    WorkerSession session(std::move(*topology), [&](const std::string& line) {
        if (outputBroken.load() || writeLine(line))
            return;
        outputBroken.store(true);
        if (running)
            running->abandon();
        input.outputFailed();
    });
    running = &session;
    session.setController(controller);
    session.sendHello();
    std::string line;
    // The controller is gone when the output is, and (unless told otherwise) when the input
    // ends: over ssh both go together when the connection drops. Either way what runs is
    // cancelled, its children reaped, and the worker exits.
    bool cancel = false;
    for (bool reading = true; reading;) {
        const auto read = input.next(line, protocol::kMaxLineBytes);
        switch (read.event) {
        case WorkerInput::Event::Line:
            reading = session.handleLine(line);
            cancel = !reading; // quit
            break;
        case WorkerInput::Event::LongLine:
            session.rejectLongLine(read.bytes);
            break;
        case WorkerInput::Event::InputEnded:
            reading = false;
            cancel = !finishOnEof;
            break;
        case WorkerInput::Event::OutputGone:
            reading = false;
            cancel = true;
            break;
        }
    }
    session.finish(cancel);
    return kOk;
}

} // namespace

Command addWorkerCommand(CLI::App& app)
{
    CLI::App* sub = app.add_subcommand(
        "worker", "Serve the desktop app: newline-delimited JSON on stdin/stdout (docs/protocol.md describes it)");
    auto finishOnEof = std::make_shared<bool>(false);
    sub->add_flag("--finish-on-eof", *finishOnEof,
        "At the end of input, let the command that runs finish before bye (for a script read from a file); "
        "without it the end of input means the controller is gone, and what runs is cancelled");
    auto controller = std::make_shared<long>(0);
    sub->add_option("--controller", *controller,
           "The PID of the desktop app driving this worker: each run's interference accounting counts its CPU "
           "time on the measured CPUs apart from other tasks' (\"the ctxscope window: 2%\")")
        ->check(CLI::PositiveNumber);
    return { sub, [finishOnEof, controller] { return runWorker(*finishOnEof, *controller); } };
}

} // namespace ctxscope::cli
