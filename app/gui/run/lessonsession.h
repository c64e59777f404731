// SPDX-License-Identifier: MIT
#pragma once

#include "runoutcome.h"

#include "ctxscope/lesson.h"

#include <QObject>
#include <QString>

#include <optional>
#include <vector>

namespace ctxscope::gui {

class RunBroker;
class SessionStore;
struct LessonRecord;

// A lesson as the panel shows it: the question, each experiment with its outcome, and the
// conclusion once there is one (a loaded session's lessons too).
QString lessonHtml(const LessonRecord& lesson);

// A lesson (docs/user-guide.md, "Lessons in the app"): the engine plans its experiments for this machine, each
// runs through the worker like any run (a row and curves each), and the engine computes the
// conclusion from the results. A cancelled or failed step is recorded; cancel ends the lesson.
// What it has found so far is a LessonRecord in the session store, saved with the session.
class LessonSession : public QObject {
    Q_OBJECT
public:
    LessonSession(RunBroker& runs, SessionStore& store, const LessonInfo& info, std::vector<LessonStep> steps,
        QObject* parent = nullptr);

    void start();
    bool isFinished() const { return m_finished; }
    // The question, each step with its outcome, and the conclusion once there is one.
    QString html() const;
    const std::vector<std::string>& conclusion() const { return m_conclusion; }
    // The conclusion in one line (lessonHeadline) once there is one; none for a lesson without.
    const std::optional<LessonHeadline>& headline() const { return m_headline; }
    const LessonInfo& info() const { return m_info; }
    const std::vector<RunResult>& results() const { return m_results; } // of the steps that finished

signals:
    void changed();
    void finished(bool completed); // completed: every step was tried and a conclusion drawn

private:
    void next();
    void runFinished(quint64 id, RunOutcome outcome, const QString& message);
    void finish(bool completed);
    LessonRecord record() const;
    void changedNow(); // into the store, then changed()

    RunBroker& m_runs;
    SessionStore& m_store;
    std::optional<std::size_t> m_stored; // its index in the store's lessons
    LessonInfo m_info;
    std::vector<LessonStep> m_steps;
    std::vector<QString> m_outcomes; // per step: empty until it ran
    std::size_t m_next = 0;
    std::optional<quint64> m_waiting;
    std::vector<RunResult> m_results;
    std::vector<std::string> m_conclusion;
    std::optional<LessonHeadline> m_headline;
    bool m_finished = false;
};

} // namespace ctxscope::gui
