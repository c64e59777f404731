// SPDX-License-Identifier: MIT
#include "streamrouter.h"

#include "conditionpair.h"
#include "heatmapdata.h"
#include "liveplot.h"
#include "machinecards.h"
#include "plotsview.h"
#include "qcp.h"
#include "runlabel.h"
#include "runmenu.h"
#include "runoutcome.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "sessionviews.h"
#include "statuspanel.h"

#include "ctxscope/units.h"

#include <QMainWindow>
#include <QStatusBar>
#include <QTime>
#include <QTimer>

namespace ctxscope::gui {

StreamRouter::StreamRouter(
    RunMenu& launcher, PlotsView& plots, SessionViews& views, const std::optional<Topology>& topology)
    : QObject(&launcher)
    , m_launcher(launcher)
    , m_plots(plots)
    , m_views(views)
    , m_topology(topology)
    , m_progressTimer(new QTimer(this))
{
    m_progressTimer->setSingleShot(true);
    m_progressTimer->setInterval(kProgressIntervalMs);
    connect(m_progressTimer, &QTimer::timeout, this, &StreamRouter::showProgress);
    connectRuns();
    connectJobs();
}

void StreamRouter::connectRuns()
{
    // Queued: every view gets the stream from the event loop, never from inside the
    // controller's reading, and results arrive as immutable shared values.
    constexpr auto queued = Qt::QueuedConnection;
    WorkerClient* c = m_launcher.controller();
    connect(c, &WorkerClient::runStarted, this, &StreamRouter::onRunStarted, queued);
    connect(c, &WorkerClient::progress, this, &StreamRouter::onProgress, queued);
    connect(
        c, &WorkerClient::samplesAvailable, this,
        [this](quint64 id, int repetition, quint64, const QVector<double>& nsPerOp) {
            onSamples(id, repetition, nsPerOp);
        },
        queued);
    connect(c, &WorkerClient::traceEventsAvailable, this, &StreamRouter::onTraceEvents, queued);
    connect(c, &WorkerClient::asIsResultAvailable, this, &StreamRouter::onAsIsResult, queued);
    connect(
        c, &WorkerClient::conditionAbAvailable, this,
        [this](quint64 id, std::shared_ptr<const ConditionAb> ab) { m_abs[id] = std::move(ab); }, queued);
    connect(c, &WorkerClient::resultAvailable, this, &StreamRouter::onResult, queued);
    connect(c, &WorkerClient::runFailed, this, &StreamRouter::onRunFailed, queued);
    connect(c, &WorkerClient::runCancelled, this, &StreamRouter::onRunCancelled, queued);
}

void StreamRouter::showMessage(const QString& message, int ms) const
{
    m_launcher.window()->statusBar()->showMessage(message, ms);
}

QString StreamRouter::serverName() const
{
    const MachineLink& link = m_launcher.controller()->link();
    return link.isRemote() ? link.destination : QString();
}

QString StreamRouter::onServer() const
{
    // A curve measured on a server says where, as its row does.
    return serverName().isEmpty() ? QString() : QStringLiteral(" · ") + serverName();
}

void StreamRouter::onRunStarted(quint64 id, const BenchSpec& spec)
{
    std::optional<Relation> relation = spec.relation;
    std::vector<int> cpus = spec.cpus;
    if (!relation && !cpus.empty() && m_topology && cpus.size() >= 2)
        if (auto r = relationOf(*m_topology, cpus[0], cpus[1]))
            relation = *r;
    m_views.runBegins(id); // a stage of its own, or the lesson's
    m_liveLabel = runLabel(spec.bench, spec.mode, relation, cpus)
        + (spec.conditioned() ? QStringLiteral(" · ") + QString::fromStdString(conditionText(spec)) : QString())
        + onServer();
    m_plots.livePlot()->beginRun(id, m_views.legendLabel(id, m_liveLabel), m_views.colorOf(id));
    m_plots.showLive();
    m_progressTimer->stop();
    m_progress = {};
    m_repetition = -1;
    m_progressShown = true;
    m_launcher.panel()->runStarted();
    m_launcher.status()->setRunProgress(tr("Starting %1…").arg(QString::fromStdString(spec.bench)));
    m_launcher.runBegan();
}

void StreamRouter::onProgress(quint64 id, const QString& stage, int repetition, int repetitions, double fraction)
{
    // Queued: a job's last progress can come after its end (a whole lesson's, handled directly).
    if (m_launcher.controller()->runningId() != id)
        return;
    const bool step = stage != m_progress.stage || repetition != m_progress.repetition;
    if (stage == QStringLiteral("measuring"))
        repetitionSeen(repetition);
    m_progress = { id, stage, repetition, repetitions, fraction };
    m_progressShown = false;
    if (step)
        showProgress();
    else if (!m_plots.livePlot()->quietStage() && !m_progressTimer->isActive())
        m_progressTimer->start();
}

void StreamRouter::onSamples(quint64 id, int repetition, const QVector<double>& nsPerOp)
{
    if (m_launcher.controller()->runningId() == id)
        repetitionSeen(repetition);
    m_plots.livePlot()->addSamples(id, nsPerOp);
}

void StreamRouter::repetitionSeen(int repetition)
{
    if (repetition > m_repetition && m_repetition >= 0)
        m_plots.livePlot()->drawHeld();
    m_repetition = std::max(m_repetition, repetition);
}

void StreamRouter::showProgress()
{
    m_progressTimer->stop();
    // Nothing once the run has ended: its outcome is on show.
    if (m_progressShown || m_launcher.controller()->runningId() != m_progress.id)
        return;
    m_progressShown = true;
    const Progress& p = m_progress;
    m_launcher.panel()->showProgress(p.stage, p.repetition, p.repetitions, p.fraction);
    m_launcher.status()->setRunProgress(
        p.stage == QStringLiteral("measuring") ? (
            m_plots.livePlot()->quietStage() // only a repetition's start is shown: no percent
                ? tr("Repetition %1/%2").arg(p.repetition + 1).arg(p.repetitions)
                : tr("Repetition %1/%2 · %3%").arg(p.repetition + 1).arg(p.repetitions).arg(qRound(100 * p.fraction)))
                                               : p.stage + QStringLiteral("…"));
}

void StreamRouter::onResult(quint64 id, std::shared_ptr<const RunResult> result)
{
    const QColor color = m_views.colorOf(id);
    ResultRow row { id, result, color, serverName(), nullptr, m_launcher.traceFileOf(id), takeAsIsRow(id) };
    const QString label = rowLabel(row) + onServer();
    m_plots.livePlot()->finishRun(id, result); // the result's samples, unrounded, replace the stream's
    if (QCPGraph* median = m_plots.livePlot()->medianGraph(id))
        median->setName(m_views.legendLabel(id, label)); // as measured (an unpinned run's class is now known)
    if (auto window = m_traceWindows.extract(id); !window.empty() && !window.mapped().events.empty())
        row.traceWindow = std::make_shared<const TraceWindow>(std::move(window.mapped()));
    m_views.store().addRun(std::move(row));
    m_views.fitResultColumns();
    // A condition's A/B is the run's verdict: said under its figures and in the status bar.
    const QString ab = takeAbText(id);
    m_launcher.panel()->runEnded(tr("Done: median %1 per op in %2 s")
                                     .arg(QString::fromStdString(formatDuration(result->stats.p50)))
                                     .arg(result->seconds, 0, 'f', 1)
            + (ab.isEmpty() ? QString() : QLatin1Char('\n') + ab),
        true);
    showMessage(ab.isEmpty() ? tr("%1: median %2").arg(label, QString::fromStdString(formatDuration(result->stats.p50)))
                             : ab.section(QLatin1Char('\n'), 0, 0),
        ab.isEmpty() ? 15000 : 30000);
    m_launcher.runEnded(id, RunOutcome::Succeeded, QString());
}

void StreamRouter::onTraceEvents(quint64 id, std::shared_ptr<const protocol::TraceEventsEvent> part)
{
    // The lines come in time order, each after the one before (`first` counts on): one that
    // does not follow on, or belongs to no run of ours, is not drawn.
    TraceWindow& window = m_traceWindows[id];
    if (part->first != window.events.size() || part->window < part->first + part->events.size()) {
        m_traceWindows.erase(id);
        showMessage(tr("The traced run's events came out of order; its timeline is left out."), 10000);
        return;
    }
    if (window.events.empty())
        window.events.reserve(part->window);
    window.events.insert(window.events.end(), part->events.begin(), part->events.end());
    for (const auto& [pid, comm] : part->comms)
        window.comms.emplace(pid, comm);
    window.recorded = part->recorded;
}

void StreamRouter::markUnfinished(quint64 id, const QString& how)
{
    m_plots.livePlot()->finishRun(id);
    if (QCPGraph* median = m_plots.livePlot()->medianGraph(id))
        median->setName(median->name() + QStringLiteral(" (") + how + QLatin1Char(')'));
}

void StreamRouter::onRunFailed(quint64 id, const QString& message)
{
    takeAsIsRow(id); // a side as is measured before stays, a row of its own
    takeAbText(id);
    m_surveyRuns.erase(id);
    // A failed run has no result to name in a legend: the run panel and status bar say why.
    m_traceWindows.erase(id);
    m_plots.livePlot()->removeRun(id);
    m_launcher.panel()->runEnded(tr("Failed: %1").arg(message), false);
    showMessage(tr("The run failed: %1").arg(message), 20000);
    m_launcher.runEnded(id, RunOutcome::Failed, message);
}

void StreamRouter::onRunCancelled(quint64 id)
{
    takeAsIsRow(id);
    takeAbText(id);
    m_traceWindows.erase(id);
    m_surveyRuns.erase(id); // a cancelled survey makes no card: its runs were a part of it
    markUnfinished(id, tr("cancelled"));
    m_launcher.panel()->runEnded(tr("Cancelled."), false);
    showMessage(tr("The run was cancelled."), 10000);
    m_launcher.runEnded(id, RunOutcome::Cancelled, tr("cancelled"));
}

void StreamRouter::connectJobs()
{
    WorkerClient* c = m_launcher.controller();
    SessionStore& store = m_views.store();
    // A lesson run whole in the worker (its phases and conclusion: LessonController).
    connect(c, &WorkerClient::lessonFinished, this, [this](quint64 id, std::shared_ptr<const LessonResult>) {
        jobEnded(id, tr("Lesson done: its conclusion is in the lesson panel."));
    });
    connect(c, &WorkerClient::sweepPointAvailable, this,
        [this, c, &store](quint64 id, std::shared_ptr<const WorkingSetPoint> point) {
            auto it = m_liveSweeps.find(id);
            if (it == m_liveSweeps.end()) {
                auto sweep = std::make_shared<SweepCurves>();
                sweep->label = runLabel(point->roundTripRun) + QStringLiteral(" · ") + c->link().displayName();
                it = m_liveSweeps.emplace(id, store.addSweep(sweep)).first;
            }
            if (it->second >= store.sweeps().size()) { // the sweeps were cleared while it ran
                m_liveSweeps.erase(it);
                return;
            }
            auto grown = std::make_shared<SweepCurves>(*store.sweeps()[it->second]);
            grown->points.push_back(*point);
            store.replaceSweep(it->second, std::move(grown));
            m_launcher.status()->setRunProgress(
                tr("Sweep: W = %1 done").arg(QString::fromStdString(formatBytes(point->wsBytes))));
        });
    connect(c, &WorkerClient::sweepFinished, this,
        [this, &store](quint64 id, std::shared_ptr<const std::vector<CacheInfo>> caches) {
            if (const auto it = m_liveSweeps.find(id); it != m_liveSweeps.end()) {
                if (it->second < store.sweeps().size()) { // not cleared while it ran
                    auto done = std::make_shared<SweepCurves>(*store.sweeps()[it->second]);
                    done->caches = *caches;
                    store.replaceSweep(it->second, std::move(done));
                }
                m_liveSweeps.erase(it);
            }
            jobEnded(id, tr("Sweep done: the cost per switch for each working set is in the Working set tab."));
        });
    connect(c, &WorkerClient::surveyStepAvailable, this,
        [this](quint64 id, std::shared_ptr<const RunResult> result) { m_surveyRuns[id].push_back(*result); });
    connect(c, &WorkerClient::surveyFinished, this,
        [this](quint64 id, std::shared_ptr<const nlohmann::json> survey) { surveyEnded(id, *survey); });
    connect(c, &WorkerClient::matrixRunAvailable, this,
        [this](quint64 id, std::shared_ptr<const RunResult> result) { m_matrixRuns[id].push_back(*result); });
    connect(c, &WorkerClient::matrixAvailable, this,
        [this, c, &store](quint64 id, std::shared_ptr<const MatrixResult> measured) {
            auto matrix = std::make_shared<MatrixResult>(*measured);
            if (m_topology)
                fillFromClasses(*matrix, *m_topology);
            matrix->runs = std::move(m_matrixRuns[id]);
            m_matrixRuns.erase(id);
            for (ResultRow& row : m_views.rowsOf(matrix->runs)) {
                row.machine = serverName(); // its cells were measured where runs go
                store.addRun(std::move(row), tr("matrix"));
            }
            m_views.fitResultColumns();
            store.addMatrix(std::move(matrix), c->link().displayName());
            m_plots.showView(QStringLiteral("heatmap"));
            jobEnded(id, tr("Matrix done: hover a cell for its pair, click it to place the tasks there."));
        });
}

void StreamRouter::surveyEnded(quint64 id, const nlohmann::json& survey)
{
    WorkerClient* c = m_launcher.controller();
    std::vector<RunResult> runs = std::move(m_surveyRuns[id]);
    m_surveyRuns.erase(id);
    const nlohmann::json& context = c->workerContext();
    QString machine = c->link().displayName();
    if (!c->link().isRemote() && !c->workerHostName().isEmpty())
        machine = c->workerHostName();
    const QString label = tr("%1 survey %2").arg(machine, QTime::currentTime().toString(QStringLiteral("HH:mm:ss")));
    auto card = machineCardEntry(surveyCardJson(context, runs, survey), label);
    if (!card) {
        onRunFailed(
            id, tr("the survey's card could not be made: %1").arg(QString::fromStdString(card.error().message)));
        return;
    }
    m_views.store().addMachineCard(std::move(*card));
    jobEnded(id,
        tr("Survey done: %1 runs in the card \"%2\" (File → Compare machines… shows it).").arg(runs.size()).arg(label));
}

void StreamRouter::jobEnded(quint64 id, const QString& message)
{
    m_launcher.panel()->runEnded(message, true);
    showMessage(message, 15000);
    m_launcher.runEnded(id, RunOutcome::Succeeded, QString());
}

} // namespace ctxscope::gui
