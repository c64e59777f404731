// SPDX-License-Identifier: MIT
// MainWindow: starting runs and routing the worker's stream to the views.
#include "mainwindow.h"

#include "distributionplot.h"
#include "guiaffinity.h"
#include "liveplot.h"
#include "plotstyle.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "runcoordinator.h"
#include "runlabel.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "switchratemeter.h"
#include "topologymappanel.h"

#include "ctxscope/units.h"

#include "qcp.h"

#include <QAction>
#include <QHeaderView>
#include <QStatusBar>
#include <QTableView>

namespace ctxscope::gui {

void MainWindow::connectController()
{
    // Queued: every view gets the stream from the event loop, never from inside the
    // controller's reading, and results arrive as immutable shared values.
    constexpr auto queued = Qt::QueuedConnection;
    RunController* c = m_controller;
    connect(c, &RunController::runStarted, this, &MainWindow::onRunStarted, queued);
    connect(c, &RunController::progress, this, &MainWindow::onProgress, queued);
    connect(c, &RunController::samplesAvailable, this, &MainWindow::onSamples, queued);
    connect(c, &RunController::resultAvailable, this, &MainWindow::onResult, queued);
    connect(c, &RunController::runFailed, this, &MainWindow::onRunFailed, queued);
    connect(c, &RunController::runCancelled, this, &MainWindow::onRunCancelled, queued);
    connect(c, &RunController::stateChanged, this, &MainWindow::onWorkerState, queued);
    connect(
        c, &RunController::workerReady, this, [this](const QString& description) { m_workerDescription = description; },
        queued);
    connect(
        c, &RunController::workerFailed, this,
        [this](const QString& message) { statusBar()->showMessage(message, 15000); }, queued);
    connect(
        c, &RunController::protocolError, this,
        [this](const QString& message) { statusBar()->showMessage(message, 15000); }, queued);
}

void MainWindow::updateActions()
{
    const bool live = m_topology && m_topology->isThisSystem();
    const bool busy = m_controller->isBusy();
    const auto spec = m_runPanel->spec();
    m_runAction->setEnabled(live && !busy && spec.ok());
    m_runAction->setToolTip(!live ? tr("Runs are disabled: the topology shown is not this machine")
            : !spec.ok()          ? QString::fromStdString(spec.error().message)
                                  : tr("Run the benchmark (Ctrl+R)"));
    m_cancelAction->setEnabled(busy);
}

std::optional<quint64> MainWindow::startRun()
{
    if (!m_topology || !m_topology->isThisSystem()) {
        statusBar()->showMessage(tr("Runs are disabled: the topology shown is not this machine."), 10000);
        return std::nullopt;
    }
    auto spec = m_runPanel->spec();
    if (!spec) {
        statusBar()->showMessage(QString::fromStdString(spec.error().message), 10000);
        return std::nullopt;
    }
    return startSpec(*spec);
}

std::optional<quint64> MainWindow::startSpec(const BenchSpec& spec)
{
    if (!m_topology || !m_topology->isThisSystem())
        return std::nullopt;
    const std::vector<int> measured = RunPanel::measuredCpus(spec, *m_topology);
    const bool unpinned = spec.relation == Relation::Unpinned;
    const QString note = unpinned ? m_affinity->shareAll() : m_affinity->keepOff(measured);
    const bool shared = unpinned || m_affinity->current() == m_affinity->original();
    m_status->setAffinityNote(note, shared);
    const auto id = m_controller->start(spec);
    if (!id) {
        statusBar()->showMessage(tr("A run is in progress: cancel it first (Esc)."), 10000);
        return std::nullopt;
    }
    m_runColors[*id] = runColor(m_runsStarted++, palette());
    // The map shows where the run's tasks are, whichever way they were placed.
    std::vector<int> shown = spec.cpus;
    if (shown.empty() && measured.size() == 1) {
        const BenchInfo* info = findBenchmark(spec.bench);
        const int tasks = spec.tasks > 0 ? spec.tasks : info ? info->defaultTasks : 1;
        shown.assign(static_cast<std::size_t>(tasks), measured[0]);
    } else if (shown.empty()) {
        shown = measured;
    }
    if (!shown.empty() && shown != m_mapPanel->map()->selection())
        (void)m_mapPanel->map()->setSelection(shown);
    updateActions();
    return id;
}

void MainWindow::onRunStarted(quint64 id, const BenchSpec& spec)
{
    std::optional<Relation> relation = spec.relation;
    std::vector<int> cpus = spec.cpus;
    if (!relation && !cpus.empty() && m_topology && cpus.size() >= 2)
        if (auto r = relationOf(*m_topology, cpus[0], cpus[1]))
            relation = *r;
    const auto color = m_runColors.count(id) ? m_runColors[id] : runColor(m_runsStarted++, palette());
    m_plots->livePlot()->beginRun(id, runLabel(spec.bench, spec.mode, relation, cpus), color);
    m_plots->showLive();
    m_runPanel->runStarted();
    m_status->setRunProgress(tr("Starting %1…").arg(QString::fromStdString(spec.bench)));
    m_meter->start();
    updateActions();
}

void MainWindow::onProgress(quint64, const QString& stage, int repetition, int repetitions, double fraction)
{
    m_runPanel->showProgress(stage, repetition, repetitions, fraction);
    m_status->setRunProgress(stage == QStringLiteral("measuring")
            ? tr("Repetition %1/%2 · %3%").arg(repetition + 1).arg(repetitions).arg(qRound(100 * fraction))
            : stage + QStringLiteral("…"));
}

void MainWindow::onSamples(quint64 id, int, quint64, const QVector<double>& nsPerOp)
{
    m_plots->livePlot()->addSamples(id, nsPerOp);
}

void MainWindow::onResult(quint64 id, std::shared_ptr<const RunResult> result)
{
    const QColor color = m_runColors.count(id) ? m_runColors[id] : runColor(m_runsStarted++, palette());
    const QString label = runLabel(*result);
    m_plots->livePlot()->finishRun(id);
    if (QCPGraph* median = m_plots->livePlot()->medianGraph(id))
        median->setName(label); // the placement as measured (an unpinned run's class is now known)
    m_store->addRun(ResultRow { id, result, color });
    fitResultColumns();
    m_runPanel->runEnded(tr("Done: median %1 per op in %2 s")
                             .arg(QString::fromStdString(formatDuration(result->stats.p50)))
                             .arg(result->seconds, 0, 'f', 1),
        true);
    statusBar()->showMessage(
        tr("%1: median %2").arg(label, QString::fromStdString(formatDuration(result->stats.p50))), 15000);
    endOfRun(id);
    reportFinished(id, RunOutcome::Succeeded, QString());
}

void MainWindow::markUnfinished(quint64 id, const QString& how)
{
    m_plots->livePlot()->finishRun(id);
    if (QCPGraph* median = m_plots->livePlot()->medianGraph(id))
        median->setName(median->name() + QStringLiteral(" (") + how + QLatin1Char(')'));
}

void MainWindow::reportFinished(quint64 id, RunOutcome outcome, const QString& message)
{
    m_runs->reportFinished(id, outcome, message);
}

void MainWindow::onRunFailed(quint64 id, const QString& message)
{
    markUnfinished(id, tr("failed"));
    m_runPanel->runEnded(tr("Failed: %1").arg(message), false);
    statusBar()->showMessage(tr("The run failed: %1").arg(message), 20000);
    endOfRun(id);
    reportFinished(id, RunOutcome::Failed, message);
}

void MainWindow::onRunCancelled(quint64 id)
{
    markUnfinished(id, tr("cancelled"));
    m_runPanel->runEnded(tr("Cancelled."), false);
    statusBar()->showMessage(tr("The run was cancelled."), 10000);
    endOfRun(id);
    reportFinished(id, RunOutcome::Cancelled, tr("cancelled"));
}

void MainWindow::fitResultColumns()
{
    // Numbers at full width; the warnings column takes what is left (elided, whole in its tooltip).
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->resizeSection(ResultsModel::Warnings, 120);
}

void MainWindow::endOfRun(quint64)
{
    m_affinity->restore();
    m_status->setSwitchRateOfRun(m_meter->stop());
    m_status->setRunProgress(QString());
    updateActions();
}

void MainWindow::onWorkerState(RunController::State state)
{
    m_status->setWorkerState(state, m_workerDescription);
    updateActions();
}

void MainWindow::showRunSelection(int row)
{
    if (row < 0 || row >= m_results->rowCount()) {
        m_plots->livePlot()->highlightRun(std::nullopt);
        m_plots->distributionPlot()->highlightRun(std::nullopt);
        return;
    }
    const ResultRow& r = m_results->results()[static_cast<std::size_t>(row)]; // the table's order is the store's
    if (!r.result->placement.cpus.empty())
        (void)m_mapPanel->map()->setSelection(r.result->placement.cpus);
    m_plots->livePlot()->highlightRun(r.id);
    m_plots->distributionPlot()->highlightRun(r.id);
}

} // namespace ctxscope::gui
