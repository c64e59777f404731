// SPDX-License-Identifier: MIT
#include "sessionviews.h"

#include "taskselection.h"

#include "compareplot.h"
#include "conditionpair.h"
#include "distributionplot.h"
#include "heatmapplot.h"
#include "ladderplot.h"
#include "liveplot.h"
#include "plotdata.h"
#include "plotstyle.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "runlabel.h"
#include "sessionstore.h"
#include "timelinepage.h"
#include "timelineview.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"
#include "workerclient.h"
#include "workingsetplot.h"

#include "ctxscope/results_file.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>

namespace ctxscope::gui {

namespace {
// Results read from files get ids far above the worker's run ids.
constexpr quint64 kOpenedIdBase = quint64 { 1 } << 40;
} // namespace

SessionViews::SessionViews(const Parts& parts)
    : QObject(parts.window)
    , m_parts(parts)
    , m_results(new ResultsModel(this))
{
    m_parts.table->setModel(m_results);
    connectStore();
    connectViews();
}

void SessionViews::connectStore()
{
    // The results table, the working-set curves and the heatmap follow the session document.
    SessionStore* s = m_parts.store;
    PlotsView* plots = m_parts.plots;
    connect(s, &SessionStore::runAdded, this, [this](const ResultRow& row, const QString& origin) {
        m_results->addResult(row);
        drawRun(row, origin);
        if (row.result->trace)
            refreshTimeline();
    });
    connect(s, &SessionStore::sweepAdded, this,
        [s, plots](std::size_t i) { plots->workingSetPlot()->addSweep(s->sweeps()[i]); });
    connect(s, &SessionStore::sweepChanged, this,
        [s, plots](std::size_t i) { plots->workingSetPlot()->replaceSweep(i, s->sweeps()[i]); });
    connect(s, &SessionStore::matrixAdded, this, [s, plots](std::size_t i) {
        const Session::Matrix& m = s->matrices()[i];
        plots->heatmapPlot()->setMatrix(m.matrix, m.origin);
    });
    connect(s, &SessionStore::measurementsCleared, this, [this, plots] {
        m_results->clear();
        m_numbers.clear(); // the rows number from 1 again
        m_stage.clear();
        m_selected.reset();
        plots->workingSetPlot()->clear();
        plots->heatmapPlot()->setMatrix(nullptr);
        refreshTimeline();
    });
    connect(s, &SessionStore::runMachinesChanged, this, [this, s] { m_results->setResults(s->runs()); });
    connect(s, &SessionStore::comparedChanged, this, &SessionViews::refreshRunViews);
    connect(s, &SessionStore::machineChanged, this, &SessionViews::refreshRunViews);
}

void SessionViews::connectViews()
{
    connect(m_results, &QAbstractItemModel::rowsInserted, this, &SessionViews::refreshRunViews);
    connect(m_results, &QAbstractItemModel::modelReset, this, &SessionViews::refreshRunViews);
    connect(m_parts.plots->heatmapPlot(), &HeatmapPlot::pairClicked, this, [this](int a, int b) {
        const Status placed = m_parts.mapPanel->map()->setSelection({ a, b });
        m_parts.tabs->setCurrentWidget(m_parts.mapPanel);
        m_parts.window->statusBar()->showMessage(
            placed ? tr("Tasks placed on P#%1 and P#%2").arg(a).arg(b) : QString::fromStdString(placed.error().message),
            10000);
    });
    connect(m_parts.plots->earlierRunsSwitch(), &QCheckBox::toggled, this, &SessionViews::showEarlierRuns);
    connect(m_parts.table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) { showRunSelection(current.isValid() ? current.row() : -1); });
    // The timeline and the map light each other's PU; a task's slice selects its run.
    TimelinePage* timeline = m_parts.plots->timelinePage();
    TopologyMapWidget* map = m_parts.mapPanel->map();
    connect(timeline, &TimelinePage::puHovered, map, &TopologyMapWidget::setHoveredPu);
    connect(map, &TopologyMapWidget::puHovered, timeline->timeline(), &TimelineView::highlightPu);
    connect(timeline, &TimelinePage::runTaskClicked, this, [this](quint64 id, std::int32_t) { selectRun(id); });
    refreshRunViews();
    refreshTimeline();
}

void SessionViews::selectRun(quint64 id)
{
    const auto& rows = m_results->results();
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].id == id) {
            m_parts.table->selectRow(static_cast<int>(i));
            return;
        }
}

