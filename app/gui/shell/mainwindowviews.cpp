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
#include "topologymappanel.h"
#include "workingsetplot.h"

#include "ctxscope/report_parts.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace ctxscope::gui {

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
        = m_controller->workerContext().is_null() ? m_loadedContext : m_controller->workerContext();
    if (context.is_object())
        if (auto machine = reportContextFromJson(context))
            own = compareSource(ResultsFile { std::move(*machine), {} }, {});
    own.origin = tr("this session");
    std::vector<std::shared_ptr<const RunResult>> runs;
    for (const ResultRow& row : m_results->results()) {
        runs.push_back(row.result);
        own.results.push_back(*row.result);
    }
    m_plots->ladderPlot()->setRuns(runs);
    std::vector<CompareSource> sources { std::move(own) };
    sources.insert(sources.end(), m_compared.begin(), m_compared.end());
    m_plots->comparePlot()->setSources(std::move(sources));
}

void MainWindow::clearResults()
{
    m_results->clear();
    m_plots->livePlot()->clear();
    m_plots->distributionPlot()->clear();
    m_plots->workingSetPlot()->clear();
    m_plots->heatmapPlot()->setMatrix(nullptr);
    m_matrices.clear();
    m_runColors.clear();
    m_runsStarted = 0;
}

void MainWindow::addSweep(std::shared_ptr<const SweepCurves> sweep)
{
    m_plots->workingSetPlot()->addSweep(std::move(sweep));
    m_plots->showView(QStringLiteral("working-set"));
}

void MainWindow::addMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin)
{
    m_matrices.push_back({ matrix, origin });
    m_plots->heatmapPlot()->setMatrix(std::move(matrix), origin);
    m_plots->showView(QStringLiteral("heatmap"));
}

Status MainWindow::compareWith(const QString& path)
{
    auto file = loadResultsDocument(path);
    if (!file)
        return file.error();
    if (file->session || file->results.results.empty())
        return makeError(path.toStdString() + ": "
            + (file->session ? "a session, not a results file: open it with File → Open session"
                             : "holds no runs to compare"));
    m_compared.push_back(compareSource(file->results, file->name));
    m_comparedContexts.push_back(file->results.context.raw);
    refreshRunViews();
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
        m_plots->workingSetPlot()->addSweep(std::move(sweep));
    m_plots->showView(gui::lessonView(id));
}

} // namespace ctxscope::gui
