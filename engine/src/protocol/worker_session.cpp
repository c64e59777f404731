// SPDX-License-Identifier: MIT
#include "ctxscope/worker.h"

#include "ctxscope/protocol.h"

#include <mutex>
#include <thread>

namespace ctxscope {

using namespace protocol;

struct WorkerSession::State {
    State(Topology t, Writer w)
        : topology(std::move(t))
        , writer(std::move(w))
    {
    }

    Topology topology;
    Writer writer;
    std::mutex writeMutex;
    std::mutex runMutex; // guards run and runId
    std::jthread run;
    std::uint64_t runId = 0;
    bool running = false;

    void write(const std::string& line)
    {
        std::lock_guard lock(writeMutex);
        writer(line);
    }

    // Waits for the current run to end; with cancel, asks it to stop first.
    void joinRun(bool cancel)
    {
        std::jthread finished;
        {
            std::lock_guard lock(runMutex);
            finished = std::move(run);
        }
        if (cancel)
            finished.request_stop();
        if (finished.joinable())
            finished.join();
    }

    void startRun(const RunCommand& command)
    {
        // A run that was cancelled but is still winding down is waited for, so a script can
        // send "cancel" and the next "run" back to back.
        bool cancelled = false;
        {
            std::lock_guard lock(runMutex);
            cancelled = running && run.get_stop_token().stop_requested();
        }
        if (cancelled)
            joinRun(false);
        std::lock_guard lock(runMutex);
        if (running) {
            write(errorLine(command.id, "a run (id " + std::to_string(runId) + ") is in progress; cancel it first"));
            return;
        }
        if (run.joinable())
            run.join(); // the previous run has ended; reap its thread
        running = true;
        runId = command.id;
        run = std::jthread([this, command](std::stop_token stop) {
            RunCallbacks callbacks;
            callbacks.samples = [&](const SampleBatch& b) { write(samplesLine(command.id, b)); };
            callbacks.progress = [&](const Progress& p) { write(progressLine(command.id, p)); };
            auto result = runBenchmark(command.spec, topology, callbacks, stop);
            const std::string last = result ? resultLine(command.id, *result)
                : stop.stop_requested()     ? cancelledLine(command.id)
                                            : errorLine(command.id, result.error().message);
            // Not running any more before the controller can read the last line: it may send
            // the next run the moment it has the result.
            {
                std::lock_guard done(runMutex);
                running = false;
            }
            write(last);
        });
    }

    void cancel(std::uint64_t id)
    {
        std::lock_guard lock(runMutex);
        if (!running || runId != id) {
            write(errorLine(id, "no run with id " + std::to_string(id) + " is in progress"));
            return;
        }
        run.request_stop();
    }
};

WorkerSession::WorkerSession(Topology topology, Writer writer)
    : m_state(std::make_unique<State>(std::move(topology), std::move(writer)))
{
}

WorkerSession::~WorkerSession() { m_state->joinRun(true); }

void WorkerSession::sendHello() { m_state->write(helloLine(m_state->topology, readSysInfo(), measurementClock())); }

bool WorkerSession::handleLine(std::string_view line)
{
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
        return true; // blank lines are allowed between messages
    auto command = parseCommand(line);
    if (!command) {
        m_state->write(errorLine(std::nullopt, command.error().message));
        return true;
    }
    if (std::holds_alternative<QuitCommand>(*command))
        return false;
    if (const auto* run = std::get_if<RunCommand>(&*command))
        m_state->startRun(*run);
    else if (const auto* cancel = std::get_if<CancelCommand>(&*command))
        m_state->cancel(cancel->id);
    return true;
}

void WorkerSession::finish(bool cancelRun)
{
    m_state->joinRun(cancelRun);
    m_state->write(byeLine());
}

} // namespace ctxscope