void SessionViews::refreshTimeline()
{
    std::vector<const ResultRow*> traced;
    for (const ResultRow& row : m_parts.store->runs())
        if (row.result->trace)
            traced.push_back(&row);
    const ResultRow* selected = nullptr;
    for (const ResultRow* row : traced)
        if (m_selected && row->id == *m_selected)
            selected = row;
    if (traced.size() > kMaxTracedShown)
        traced.erase(traced.begin(), traced.end() - kMaxTracedShown);
    if (selected && std::find(traced.begin(), traced.end(), selected) == traced.end())
        traced.insert(traced.begin(), selected);
    std::vector<TimelinePage::Run> runs;
    for (const ResultRow* row : traced) {
        const QString label = runLabel(*row->result);
        // A side of a condition's A/B says which in its bar too: "#4 cross-package (0,1) · as is".
        const QString side = abSideName(*row);
        const QString sideText = side.isEmpty() ? QString() : QStringLiteral(" · ") + side;
        TimelinePage::Run run { row->id, legendLabel(row->id, label + sideText),
            legendLabel(row->id, label.section(QStringLiteral(" · "), -1) + sideText), row->result, row->traceWindow,
            {}, {} };
        if (!row->machine.isEmpty()) {
            run.label += QStringLiteral(" · ") + row->machine;
            run.barLabel += QStringLiteral(" · ") + row->machine;
        }
        // The measured tasks in the colours of their markers on the map: A, B, ...
        const std::vector<long>& tasks = row->result->trace->tasks;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            run.taskColors[static_cast<std::int32_t>(tasks[i])] = TopologyMapWidget::taskColor(static_cast<int>(i));
            run.taskNames[static_cast<std::int32_t>(tasks[i])] = taskName(static_cast<int>(i));
        }
        for (long task : row->result->trace->keepAwakeTasks)
            run.keepAwake.insert(static_cast<std::int32_t>(task));
        runs.push_back(std::move(run));
    }
    TimelinePage* page = m_parts.plots->timelinePage();
    if (const auto& topology = m_parts.mapPanel->map()->topology())
        page->setLanes(timelineLanes(*topology));
    page->setRuns(std::move(runs));
    if (selected)
        page->showRun(selected->id);
}

void SessionViews::assignColor(quint64 id) { m_runColors[id] = runColor(m_colorsGiven++, m_parts.window->palette()); }

QColor SessionViews::colorOf(quint64 id)
{
    const auto it = m_runColors.find(id);
    return it != m_runColors.end() ? it->second : runColor(m_colorsGiven++, m_parts.window->palette());
}

std::vector<ResultRow> SessionViews::rowsOf(
    std::vector<RunResult> results, std::vector<std::shared_ptr<const PreparedTrace>> traces)
{
    std::vector<ResultRow> rows;
    for (std::size_t i = 0; i < results.size(); ++i) {
        rows.push_back({ kOpenedIdBase + m_opened++, std::make_shared<const RunResult>(std::move(results[i])),
            runColor(m_colorsGiven++, m_parts.window->palette()) });
        if (i < traces.size() && traces[i])
            m_traces[rows.back().id] = std::move(traces[i]);
    }
    pairConditionSides(rows); // a condition's A/B read back
    return rows;
}

void SessionViews::addResultRows(
    std::vector<RunResult> results, const QString& origin, std::vector<std::shared_ptr<const PreparedTrace>> traces)
{
    for (ResultRow& row : rowsOf(std::move(results), std::move(traces)))
        m_parts.store->addRun(std::move(row), origin);
    fitResultColumns();
}

void SessionViews::beginStage(bool lesson)
{
    m_stage.clear();
    m_lessonStage = lesson;
    showStage();
}

void SessionViews::endLessonStage() { m_lessonStage = false; }

void SessionViews::runBegins(quint64 id)
{
    if (!m_lessonStage)
        m_stage.clear();
    m_stage.insert(id);
    m_numbers.emplace(id, static_cast<int>(m_parts.store->runs().size()) + 1); // the row its result will get
    showStage();
}

void SessionViews::runContinues(quint64 id) { m_numbers[id] = static_cast<int>(m_parts.store->runs().size()) + 1; }

void SessionViews::showEarlierRuns(bool on)
{
    m_showEarlier = on;
    showStage();
}

QString SessionViews::legendLabel(quint64 id, const QString& label)
{
    const auto it = m_numbers.find(id);
    return it == m_numbers.end() ? label : QStringLiteral("#%1 ").arg(it->second) + label;
}

void SessionViews::showStage()
{
    std::optional<std::set<quint64>> shown;
    if (!m_showEarlier) {
        shown = m_stage;
        if (m_selected)
            shown->insert(*m_selected);
    }
    m_parts.plots->livePlot()->setShownRuns(shown);
    m_parts.plots->distributionPlot()->setShownRuns(shown);
}

