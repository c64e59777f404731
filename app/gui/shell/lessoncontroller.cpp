// SPDX-License-Identifier: MIT
#include "lessoncontroller.h"

#include "timelinepage.h"

#include "runmenu.h"

#include "lessonpanel.h"
#include "lessonsession.h"
#include "lessonviews.h"
#include "plotsview.h"
#include "sessionstore.h"
#include "verdictcard.h"
#include "workerclient.h"

#include "ctxscope/events.h"
#include "ctxscope/lesson.h"
#include "ctxscope/units.h"

#include <QAction>
#include <QEvent>
#include <QMainWindow>
#include <QMenu>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTimer>

#include <algorithm>

namespace ctxscope::gui {

namespace {
QString qs(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
} // namespace

LessonController::LessonController(const Parts& parts)
    : QObject(parts.window)
    , m_parts(parts)
{
    m_parts.row->installEventFilter(this); // the lesson row is fitted again when the width changes
    connect(m_parts.panel, &LessonPanel::closeClicked, this, [this] { showPanel(false); });
    connect(this, &LessonController::finished, this, &LessonController::showLessonViews);
    // The panel shows the store's latest lesson: the one running, or a loaded session's.
    const auto show = [this](std::size_t i) {
        if (i < m_parts.store->lessons().size()) {
            const LessonRecord& lesson = m_parts.store->lessons()[i];
            m_parts.panel->text()->setHtml(lessonHtml(lesson));
            m_parts.card->setLesson(lesson, headlineOf(lesson));
        }
    };
    connect(m_parts.store, &SessionStore::lessonAdded, this, show);
    connect(m_parts.store, &SessionStore::lessonChanged, this, show);
}

std::optional<LessonHeadline> LessonController::headlineOf(const LessonRecord& lesson) const
{
    // The session's lesson that concluded here: a reopened one has only its sentences.
    if (m_lesson && m_lesson->isFinished() && lesson.id == m_lesson->info().id
        && lesson.conclusion == m_lesson->conclusion())
        return m_lesson->headline();
    return std::nullopt;
}

void LessonController::createMenu(QMenu* lessons)
{
    for (const LessonInfo& info : ctxscope::lessons()) {
        const QString id = qs(info.id);
        QAction* action = lessons->addAction(id + QStringLiteral(" — ") + qs(info.question));
        connect(action, &QAction::triggered, this, [this, id] {
            m_parts.launcher->whenConnected([this, id] {
                if (const Status s = start(id); !s)
                    m_parts.window->statusBar()->showMessage(QString::fromStdString(s.error().message), 15000);
            });
        });
    }
}

void LessonController::createViewAction(QMenu* view)
{
    m_panelAction = view->addAction(tr("&Lesson panel"));
    m_panelAction->setCheckable(true);
    m_panelAction->setToolTip(tr("The lesson's experiments and conclusion beside the plots"));
    connect(m_panelAction, &QAction::toggled, this, &LessonController::showPanel);
}

Status LessonController::start(const QString& id)
{
    const LessonInfo* info = findLesson(id.toStdString());
    if (!info) {
        QStringList known;
        for (const LessonInfo& l : lessons())
            known << qs(l.id);
        return makeError("unknown lesson '" + id.toStdString()
            + "' (lessons: " + known.join(QStringLiteral(", ")).toStdString() + ")");
    }
    const std::optional<Topology>& topology = *m_parts.topology;
    if (!topology || !m_parts.launcher->isLive())
        return makeError("a lesson measures the machine runs go to (this one, or a server connected over ssh), and the "
                         "topology shown is not it");
    if (m_parts.controller->isBusy() || (m_lesson && !m_lesson->isFinished()) || m_wholeJob)
        return makeError("a run is in progress: cancel it first (Esc)");
    if (info->wholeInWorker)
        return startWhole(*info);
    // On a server, the map is the topology its worker's hello gave; that worker checks each run.
    const PlanTopology from
        = m_parts.launcher->controller()->link().isRemote() ? PlanTopology::WorkersHello : PlanTopology::ThisMachine;
    auto steps = planLesson(info->id, *topology, RunBudget {}, from);
    if (!steps)
        return steps.error();
    if (m_lesson)
        m_lesson->deleteLater();
    m_lesson = new LessonSession(*m_parts.runs, *m_parts.store, *info, std::move(*steps), this);
    connect(m_lesson, &LessonSession::finished, this, [this](bool completed) {
        const QString done = m_presenting ? tr("Lesson done: its verdict is at the top, the rest under Details.")
                                          : tr("Lesson done: its conclusion is in the lesson panel.");
        m_parts.window->statusBar()->showMessage(
            completed ? done : tr("The lesson stopped before its conclusion."), 15000);
        emit finished(completed);
    });
    m_parts.panel->text()->setHtml(m_lesson->html());
    showPanel(true);
    // The last lesson's "Lesson done" would stay up while this one measures.
    m_parts.window->statusBar()->clearMessage();
    emit started();
    m_lesson->start();
    return {};
}

Status LessonController::startWhole(const LessonInfo& info)
{
    WorkerClient* controller = m_parts.launcher->controller();
    m_wholeJob = controller->startLesson(std::string(info.id), RunBudget {});
    if (!m_wholeJob)
        return makeError("a run is in progress: cancel it first (Esc)");
    if (m_lesson) { // the views of an earlier lesson are not this one's
        m_lesson->deleteLater();
        m_lesson = nullptr;
    }
    m_parts.window->statusBar()->clearMessage(); // not the last lesson's "Lesson done"
    emit started();
    LessonRecord begun;
    begun.id = std::string(info.id);
    m_wholeId = begun.id;
    m_wholeRecord = m_parts.store->addLesson(begun);
    showPanel(true);
    const quint64 job = *m_wholeJob;
    auto* scope = new QObject(this); // the connections of this lesson, gone with it
    connect(controller, &WorkerClient::lessonStepAvailable, scope,
        [this, job](quint64 id, std::shared_ptr<const protocol::LessonStepEvent> step) {
            if (id != job || !wholeRecordIsOurs())
                return;
            LessonRecord record = m_parts.store->lessons()[m_wholeRecord];
            std::string outcome = step->error.empty() ? std::string() : "failed: " + step->error;
            if (const auto& phase = step->phase; phase && outcome.empty()) {
                const auto mean = [](const std::vector<double>& v) {
                    double sum = 0;
                    for (double x : v)
                        sum += x;
                    return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
                };
                outcome = formatCount(mean(phase->workPerS)) + " " + phase->unit + "/s, "
                    + formatCount(mean(phase->switchesPerS)) + " switches/s";
                if (!phase->runqueueWaitPerS.empty())
                    outcome += ", run-queue wait " + formatCount(mean(phase->runqueueWaitPerS) * 1000) + " ms/s";
            }
            record.steps.push_back({ step->label, outcome });
            m_parts.store->replaceLesson(m_wholeRecord, std::move(record));
            m_parts.window->statusBar()->showMessage(
                tr("Lesson: phase %1 of %2 done").arg(step->step + 1).arg(step->steps), 5000);
        });
    connect(controller, &WorkerClient::lessonFinished, scope,
        [this, job, scope](quint64 id, std::shared_ptr<const LessonResult> lesson) {
            if (id != job)
                return;
            scope->deleteLater();
            std::vector<std::string> conclusion = lesson->conclusion;
            conclusion.insert(conclusion.end(), lesson->notes.begin(), lesson->notes.end());
            wholeEnded(true, conclusion, {});
        });
    connect(controller, &WorkerClient::runFailed, scope, [this, job, scope](quint64 id, const QString& message) {
        if (id != job)
            return;
        scope->deleteLater();
        wholeEnded(false, {}, message);
    });
    connect(controller, &WorkerClient::runCancelled, scope, [this, job, scope](quint64 id) {
        if (id != job)
            return;
        scope->deleteLater();
        wholeEnded(false, {}, tr("cancelled"));
    });
    return {};
}

bool LessonController::wholeRecordIsOurs() const
{
    const auto& lessons = m_parts.store->lessons();
    return m_wholeRecord < lessons.size() && !lessons[m_wholeRecord].finished && lessons[m_wholeRecord].id == m_wholeId;
}

void LessonController::wholeEnded(bool completed, const std::vector<std::string>& conclusion, const QString& why)
{
    m_wholeJob.reset(); // StreamRouter ends the job in the run panel and status bar, as a sweep's
    if (!wholeRecordIsOurs()) { // a session opened or cleared meanwhile: nothing of ours to update
        emit finished(completed);
        return;
    }
    LessonRecord record = m_parts.store->lessons()[m_wholeRecord];
    record.conclusion = conclusion;
    record.finished = true;
    if (!why.isEmpty())
        record.steps.push_back({ tr("the lesson").toStdString(), why.toStdString() });
    m_parts.store->replaceLesson(m_wholeRecord, std::move(record));
    if (!completed)
        m_parts.window->statusBar()->showMessage(tr("The lesson stopped before its conclusion."), 15000);
    emit finished(completed);
}

void LessonController::showLessonViews()
{
    if (!m_lesson)
        return; // none, or a whole lesson (live-placement): its figures are in the panel
    const std::string_view id = m_lesson->info().id;
    const std::optional<Topology>& topology = *m_parts.topology;
    for (auto& sweep : lessonSweeps(id, m_lesson->results(), topology ? topology->caches() : std::vector<CacheInfo> {}))
        m_parts.store->addSweep(std::move(sweep));
    m_parts.plots->showView(gui::lessonView(id));
    // Inside a switch: the hand-over across CPUs, its longest step under the ruler.
    if (gui::lessonView(id) == QStringLiteral("timeline"))
        m_parts.plots->timelinePage()->showTypicalHandover();
}

void LessonController::showPanel(bool show)
{
    if (m_panelAction) {
        const QSignalBlocker quiet(m_panelAction);
        m_panelAction->setChecked(show);
    }
    m_lessonShown = show;
    if (m_presenting) {
        m_parts.card->setVisible(show);
        return;
    }
    LessonPanel* panel = m_parts.panel;
    if (show == !panel->isHidden())
        return;
    if (!show) {
        panel->hide();
        if (!m_sizesBefore.isEmpty())
            m_parts.row->setSizes(m_sizesBefore); // the map comes back as it was
        return;
    }
    m_sizesBefore = m_parts.row->sizes();
    panel->show();
    // The splitter lays out a child it is shown only after this returns: size it then.
    QTimer::singleShot(0, this, &LessonController::fitRow);
}

void LessonController::setPresenting(bool on)
{
    if (on == m_presenting)
        return;
    QSplitter* row = m_parts.row;
    const bool shown = m_lessonShown;
    if (on) {
        showPanel(false); // the row as it was before the lesson, kept for leaving
        m_sizesBeforePresenting = row->sizes();
        m_handleBefore = row->handleWidth();
        row->setHandleWidth(14); // a handle a lecturer can find and drag, not a 3-pixel line
    }
    m_presenting = on;
    if (on) {
        showPanel(shown);
        QTimer::singleShot(0, this, &LessonController::fitPresentingRow);
        return;
    }
    m_parts.card->hide();
    // "Lesson done: its verdict is at the top" no longer is.
    m_parts.window->statusBar()->clearMessage();
    row->setHandleWidth(m_handleBefore);
    row->setSizes(m_sizesBeforePresenting);
    showPanel(shown);
    // Once the window is back to its own size (full screen ends after this returns): fitted at
    // the screen's width, the row kept a map and a lesson too wide for the plots.
    if (shown)
        QTimer::singleShot(100, this, &LessonController::fitRow);
}

void LessonController::fitPresentingRow()
{
    if (!m_presenting)
        return;
    // The map beside the plot at 1280 and at 1920: a third of the row (what it needs to draw its
    // boxes, up to two fifths), the plot the rest (at 1280, about 800 pixels: its labels apart).
    const int total = m_parts.row->width();
    const int map = std::min(std::max(m_parts.map->minimumSizeHint().width(), total / 3), total * 2 / 5);
    m_parts.row->setSizes({ map, std::max(0, total - map), 0 });
}

void LessonController::fitRow()
{
    if (m_parts.panel->isHidden())
        return;
    // The explanation gets about 30% of the row and the plots at least 45% (450 pixels at the
    // least): they are what the room reads. The map takes what is left, up to the width it had,
    // or folds away where that is less than it needs (its splitter handle brings it back).
    // Without its two handles: sizes that add up to more than the room made the splitter fold
    // the plots, the view the lesson is about.
    const int total = m_parts.row->width() - 2 * m_parts.row->handleWidth();
    int lesson = std::max(m_parts.panel->minimumWidth(), total * 3 / 10);
    int plots = std::max(450, total * 45 / 100);
    int left = total - lesson - plots;
    const int mapMin
        = m_parts.map->minimumWidth() > 0 ? m_parts.map->minimumWidth() : m_parts.map->minimumSizeHint().width();
    // A 1280 window with the run panel docked: the explanation and the plots give way down to
    // their least before the map folds away (the map is where the lesson's PUs are shown).
    constexpr int kLeastPlots = 360; // the plots' least width (MainWindow)
    if (left < mapMin && total - m_parts.panel->minimumWidth() - kLeastPlots >= mapMin) {
        const int fromLesson = std::min(mapMin - left, lesson - m_parts.panel->minimumWidth());
        lesson -= fromLesson;
        plots -= mapMin - left - fromLesson;
        left = total - lesson - plots;
    }
    const int map = left < mapMin ? 0 : std::min(left, std::max(mapMin, m_sizesBefore.value(0)));
    m_parts.row->setSizes({ map, std::max(0, total - map - lesson), lesson });
}

bool LessonController::eventFilter(QObject* watched, QEvent* event)
{
    // A new window width (full screen, a resize) while a lesson is open: fit the row again
    // once the splitter has laid out its children.
    if (watched == m_parts.row && event->type() == QEvent::Resize && !m_parts.panel->isHidden())
        QTimer::singleShot(0, this, &LessonController::fitRow);
    if (watched == m_parts.row && event->type() == QEvent::Resize && m_presenting)
        QTimer::singleShot(0, this, &LessonController::fitPresentingRow);
    return QObject::eventFilter(watched, event);
}

} // namespace ctxscope::gui
