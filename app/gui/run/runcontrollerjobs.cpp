// SPDX-License-Identifier: MIT
// RunController: working-set sweeps and placement matrices through the worker (protocol 2).
#include "runcontroller.h"

#include "ctxscope/report_parts.h"

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
    const std::string& bench, BenchMode mode, MatrixMode fill, const LessonOptions& options)
{
    const quint64 id = m_nextId++;
    return startJob(protocol::MatrixCommand { id, bench, mode, fill, options }, id);
}

bool RunController::handleJobMessage(const std::string& type, bool forCurrentRun, const nlohmann::json& body)
{
    const auto fail = [this](const std::string& what, const Error& error) {
        const quint64 id = *m_running;
        endRun();
        emit runFailed(id,
            tr("The worker's %1 could not be read: %2")
                .arg(QString::fromStdString(what), QString::fromStdString(error.message)));
    };
    if (type == "sweep_point") {
        if (!forCurrentRun)
            return true;
        auto point = workingSetPointFromJson(body.at("point"));
        if (!point)
            fail("sweep point", point.error());
        else
            emit sweepPointAvailable(*m_running, std::make_shared<const WorkingSetPoint>(std::move(*point)));
    } else if (type == "sweep_result") {
        if (!forCurrentRun)
            return true;
        auto caches = sweepCachesFromJson(body.at("sweep"));
        if (!caches)
            return fail("sweep", caches.error()), true;
        const quint64 id = *m_running;
        endRun();
        emit sweepFinished(id, std::make_shared<const std::vector<CacheInfo>>(std::move(*caches)));
    } else if (type == "matrix_cell") {
        if (!forCurrentRun || !body.contains("result"))
            return true; // a pair that could not run: the matrix lists it in its failures
        auto result = resultFromJson(body.at("result"));
        if (!result)
            fail("matrix run", result.error());
        else
            emit matrixRunAvailable(*m_running, std::make_shared<const RunResult>(std::move(*result)));
    } else if (type == "matrix_result") {
        if (!forCurrentRun)
            return true;
        auto matrix = matrixFromJson(body.at("matrix"));
        if (!matrix)
            return fail("matrix", matrix.error()), true;
        const quint64 id = *m_running;
        endRun();
        emit matrixAvailable(id, std::make_shared<const MatrixResult>(std::move(*matrix)));
    } else {
        return type == "lesson_step" || type == "lesson_result"; // the app runs lessons step by step
    }
    return true;
}

} // namespace ctxscope::gui