void SessionViews::drawRun(const ResultRow& row, const QString& origin)
{
    // A run read from a file, or a matrix's cell, joins the stage on show, which keeps the
    // newest kFileStageRuns of them; one measured here joined it when it began.
    m_numbers.emplace(row.id, static_cast<int>(m_parts.store->runs().size()));
    if (m_stage.insert(row.id).second) {
        if (m_stage.size() > kFileStageRuns)
            m_stage.erase(*std::min_element(m_stage.begin(), m_stage.end(), [this](quint64 a, quint64 b) {
                const auto number = [this](quint64 id) {
                    const auto it = m_numbers.find(id);
                    return it == m_numbers.end() ? 0 : it->second;
                };
                return number(a) < number(b);
            }));
        showStage();
    }
    // A conditioned run says so ("· keep-awake 0,1"), as a run streamed here does.
    QString label = rowLabel(row);
    for (const QString& part : { row.machine, origin })
        if (!part.isEmpty())
            label += QStringLiteral(" · ") + part;
    label = legendLabel(row.id, label);
    // A run measured here drew its live curve as it streamed; one read from a file draws it now.
    LivePlot* live = m_parts.plots->livePlot();
    if (const auto prepared = m_traces.find(row.id); prepared != m_traces.end()) {
        live->addFinishedRun(row.id, label, row.color, row.result, *prepared->second);
        m_traces.erase(prepared);
    } else if (!origin.isEmpty() && !row.result->samples.empty()) {
        live->beginRun(row.id, label, row.color);
        live->addSamples(row.id, QVector<double>(row.result->samples.begin(), row.result->samples.end()));
        live->finishRun(row.id);
    }
    m_parts.plots->distributionPlot()->addResult(row.id, row.result, label, row.color);
}

void SessionViews::fitResultColumns()
{
    // Numbers at full width; the warnings column takes what is left (elided, whole in its tooltip).
    m_parts.table->resizeColumnsToContents();
    m_parts.table->horizontalHeader()->resizeSection(ResultsModel::Warnings, 120);
}

void SessionViews::refreshRunViews()
{
    // One Compare source for each machine the session measured on, named by its context block
    // (this machine's from its worker or a loaded session, a server's from its worker's hello).
    const SessionStore& store = *m_parts.store;
    const MachineLink link = m_controller ? m_controller->link() : MachineLink {};
    std::vector<CompareSource> sources;
    for (const QString& key : store.machineKeys()) {
        const bool own = key == SessionStore::kLocalMachine;
        const nlohmann::json& context = store.contextOf(key);
        CompareSource source;
        if (context.is_object())
            if (auto machine = reportContextFromJson(context))
                source = compareSource(ResultsFile { std::move(*machine), {} }, {});
        source.origin = own ? tr("this session") : tr("this session, %1").arg(key);
        for (const ResultRow& row : store.runs())
            if (SessionStore::keyOf(row) == key)
                source.results.push_back(row.result); // shared: no copy of its samples
        if (own || !source.results.empty())
            sources.push_back(std::move(source));
    }
    // The ladder compares benchmarks on one machine: the one runs go to now.
    const QString shown = link.isRemote() ? link.destination : QString();
    std::vector<std::shared_ptr<const RunResult>> runs;
    for (const ResultRow& row : store.runs())
        if (row.machine == shown)
            runs.push_back(row.result);
    m_parts.plots->ladderPlot()->setRuns(runs);
    sources.insert(sources.end(), store.compared().begin(), store.compared().end());
    m_parts.plots->comparePlot()->setSources(std::move(sources));
    // Each row names its machine once the session holds more than one.
    QHeaderView* header = m_parts.table->horizontalHeader();
    if (header->count() > ResultsModel::Machine && header->visualIndex(ResultsModel::Machine) != 0)
        header->moveSection(header->visualIndex(ResultsModel::Machine), 0);
    m_parts.table->setColumnHidden(ResultsModel::Machine, !store.runsSpanMachines());
}

void SessionViews::clear()
{
    m_parts.store->clearMeasurements(); // the table, the working-set curves and the heatmap follow
    m_parts.plots->livePlot()->clear();
    m_parts.plots->distributionPlot()->clear();
    m_stage.clear();
    m_selected.reset();
    showStage();
    m_runColors.clear();
    m_colorsGiven = 0;
}

void SessionViews::showRunSelection(int row)
{
    LivePlot* live = m_parts.plots->livePlot();
    if (row < 0 || row >= m_results->rowCount()) {
        m_selected.reset();
        showStage();
        live->highlightRun(std::nullopt);
        m_parts.plots->distributionPlot()->highlightRun(std::nullopt);
        return;
    }
    const ResultRow& r = m_results->results()[static_cast<std::size_t>(row)]; // the table's order is the store's
    m_selected = r.id; // an earlier run's curves come back while its row is selected
    showStage();
    if (r.result->trace)
        refreshTimeline();
    m_parts.mapPanel->map()->showPlacement(r.result->placement.cpus);
    live->highlightRun(r.id);
    m_parts.plots->distributionPlot()->highlightRun(r.id);
}

} // namespace ctxscope::gui
