// SPDX-License-Identifier: MIT
#include "runmenu.h"

#include "guiaffinity.h"
#include "plotsview.h"
#include "runbroker.h"
#include "runpanel.h"
#include "sessionviews.h"
#include "statuspanel.h"
#include "streamrouter.h"
#include "switchratemeter.h"
#include "topologymapwidget.h"

#include "ctxscope/results_file.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QStatusBar>

namespace ctxscope::gui {

RunMenu::RunMenu(const Parts& parts)
    : QObject(parts.window)
    , m_parts(parts)
    , m_controller(new WorkerClient(this))
    , m_coordinator(new RunBroker(this))
    , m_affinity(std::make_unique<GuiAffinity>())
    , m_meter(new SwitchRateMeter(this))
{
    m_controller->setWorkerCpus(m_affinity->original());
    m_coordinator->setStarter([this](const BenchSpec& spec, bool traced) {
        // A lesson's step under a condition is that side only: the lesson has its side as is.
        return startSpec(spec, traced && m_controller->mayTrace().value_or(true), false);
    });
    m_stream = new StreamRouter(*this, *parts.plots, *parts.views, *parts.topology);
    connect(m_meter, &SwitchRateMeter::rateAvailable, m_parts.status,
        [status = m_parts.status](double rate) { status->setSwitchRate(rate); });
    connect(m_parts.panel, &RunPanel::specChanged, this, &RunMenu::updateActions);
    connectWorker();
}

RunMenu::~RunMenu() = default;

void RunMenu::connectWorker()
{
    // Queued, like the stream: the status bar hears of the worker from the event loop.
    constexpr auto queued = Qt::QueuedConnection;
    WorkerClient* c = m_controller;
    connect(
        c, &WorkerClient::stateChanged, this,
        [this](WorkerClient::State state) {
            m_parts.status->setWorkerState(state, m_workerDescription);
            // The worker's hello says whether it may trace; a new worker (another machine) says again.
            m_parts.panel->setTracingRefusal(m_controller->tracingRefusal());
            m_parts.panel->setBpfRefusal(m_controller->bpfRefusal());
            // and whether it has idle states to hold shallow (unknown before its hello)
            const auto context = m_controller->workerContext().is_object()
                ? reportContextFromJson(m_controller->workerContext())
                : Expected<ReportContext>(makeError("no hello yet"));
            m_parts.panel->setIdleStates(context ? context->idleStates : -1);
            updateActions();
        },
        queued);
    connect(
        c, &WorkerClient::workerReady, this, [this](const QString& description) { m_workerDescription = description; },
        queued);
    connect(
        c, &WorkerClient::workerFailed, this, [this](const QString& message) { showMessage(message, 15000); }, queued);
    connect(
        c, &WorkerClient::protocolError, this, [this](const QString& message) { showMessage(message, 15000); }, queued);
}

void RunMenu::createActions(QMenu* run)
{
    m_runAction = run->addAction(tr("&Run"));
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setEnabled(false); // enabled once a live topology is shown and the spec is complete
    m_cancelAction = run->addAction(tr("&Cancel"));
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setEnabled(false);
    run->addSeparator();
    QAction* restart = run->addAction(tr("Restart the &worker"));
    restart->setToolTip(tr("Stop the measuring process and start a new one"));
    connect(m_runAction, &QAction::triggered, this, [this] { whenConnected([this] { (void)startRun(); }); });
    connect(m_cancelAction, &QAction::triggered, m_controller, &WorkerClient::cancel);
    connect(restart, &QAction::triggered, this, [this] {
        m_controller->stopWorker();
        m_controller->startWorker();
    });
    m_parts.panel->setActions(m_runAction, m_cancelAction);

    QAction* sweep = run->addAction(tr("S&weep the working set"), this, [this] {
        whenConnected([this] {
            auto spec = m_parts.panel->spec();
            if (!spec) {
                showMessage(QString::fromStdString(spec.error().message), 10000);
                return;
            }
            SweepSpec sweepSpec;
            sweepSpec.base = *spec;
            (void)startSweep(sweepSpec);
        });
    });
    sweep->setToolTip(tr("The run panel's benchmark and placement with each task touching 0 B up to 4x the "
                         "last-level cache, or as far as the points fit in under a minute"));
    sweep->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    QAction* matrix = run->addAction(tr("Measure the placement &matrix"), this, [this] {
        whenConnected([this] {
            auto spec = m_parts.panel->spec();
            const std::string bench = spec ? spec->bench : std::string("futex");
            (void)startMatrix(bench, spec ? spec->mode : BenchMode::Thread, MatrixMode::Classes, RunBudget {});
        });
    });
    matrix->setToolTip(tr("One pair of PUs per relation class measured, every other pair filled from its class"));
    matrix->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    run->addSeparator();
}

bool RunMenu::isLive() const
{
    if (!*m_parts.topology)
        return false;
    // Over ssh only the server's own topology (from its worker's hello) is measured; locally
    // only this machine's.
    return m_controller->link().isRemote() ? m_showsServer : (*m_parts.topology)->isThisSystem();
}

bool RunMenu::needsConnection() const
{
    const WorkerClient::State state = m_controller->state();
    return m_controller->link().isRemote() && m_showsServer
        && (state == WorkerClient::State::Stopped || state == WorkerClient::State::Dead);
}

void RunMenu::whenConnected(std::function<void()> action)
{
    if (m_gate)
        m_gate(std::move(action));
    else
        action();
}

bool RunMenu::refuseUnconnected()
{
    // Never a silent ssh login behind the user's back: a lesson or script that meets a dropped
    // connection stops here; the Run action asks first (whenConnected).
    if (!needsConnection())
        return false;
    showMessage(tr("%1 is not connected: Run offers to reconnect, or use File → Connect to a machine.")
                    .arg(m_controller->link().destination),
        15000);
    return true;
}

void RunMenu::showMessage(const QString& message, int ms) const
{
    m_parts.window->statusBar()->showMessage(message, ms);
}

void RunMenu::updateActions()
{
    if (!m_runAction)
        return;
    const bool live = isLive();
    const bool busy = m_controller->isBusy();
    const auto spec = m_parts.panel->spec();
    m_runAction->setEnabled(live && !busy && spec.ok());
    m_runAction->setToolTip(!live ? tr("Runs are disabled: the topology shown is not the machine they go to")
            : !spec.ok()          ? QString::fromStdString(spec.error().message)
                                  : tr("Run the benchmark (Ctrl+R)"));
    m_cancelAction->setEnabled(busy);
}

QString RunMenu::traceFileOf(quint64 id) const
{
    const auto it = m_traceFiles.find(id);
    return it != m_traceFiles.end() && QFileInfo::exists(it->second) ? it->second : QString();
}

std::optional<quint64> RunMenu::startRun()
{
    if (!isLive()) {
        showMessage(tr("Runs are disabled: the topology shown is not the machine they go to."), 10000);
        return std::nullopt;
    }
    auto spec = m_parts.panel->spec();
    if (!spec) {
        showMessage(QString::fromStdString(spec.error().message), 10000);
        return std::nullopt;
    }
    return startSpec(*spec, m_parts.panel->traced(), true, m_parts.panel->traceBackend());
}

std::optional<quint64> RunMenu::startSpec(const BenchSpec& spec, bool traced, bool asIsFirst, TraceBackend backend)
{
    if (!isLive() || refuseUnconnected())
        return std::nullopt;
    const Topology& topology = **m_parts.topology;
    const std::vector<int> measured = RunPanel::measuredCpus(spec, topology);
    const bool unpinned = spec.relation == Relation::Unpinned;
    keepAppOff(measured, unpinned);
    std::optional<protocol::RunTrace> trace;
    if (traced) {
        trace = protocol::RunTrace {};
        trace->backend = backend;
        // On this machine the worker also writes the whole recording, for File -> Export trace
        // (one recorded with its events: cut in the kernel, a run keeps none).
        if (!m_controller->link().isRemote() && backend == TraceBackend::Ftrace) {
            if (!m_traceDir)
                m_traceDir
                    = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/ctxscope-traces-XXXXXX"));
            if (m_traceDir->isValid())
                trace->out
                    = m_traceDir->filePath(QStringLiteral("run-%1.dat").arg(m_traceFiles.size() + 1)).toStdString();
        }
    }
    const auto id = m_controller->start(spec, trace, asIsFirst);
    if (id && trace && !trace->out.empty())
        m_traceFiles[*id] = QString::fromStdString(trace->out);
    if (!id) {
        showMessage(tr("A run is in progress: cancel it first (Esc)."), 10000);
        return std::nullopt;
    }
    m_parts.views->assignColor(*id);
    // The map shows where the run's tasks are, whichever way they were placed.
    std::vector<int> shown = spec.cpus;
    if (shown.empty() && measured.size() == 1) {
        const BenchInfo* info = findBenchmark(spec.bench);
        const int tasks = spec.tasks > 0 ? spec.tasks : info ? info->defaultTasks : 1;
        shown.assign(static_cast<std::size_t>(tasks), measured[0]);
    } else if (shown.empty()) {
        shown = measured;
    }
    m_parts.map->showPlacement(shown); // a one-task run keeps B for the next
    updateActions();
    return id;
}

std::optional<quint64> RunMenu::startSweep(const SweepSpec& spec)
{
    if (!isLive() || refuseUnconnected())
        return std::nullopt;
    const std::vector<int> measured = RunPanel::measuredCpus(spec.base, **m_parts.topology);
    keepAppOff(measured, false);
    return jobStarted(m_controller->startSweep(spec), QStringLiteral("working-set"), tr("Sweeping the working set…"));
}

std::optional<quint64> RunMenu::startMatrix(
    const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options)
{
    if (!isLive() || refuseUnconnected())
        return std::nullopt;
    // Every PU is measured in turn: the app's threads cannot keep off them all.
    m_parts.status->setAffinityNote(m_affinity->shareAll(), true);
    return jobStarted(
        m_controller->startMatrix(bench, mode, fill, options), QStringLiteral("heatmap"), tr("Measuring the matrix…"));
}

std::optional<quint64> RunMenu::startSurvey(double budgetSeconds)
{
    if (!isLive() || refuseUnconnected())
        return std::nullopt;
    // A pair of every class and unpinned runs: the app's threads cannot keep off them all.
    keepAppOff({}, true);
    return jobStarted(m_controller->startSurvey(budgetSeconds), QString(), tr("Surveying the machine…"));
}

void RunMenu::keepAppOff(const std::vector<int>& measured, bool unpinned)
{
    if (m_controller->link().isRemote()) {
        // The CPUs are the server's: this app's threads share none of them (no caution tone;
        // short, so the status bar keeps room for the run's own message).
        m_parts.status->setAffinityNote(tr("This app is not on %1").arg(m_controller->link().destination), false);
        return;
    }
    const QString note = unpinned ? m_affinity->shareAll() : m_affinity->keepOff(measured);
    m_parts.status->setAffinityNote(note, unpinned || m_affinity->current() == m_affinity->original());
}

std::optional<quint64> RunMenu::jobStarted(std::optional<quint64> id, const QString& view, const QString& progress)
{
    if (!id) {
        showMessage(tr("A run is in progress: cancel it first (Esc)."), 10000);
        return std::nullopt;
    }
    m_parts.plots->showView(view); // the view fills as the job measures
    m_parts.panel->runStarted();
    m_parts.status->setRunProgress(progress);
    updateActions();
    return id;
}

void RunMenu::runBegan()
{
    // The system's switch rate is this machine's /proc/stat: said only of runs measured here.
    if (!m_controller->link().isRemote())
        m_meter->start();
    updateActions();
}

void RunMenu::runEnded(quint64 id, RunOutcome outcome, const QString& message)
{
    m_affinity->restore();
    m_parts.status->setSwitchRateOfRun(m_controller->link().isRemote() ? std::nullopt : m_meter->stop());
    m_parts.status->setRunProgress(QString());
    updateActions();
    m_coordinator->reportFinished(id, outcome, message);
}

} // namespace ctxscope::gui
