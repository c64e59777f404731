// SPDX-License-Identifier: MIT
// MainWindow: the ladder, working-set curves, the heatmap, the comparison with other
// machines and lesson views.
#include "mainwindow.h"

#include "compareplot.h"
#include "distributionplot.h"
#include "heatmapplot.h"
#include "ladderplot.h"
#include "lessonsession.h"
#include "lessonviews.h"
#include "liveplot.h"
#include "loadedfile.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "sessionstore.h"
#include "topologymappanel.h"
#include "workingsetplot.h"

#include "ctxscope/results_file.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace ctxscope::gui {

void MainWindow::connectStore()
{
    // The results table, the working-set curves and the heatmap follow the session document.
    SessionStore* s = m_store;
    connect(s, &SessionStore::runAdded, this, [this](const ResultRow& row, const QString& origin) {
        m_results->addResult(row);
        drawRun(row, origin);
    });
    connect(s, &SessionStore::sweepAdded, this,
        [this](std::size_t i) { m_plots->workingSetPlot()->addSweep(m_store->sweeps()[i]); });
    connect(s, &SessionStore::sweepChanged, this,
        [this](std::size_t i) { m_plots->workingSetPlot()->replaceSweep(i, m_store->sweeps()[i]); });
    connect(s, &SessionStore::matrixAdded, this, [this](std::size_t i) {
        const Session::Matrix& m = m_store->matrices()[i];
        m_plots->heatmapPlot()->setMatrix(m.matrix, m.origin);
    });
    connect(s, &SessionStore::measurementsCleared, this, [this] {
        m_results->clear();
        m_plots->workingSetPlot()->clear();
        m_plots->heatmapPlot()->setMatrix(nullptr);
    });
    connect(s, &SessionStore::comparedChanged, this, &MainWindow::refreshRunViews);
    connect(s, &SessionStore::machineChanged, this, &MainWindow::refreshRunViews);
}

void MainWindow::connectViews()
{
    connect(m_results, &QAbstractItemModel::rowsInserted, this, &MainWindow::refreshRunViews);
    connect(m_results, &QAbstractItemModel::modelReset, this, &MainWindow::refreshRunViews);
    connect(m_plots->heatmapPlot(), &HeatmapPlot::pairClicked, this, [this](int a, int b) {
        const Status placed = m_mapPanel->map()->setSelection({ a, b });
        m_tabs->setCurrentWidget(m_mapPanel);
        statusBar()->showMessage(
            placed ? tr("Tasks placed on P#%1 and P#%2").arg(a).arg(b) : QString::fromStdString(placed.error().message),
            10000);
    });
    connect(this, &MainWindow::lessonFinished, this, &MainWindow::showLessonViews);
    connectJobs();
    refreshRunViews();
}

void MainWindow::refreshRunViews()
{
    // This machine's legend comes from the worker's context block (or a loaded session's).
    CompareSource own;
    const nlohmann::json& context
        = m_controller->workerContext().is_null() ? m_store->machine().context : m_controller->workerContext();
    if (context.is_object())
        if (auto machine = reportContextFromJson(context))
            own = compareSource(ResultsFile { std::move(*machine), {} }, {});
    own.origin = tr("this session");
    std::vector<std::shared_ptr<const RunResult>> runs;
    for (const ResultRow& row : m_store->runs()) {
        runs.push_back(row.result);
        own.results.push_back(*row.result);
    }
    m_plots->ladderPlot()->setRuns(runs);
    std::vector<CompareSource> sources { std::move(own) };
    sources.insert(sources.end(), m_store->compared().begin(), m_store->compared().end());
    m_plots->comparePlot()->setSources(std::move(sources));
}

void MainWindow::clearResults()
{
    m_store->clearMeasurements(); // the table, the working-set curves and the heatmap follow
    m_plots->livePlot()->clear();
    m_plots->distributionPlot()->clear();
    m_runColors.clear();
    m_runsStarted = 0;
}

void MainWindow::addSweep(std::shared_ptr<const SweepCurves> sweep)
{
    m_store->addSweep(std::move(sweep));
    m_plots->showView(QStringLiteral("working-set"));
}

void MainWindow::addMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin)
{
    m_store->addMatrix(std::move(matrix), origin);
    m_plots->showView(QStringLiteral("heatmap"));
}

Status MainWindow::compareWith(const QString& path)
{
    auto opened = readDocument(path, DocumentKind::Compared);
    if (!opened)
        return opened.error();
    return showCompared(opened->file, path);
}

Status MainWindow::showCompared(const LoadedFile& loaded, const QString& path)
{
    const LoadedFile* file = &loaded;
    if (file->session || file->results.results.empty())
        return makeError(path.toStdString() + ": "
            + (file->session ? "a session, not a results file: open it with File → Open session"
                             : "holds no runs to compare"));
    m_store->addCompared(compareSource(file->results, file->name), file->results.context.raw);
    m_plots->showView(QStringLiteral("compare"));
    return {};
}

void MainWindow::showLessonViews()
{
    if (!m_lesson)
        return;
    const std::string_view id = m_lesson->info().id;
    for (auto& sweep :
        lessonSweeps(id, m_lesson->results(), m_topology ? m_topology->caches() : std::vector<CacheInfo> {}))
        m_store->addSweep(std::move(sweep));
    m_plots->showView(gui::lessonView(id));
}

} // namespace ctxscope::gui
