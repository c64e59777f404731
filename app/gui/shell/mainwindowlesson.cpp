// SPDX-License-Identifier: MIT
// MainWindow: running a lesson, the lesson panel beside the plots, and the View menu.
#include "mainwindow.h"

#include "lessonpanel.h"
#include "lessonsession.h"
#include "lookcontroller.h"
#include "plotsview.h"
#include "runcoordinator.h"
#include "sessionstore.h"
#include "topologymappanel.h"

#include <QAction>
#include <QEvent>
#include <QMenu>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>

#include <algorithm>

namespace ctxscope::gui {

Status MainWindow::startLesson(const QString& id)
{
    const LessonInfo* info = findLesson(id.toStdString());
    if (!info) {
        QStringList known;
        for (const LessonInfo& l : lessons())
            known << QString::fromUtf8(l.id.data(), static_cast<qsizetype>(l.id.size()));
        return makeError("unknown lesson '" + id.toStdString()
            + "' (lessons: " + known.join(QStringLiteral(", ")).toStdString() + ")");
    }
    if (!m_topology || !m_topology->isThisSystem())
        return makeError("a lesson measures this machine, and the topology shown is not it");
    if (m_controller->isBusy() || (m_lesson && !m_lesson->isFinished()))
        return makeError("a run is in progress: cancel it first (Esc)");
    auto steps = planLesson(info->id, *m_topology, RunBudget {});
    if (!steps)
        return steps.error();
    if (m_lesson)
        m_lesson->deleteLater();
    m_lesson = new LessonSession(*m_runs, *m_store, *info, std::move(*steps), this);
    connect(m_lesson, &LessonSession::changed, this, [this, lesson = m_lesson] {
        if (lesson == m_lesson)
            m_lessonView->setHtml(lesson->html());
    });
    connect(m_lesson, &LessonSession::finished, this, [this](bool completed) {
        statusBar()->showMessage(completed ? tr("Lesson done: its conclusion is in the lesson panel.")
                                           : tr("The lesson stopped before its conclusion."),
            15000);
        emit lessonFinished(completed);
    });
    m_lessonView->setHtml(m_lesson->html());
    showLessonPanel(true);
    m_lesson->start();
    return {};
}

void MainWindow::createViewActions(QMenu* view)
{
    m_look = new LookController(*this, *m_mapPanel->map(), *m_table);
    m_look->createActions(view);
    m_lessonPanelAction = view->addAction(tr("&Lesson panel"));
    m_lessonPanelAction->setCheckable(true);
    m_lessonPanelAction->setToolTip(tr("The lesson's experiments and conclusion beside the plots"));
    connect(m_lessonPanelAction, &QAction::toggled, this, &MainWindow::showLessonPanel);
    connect(m_lessonPanel, &LessonPanel::closeClicked, this, [this] { showLessonPanel(false); });
    view->addSeparator();
    for (const QString& name : PlotsView::viewNames())
        view->addAction(tr("Show %1").arg(name), this, [this, name] { m_plots->showView(name); });
}

void MainWindow::setPresentationMode(bool on) { m_look->setPresentationMode(on); }

bool MainWindow::isPresenting() const { return m_look->isPresenting(); }

void MainWindow::setDarkPalette(bool dark) { m_look->setDarkPalette(dark); }

void MainWindow::showLessonPanel(bool show)
{
    {
        const QSignalBlocker quiet(m_lessonPanelAction);
        m_lessonPanelAction->setChecked(show);
    }
    if (show == !m_lessonPanel->isHidden())
        return;
    if (!show) {
        m_lessonPanel->hide();
        if (!m_sizesBeforeLesson.isEmpty())
            m_topSplitter->setSizes(m_sizesBeforeLesson); // the map comes back as it was
        return;
    }
    m_sizesBeforeLesson = m_topSplitter->sizes();
    m_lessonPanel->show();
    // The splitter lays out a child it is shown only after this returns: size it then.
    QTimer::singleShot(0, this, &MainWindow::fitLessonRow);
}

void MainWindow::fitLessonRow()
{
    if (m_lessonPanel->isHidden())
        return;
    // The explanation gets about 30% of the row and the plots at least 45% (450 pixels at the
    // least): they are what the room reads. The map takes what is left, up to the width it had,
    // or folds away where that is less than it needs (its splitter handle brings it back).
    const int total = m_topSplitter->width();
    const int lesson = std::max(m_lessonPanel->minimumWidth(), total * 3 / 10);
    const int plots = std::max(450, total * 45 / 100);
    const int left = total - lesson - plots;
    const int mapMin = m_tabs->minimumSizeHint().width();
    const int map = left < mapMin ? 0 : std::min(left, std::max(mapMin, m_sizesBeforeLesson.value(0)));
    m_topSplitter->setSizes({ map, std::max(0, total - map - lesson), lesson });
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    // A new window width (full screen, a resize) while a lesson is open: fit the row again
    // once the splitter has laid out its children.
    if (watched == m_topSplitter && event->type() == QEvent::Resize && !m_lessonPanel->isHidden())
        QTimer::singleShot(0, this, &MainWindow::fitLessonRow);
    return QMainWindow::eventFilter(watched, event);
}

} // namespace ctxscope::gui
