// SPDX-License-Identifier: MIT
// RunController: working-set sweeps and placement matrices through the worker (protocol 3).
#include "runcontroller.h"

#include "ctxscope/events.h"

namespace ctxscope::gui {

std::optional<quint64> RunController::startJob(protocol::Command command, quint64 id)
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

std::optional<quint64> RunController::startSweep(const SweepSpec& spec)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::SweepCommand { id, spec }, id);
}

std::optional<quint64> RunController::startMatrix(
    const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::MatrixCommand { id, bench, mode, fill, options }, id);
}

void RunController::handleJobEvent(protocol::Event& event)
{
    const quint64 id = *m_running;
    if (auto* point = std::get_if<protocol::SweepPointEvent>(&event)) {
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
    }
    // Lesson steps and results: the app runs lessons step by step, as single runs.
}

} // namespace ctxscope::gui
