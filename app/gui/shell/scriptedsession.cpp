// SPDX-License-Identifier: MIT
#include "scriptedsession.h"

#include "lessoncontroller.h"
#include "plotsview.h"
#include "programscontroller.h"
#include "runbroker.h"
#include "runmenu.h"
#include "runpanel.h"
#include "timelinepage.h"
#include "topologymapwidget.h"
#include "workerclient.h"

#include <QCheckBox>
#include <QTimer>

#include <cstdio>

namespace ctxscope::gui {

namespace {
// Long enough for the throttled redraw (33 ms) and the queued replot after it.
constexpr int kSettleMs = 300;
} // namespace

ScriptedSession::ScriptedSession(RunMenu& launcher, LessonController& lessons, PlotsView& plots, QWidget& window,
    std::vector<ScriptedRun> runs, QObject* parent)
    : QObject(parent)
    , m_launcher(launcher)
    , m_lessonController(lessons)
    , m_plots(plots)
    , m_window(window)
    , m_runs(std::move(runs))
{
    connect(m_launcher.coordinator(), &RunBroker::runFinished, this, &ScriptedSession::runFinished);
    connect(&m_lessonController, &LessonController::finished, this, [this](bool completed) {
        if (m_nextLesson == 0)
            return; // none of ours
        if (!completed) {
            std::fprintf(stderr, "ctxscope: the lesson %s stopped before its conclusion\n",
                qPrintable(m_lessons[m_nextLesson - 1]));
            m_exitCode = 1;
        }
        QTimer::singleShot(kSettleMs, this, &ScriptedSession::startNext); // another lesson or a watch may follow
    });
}

void ScriptedSession::start() { QTimer::singleShot(0, this, &ScriptedSession::startNext); }

void ScriptedSession::startNext()
{
    if (m_next >= m_runs.size()) {
        if (m_nextLesson < m_lessons.size())
            startLesson();
        else if (m_programs && !m_watchStarted)
            startWatch();
        else
            QTimer::singleShot(kSettleMs, this, &ScriptedSession::finish);
        return;
    }
    const ScriptedRun& run = m_runs[m_next];
    WorkerClient* controller = m_launcher.controller();
    if (run.traced && controller->state() != WorkerClient::State::Idle) {
        // Whether the worker may trace is in its hello: the run starts once it is in (queued:
        // after the run panel has heard it too).
        connect(controller, &WorkerClient::workerReady, this, &ScriptedSession::startNext,
            static_cast<Qt::ConnectionType>(Qt::QueuedConnection | Qt::SingleShotConnection));
        controller->startWorker();
        return;
    }
    ++m_next;
    RunPanel* panel = m_launcher.panel();
    panel->setBenchmark(run.bench);
    if (run.mode && !panel->setMode(*run.mode))
        std::fprintf(stderr, "ctxscope: %s has no process mode; running threads\n", qPrintable(run.bench));
    if (!run.cpus.empty()) {
        if (const Status placed = m_launcher.map()->setSelection(run.cpus); !placed) {
            std::fprintf(stderr, "ctxscope: --cpus: %s\n", placed.error().message.c_str());
            m_exitCode = 2;
            finish();
            return;
        }
        panel->usePlacement(RunPanel::PlacementKind::Map);
    }
    panel->setTraced(run.traced);
    if (run.traced && !panel->traced()) {
        std::fprintf(stderr, "ctxscope: --trace: %s\n", qPrintable(panel->traceSwitch()->toolTip()));
        m_exitCode = 2;
        finish();
        return;
    }
    if (run.traced) {
        panel->setTraceBackend(run.traceBackend);
        if (panel->traceBackend() != run.traceBackend) { // the worker does not allow it
            const QString why
                = run.traceBackend == TraceBackend::Bpf ? controller->bpfRefusal() : controller->tracingRefusal();
            std::fprintf(
                stderr, "ctxscope: --trace-backend %s: %s\n", toString(run.traceBackend).data(), qPrintable(why));
            m_exitCode = 2;
            finish();
            return;
        }
    }
    panel->keepAwakeSwitch()->setChecked(run.keepAwake);
    if (run.keepAwake && !panel->keepAwakeSwitch()->isEnabled()) {
        std::fprintf(stderr, "ctxscope: --keep-awake: %s\n", qPrintable(panel->keepAwakeSwitch()->toolTip()));
        m_exitCode = 2;
        finish();
        return;
    }
    m_waitingFor = m_launcher.startRun();
    if (!m_waitingFor) {
        const auto spec = panel->spec();
        std::fprintf(stderr, "ctxscope: --run %s: %s\n", qPrintable(run.bench),
            spec ? "the run could not start (see the status bar)" : spec.error().message.c_str());
        m_exitCode = 1;
        finish();
    }
}

void ScriptedSession::startLesson()
{
    const QString& lesson = m_lessons[m_nextLesson++];
    if (const Status started = m_lessonController.start(lesson); !started) {
        std::fprintf(stderr, "ctxscope: --lesson: %s\n", started.error().message.c_str());
        m_exitCode = 2;
        finish();
    }
}

void ScriptedSession::setWatch(ProgramsController* programs, long pid, double seconds)
{
    m_programs = programs;
    m_watchPid = pid;
    m_watchSeconds = seconds;
}

void ScriptedSession::startWatch()
{
    m_watchStarted = true;
    ProgramWatch* watch = m_programs->watchData();
    connect(watch, &ProgramWatch::sampleAdded, this, [this, watch] {
        if (m_programs && watch->lastSeconds() >= m_watchSeconds) {
            m_programs = nullptr; // once
            QTimer::singleShot(kSettleMs, this, &ScriptedSession::finish);
        }
    });
    connect(m_programs, &ProgramsController::watchEnded, this, [this](const QString& why) {
        if (!m_programs)
            return;
        std::fprintf(stderr, "ctxscope: --watch: %s\n", qPrintable(why.isEmpty() ? tr("the watch ended") : why));
        m_programs = nullptr;
        m_exitCode = 1;
        finish();
    });
    connect(m_programs, &ProgramsController::failed, this, [this](const QString& message) {
        if (!m_programs)
            return;
        std::fprintf(stderr, "ctxscope: --watch: %s\n", qPrintable(message));
        m_programs = nullptr;
        m_exitCode = 1;
        finish();
    });
    m_programs->watch(m_watchPid);
}

void ScriptedSession::runFinished(quint64 id, RunOutcome outcome, const QString& message)
{
    if (m_waitingFor != id)
        return;
    m_waitingFor.reset();
    if (outcome != RunOutcome::Succeeded) {
        std::fprintf(stderr, "ctxscope: the run failed: %s\n", qPrintable(message));
        m_exitCode = 1;
    }
    startNext();
}

void ScriptedSession::finish()
{
    if (!m_view.isEmpty())
        m_plots.showView(m_view);
    // The timeline opens on a typical hand-over across CPUs, not on the whole recording's smear.
    if (m_view == QStringLiteral("timeline"))
        m_plots.timelinePage()->showTypicalHandover();
    // One more settle for a tab that was just shown: it lays out and replots on show.
    QTimer::singleShot(m_view.isEmpty() ? 0 : kSettleMs, this, [this] {
        if (!m_screenshot.isEmpty() && !m_window.grab().save(m_screenshot)) {
            std::fprintf(stderr, "ctxscope: could not save the screenshot to %s\n", qPrintable(m_screenshot));
            m_exitCode = 1;
        }
        emit finished(m_exitCode);
    });
}

} // namespace ctxscope::gui
