// SPDX-License-Identifier: MIT
#include "ctxscope/worker.h"

#include "ctxscope/protocol.h"
#include "ctxscope/thread_affinity.h"
#include "protocol/worker_jobs.h"

#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
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
    long controllerPid = 0;
    std::mutex writeMutex;
    std::mutex runMutex; // guards run and runId
    std::jthread run;
    std::uint64_t runId = 0;
    bool running = false;
    std::shared_ptr<worker::WatchFocusBox> focusBox; // the running lean watch's, of id focusId
    std::uint64_t focusId = 0;
    // abandon() stops the current job through a copy of its stop source, under a lock of
    // its own: the writer may call it while holding writeMutex, and runMutex's holders write.
    std::mutex stopMutex;
    std::stop_source runStop;
    bool abandoned = false;

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

    // A job returns its last line (result, cancelled or error) and streams the rest.
    using Job = std::function<std::string(const worker::JobContext&)>;

    // False when another job still runs (it answered with an error).
    bool startJob(std::uint64_t id, Job job)
    {
        // A job that was cancelled but is still winding down is waited for, so a script can
        // send "cancel" and the next command back to back.
        bool cancelled = false;
        {
            std::lock_guard lock(runMutex);
            cancelled = running && run.get_stop_token().stop_requested();
        }
        if (cancelled)
            joinRun(false);
        std::lock_guard lock(runMutex);
        if (running) {
            write(errorLine(id, "command " + std::to_string(runId) + " is still measuring; cancel it first"));
            return false;
        }
        if (run.joinable())
            run.join(); // the previous job has ended; reap its thread
        running = true;
        runId = id;
        // The job thread is created before the reader moves, so the measured tasks it starts
        // inherit the worker's whole affinity, never the reader's narrowed one.
        run = std::jthread([this, job = std::move(job), reader = currentThreadId()](std::stop_token stop) {
            const std::string last = job(worker::JobContext {
                topology, [this](const std::string& line) { write(line); }, stop, reader, controllerPid });
            // Not running any more before the controller can read the last line: it may send
            // the next command the moment it has the result.
            {
                std::lock_guard done(runMutex);
                running = false;
            }
            write(last);
        });
        std::lock_guard stopLock(stopMutex);
        runStop = run.get_stop_source();
        if (abandoned)
            runStop.request_stop();
        return true;
    }

    void startWatch(const WatchCommand& c)
    {
        auto box = std::make_shared<worker::WatchFocusBox>();
        if (!startJob(c.id, [c, box](const worker::JobContext& context) { return worker::watchJob(c, context, *box); })
            || !c.lean)
            return;
        std::lock_guard lock(runMutex);
        focusBox = std::move(box);
        focusId = c.id;
    }

    void focus(const WatchFocusCommand& c)
    {
        std::lock_guard lock(runMutex);
        if (!running || runId != c.id)
            return; // the watch has just ended: its summary is on its way, nothing to refuse
        if (!focusBox || focusId != c.id) {
            write(errorLine(c.id, "command " + std::to_string(c.id) + " is not a lean watch"));
            return;
        }
        focusBox->set(c);
    }

    void abandon()
    {
        std::lock_guard lock(stopMutex);
        abandoned = true;
        runStop.request_stop();
    }

    void start(const Command& command)
    {
        std::visit(
            [this](const auto& c) {
                using T = std::decay_t<decltype(c)>;
                if constexpr (std::is_same_v<T, RunCommand>)
                    startJob(c.id, [c](const worker::JobContext& context) { return worker::runJob(c, context); });
                else if constexpr (std::is_same_v<T, SweepCommand>)
                    startJob(c.id, [c](const worker::JobContext& context) { return worker::sweepJob(c, context); });
                else if constexpr (std::is_same_v<T, MatrixCommand>)
                    startJob(c.id, [c](const worker::JobContext& context) { return worker::matrixJob(c, context); });
                else if constexpr (std::is_same_v<T, LessonCommand>)
                    startJob(c.id, [c](const worker::JobContext& context) { return worker::lessonJob(c, context); });
                else if constexpr (std::is_same_v<T, SurveyCommand>)
                    startJob(c.id, [c](const worker::JobContext& context) { return worker::surveyJob(c, context); });
                else if constexpr (std::is_same_v<T, ProcessesCommand>)
                    startJob(c.id, [c](const worker::JobContext& context) { return worker::processesJob(c, context); });
                else if constexpr (std::is_same_v<T, WatchCommand>)
                    startWatch(c);
                else if constexpr (std::is_same_v<T, WatchFocusCommand>)
                    focus(c);
                else if constexpr (std::is_same_v<T, PinCommand>)
                    write(worker::pinLine(c, topology));
                else if constexpr (std::is_same_v<T, CancelCommand>)
                    cancel(c.id);
            },
            command);
    }

    void cancel(std::uint64_t id)
    {
        std::lock_guard lock(runMutex);
        if (!running || runId != id) {
            write(errorLine(id,
                "no run, sweep, matrix, lesson, survey, processes or watch with id " + std::to_string(id)
                    + " is in progress"));
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

void WorkerSession::setController(long pid) { m_state->controllerPid = pid; }

void WorkerSession::sendHello() { m_state->write(helloLine(m_state->topology, readSysInfo(), measurementClock())); }

bool WorkerSession::handleLine(std::string_view line)
{
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
        return true; // blank lines are allowed between messages
    auto command = parseCommand(line);
    if (!command) {
        // The reply names the command's id when it had a readable one, so the controller
        // can tell which of its commands was refused.
        auto message = parseMessage(line);
        m_state->write(errorLine(message ? message->id : std::nullopt, command.error().message));
        return true;
    }
    if (std::holds_alternative<QuitCommand>(*command))
        return false;
    m_state->start(*command);
    return true;
}

void WorkerSession::rejectLongLine(std::size_t bytes)
{
    m_state->write(errorLine(std::nullopt, longLineMessage(bytes)));
}

void WorkerSession::abandon() { m_state->abandon(); }

void WorkerSession::finish(bool cancelRun)
{
    m_state->joinRun(cancelRun);
    m_state->write(byeLine());
}

} // namespace ctxscope
