// SPDX-License-Identifier: MIT
// MainWindow: working-set sweeps and placement matrices measured live through the worker.
#include "mainwindow.h"

#include "guiaffinity.h"
#include "heatmapdata.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "runlabel.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "workingsetplot.h"

#include "ctxscope/units.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>

namespace ctxscope::gui {

void MainWindow::createJobActions(QMenu* run)
{
    QAction* sweep = run->addAction(tr("S&weep the working set"), this, [this] {
        auto spec = m_runPanel->spec();
        if (!spec) {
            statusBar()->showMessage(QString::fromStdString(spec.error().message), 10000);
            return;
        }
        SweepSpec sweepSpec;
        sweepSpec.base = *spec;
        (void)startSweep(sweepSpec);
    });
    sweep->setToolTip(tr("The run panel's benchmark and placement with each task touching 0 B up to 4x the "
                         "last-level cache"));
    sweep->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    QAction* matrix = run->addAction(tr("Measure the placement &matrix"), this, [this] {
        auto spec = m_runPanel->spec();
        const std::string bench = spec ? spec->bench : std::string("futex");
        (void)startMatrix(bench, spec ? spec->mode : BenchMode::Thread, MatrixMode::Classes, RunBudget {});
    });
    matrix->setToolTip(tr("One pair of PUs per relation class measured, every other pair filled from its class"));
    matrix->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    run->addSeparator();
}

void MainWindow::connectJobs()
{
    connect(m_controller, &RunController::sweepPointAvailable, this,
        [this](quint64 id, std::shared_ptr<const WorkingSetPoint> point) {
            auto it = m_liveSweeps.find(id);
            if (it == m_liveSweeps.end()) {
                auto sweep = std::make_shared<SweepCurves>();
                sweep->label = runLabel(point->roundTripRun) + tr(" · this machine");
                it = m_liveSweeps.emplace(id, m_store->addSweep(sweep)).first;
            }
            auto grown = std::make_shared<SweepCurves>(*m_store->sweeps()[it->second]);
            grown->points.push_back(*point);
            m_store->replaceSweep(it->second, std::move(grown));
            m_status->setRunProgress(tr("Sweep: W = %1 done").arg(QString::fromStdString(formatBytes(point->wsBytes))));
        });
    connect(m_controller, &RunController::sweepFinished, this,
        [this](quint64 id, std::shared_ptr<const std::vector<CacheInfo>> caches) {
            if (const auto it = m_liveSweeps.find(id); it != m_liveSweeps.end()) {
                auto done = std::make_shared<SweepCurves>(*m_store->sweeps()[it->second]);
                done->caches = *caches;
                m_store->replaceSweep(it->second, std::move(done));
                m_liveSweeps.erase(it);
            }
            jobEnded(id, tr("Sweep done: the cost per switch for each working set is in the Working set tab."));
        });
    connect(m_controller, &RunController::matrixRunAvailable, this,
        [this](quint64 id, std::shared_ptr<const RunResult> result) { m_matrixRuns[id].push_back(*result); });
    connect(m_controller, &RunController::matrixAvailable, this,
        [this](quint64 id, std::shared_ptr<const MatrixResult> measured) {
            auto matrix = std::make_shared<MatrixResult>(*measured);
            if (m_topology)
                fillFromClasses(*matrix, *m_topology);
            matrix->runs = std::move(m_matrixRuns[id]);
            m_matrixRuns.erase(id);
            addResultRows(matrix->runs, tr("matrix"));
            addMatrix(std::move(matrix), tr("this machine"));
            jobEnded(id, tr("Matrix done: hover a cell for its pair, click it to place the tasks there."));
        });
}

std::optional<quint64> MainWindow::startSweep(const SweepSpec& spec)
{
    if (!m_topology || !m_topology->isThisSystem())
        return std::nullopt;
    const std::vector<int> measured = RunPanel::measuredCpus(spec.base, *m_topology);
    m_status->setAffinityNote(m_affinity->keepOff(measured), m_affinity->current() == m_affinity->original());
    const auto id = m_controller->startSweep(spec);
    if (!id) {
        statusBar()->showMessage(tr("A run is in progress: cancel it first (Esc)."), 10000);
        return std::nullopt;
    }
    m_plots->showView(QStringLiteral("working-set"));
    m_runPanel->runStarted();
    m_status->setRunProgress(tr("Sweeping the working set…"));
    updateActions();
    return id;
}

std::optional<quint64> MainWindow::startMatrix(
    const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options)
{
    if (!m_topology || !m_topology->isThisSystem())
        return std::nullopt;
    // Every PU is measured in turn: the app's threads cannot keep off them all.
    m_status->setAffinityNote(m_affinity->shareAll(), true);
    const auto id = m_controller->startMatrix(bench, mode, fill, options);
    if (!id) {
        statusBar()->showMessage(tr("A run is in progress: cancel it first (Esc)."), 10000);
        return std::nullopt;
    }
    m_plots->showView(QStringLiteral("heatmap"));
    m_runPanel->runStarted();
    m_status->setRunProgress(tr("Measuring the matrix…"));
    updateActions();
    return id;
}

void MainWindow::jobEnded(quint64 id, const QString& message)
{
    m_runPanel->runEnded(message, true);
    statusBar()->showMessage(message, 15000);
    endOfRun(id);
    reportFinished(id, RunOutcome::Succeeded, QString());
}

} // namespace ctxscope::gui
