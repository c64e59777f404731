// SPDX-License-Identifier: MIT
// WorkerClient: working-set sweeps, placement matrices and running programs through the worker
// (protocol 3).
#include "workerclient.h"

#include "ctxscope/events.h"

namespace ctxscope::gui {

std::optional<quint64> WorkerClient::startJob(protocol::Command command, quint64 id)
{
    if (isBusy())
        return std::nullopt;
    if (m_state == State::Idle) {
        send(protocol::commandLine(command));
        m_running = id;
        setState(State::Running);
        return id;
    }
    m_pendingJob = std::move(command);
    m_pendingId = id;
    startWorker(); // the job goes out after the hello
    return id;
}

std::optional<quint64> WorkerClient::startSweep(const SweepSpec& spec)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::SweepCommand { id, spec }, id);
}

std::optional<quint64> WorkerClient::startMatrix(
    const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::MatrixCommand { id, bench, mode, fill, options }, id);
}

std::optional<quint64> WorkerClient::startLesson(const std::string& lesson, const RunBudget& options)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::LessonCommand { id, lesson, options }, id);
}

std::optional<quint64> WorkerClient::startSurvey(double budgetSeconds)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::SurveyCommand { id, budgetSeconds }, id);
}

std::optional<quint64> WorkerClient::startProcesses(double seconds)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::ProcessesCommand { id, seconds }, id);
}

std::optional<quint64> WorkerClient::startWatch(long pid, double intervalS, bool trace, std::size_t events)
{
    const quint64 id = m_nextId++;
    m_watchDecoder.clear();
    m_watchFocus.clear();
    // No backend named: the worker takes the cheapest it may use (BPF where allowed), ftrace
    // when the events are asked for.
    protocol::WatchCommand command { id, pid, intervalS, 0, trace, trace ? events : 0 };
    command.lean = true;
    return startJob(command, id);
}

bool WorkerClient::focusWatch(quint64 id, const std::vector<long>& tids, bool everything)
{
    if (m_state != State::Running || m_running != id)
        return false;
    m_watchFocus = tids;
    send(protocol::commandLine(protocol::WatchFocusCommand { id, tids, everything }));
    return true;
}

std::optional<quint64> WorkerClient::pin(
    long target, bool process, const std::vector<int>& cpus, KernelThreads kernelThreads)
{
    if (m_state != State::Idle && m_state != State::Running)
        return std::nullopt;
    const quint64 id = m_nextId++;
    m_pins.insert(id);
    send(protocol::commandLine(protocol::PinCommand { id, target, process, cpus, kernelThreads }));
    return id;
}

bool WorkerClient::handlePinAnswer(protocol::Event& event, quint64 id)
{
    if (!m_pins.count(id))
        return false;
    if (auto* done = std::get_if<protocol::PinnedEvent>(&event)) {
        m_pins.erase(id);
        emit pinned(id, done->changes);
    } else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event)) {
        m_pins.erase(id);
        emit pinFailed(id, QString::fromStdString(error->message));
    }
    return true;
}

void WorkerClient::handleJobEvent(protocol::Event& event)
{
    const quint64 id = *m_running;
    if (auto* part = std::get_if<protocol::TraceEventsEvent>(&event)) {
        emit traceEventsAvailable(id, std::make_shared<const protocol::TraceEventsEvent>(std::move(*part)));
    } else if (auto* point = std::get_if<protocol::SweepPointEvent>(&event)) {
        emit sweepPointAvailable(id, std::make_shared<const WorkingSetPoint>(std::move(point->point)));
    } else if (auto* sweep = std::get_if<protocol::SweepResultEvent>(&event)) {
        endRun();
        emit sweepFinished(id, std::make_shared<const std::vector<CacheInfo>>(std::move(sweep->sweep.caches)));
    } else if (auto* cell = std::get_if<protocol::MatrixCellEvent>(&event)) {
        // A pair that could not run has no result: the matrix lists it in its failures.
        if (cell->result)
            emit matrixRunAvailable(id, std::make_shared<const RunResult>(std::move(*cell->result)));
    } else if (auto* matrix = std::get_if<protocol::MatrixResultEvent>(&event)) {
        endRun();
        emit matrixAvailable(id, std::make_shared<const MatrixResult>(std::move(matrix->matrix)));
    } else if (auto* step = std::get_if<protocol::LessonStepEvent>(&event)) {
        emit lessonStepAvailable(id, std::make_shared<const protocol::LessonStepEvent>(std::move(*step)));
    } else if (auto* lesson = std::get_if<protocol::LessonResultEvent>(&event)) {
        endRun();
        emit lessonFinished(id, std::make_shared<const LessonResult>(std::move(lesson->lesson)));
    } else if (auto* run = std::get_if<protocol::SurveyStepEvent>(&event)) {
        emit surveyStepAvailable(id, std::make_shared<const RunResult>(std::move(run->result)));
    } else if (auto* survey = std::get_if<protocol::SurveyResultEvent>(&event)) {
        endRun();
        emit surveyFinished(id, std::make_shared<const nlohmann::json>(std::move(survey->survey)));
    } else if (auto* list = std::get_if<protocol::ProcessesEvent>(&event)) {
        endRun();
        emit processesAvailable(id, std::make_shared<const std::vector<ProcessActivity>>(std::move(list->processes)));
    } else if (auto* sample = std::get_if<protocol::WatchSampleEvent>(&event)) {
        emit watchSampleAvailable(id, std::make_shared<const WatchSample>(std::move(sample->sample)));
    } else if (auto* delta = std::get_if<protocol::WatchDeltaEvent>(&event)) {
        emit watchSampleAvailable(id, std::make_shared<const WatchSample>(m_watchDecoder.apply(*delta)));
    } else if (auto* summary = std::get_if<protocol::WatchSummaryEvent>(&event)) {
        endRun();
        emit watchFinished(id, std::make_shared<const WatchSummary>(std::move(summary->summary)));
    }
    // A lesson of runs is never sent whole: the app runs it step by step (LessonSession).
}

} // namespace ctxscope::gui
