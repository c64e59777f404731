// SPDX-License-Identifier: MIT
// MainWindow: running a lesson and showing what it concludes.
#include "mainwindow.h"

#include "lessonsession.h"

#include <QStatusBar>
#include <QTextBrowser>

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
    auto steps = planLesson(info->id, *m_topology, LessonOptions {});
    if (!steps)
        return steps.error();
    if (m_lesson)
        m_lesson->deleteLater();
    m_lesson = new LessonSession(*this, *info, std::move(*steps), this);
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

} // namespace ctxscope::gui
