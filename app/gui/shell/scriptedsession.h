// SPDX-License-Identifier: MIT
#pragma once

#include "runoutcome.h"

#include "ctxscope/bench.h"
#include "ctxscope/traced_run.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

namespace ctxscope::gui {

class LessonController;
class PlotsView;
class ProgramsController;
class RunMenu;

// One run asked for on the command line: `--run futex --cpus 0,0 --mode thread`.
struct ScriptedRun {
    QString bench;
    std::optional<BenchMode> mode;
    std::vector<int> cpus; // empty: the placement chosen in the run panel
    bool traced = false; // --trace: "Trace the scheduler" checked for it
    bool keepAwake = false; // --keep-awake: "Keep the other CPU awake" checked for it
    TraceBackend traceBackend = TraceBackend::Ftrace; // --trace-backend: the run panel's "Traced:"
};

// What the command line asked for, in order: the runs one after the other, a lesson, a
// running program's watch, then a screenshot once the last result is drawn, then quitting. Makes demos and the README's
// pictures scriptable. Runs start through the RunMenu (its run panel and map take the
// placement), the lesson through the LessonController; `window` is what the screenshot shows.
class ScriptedSession : public QObject {
    Q_OBJECT
public:
    ScriptedSession(RunMenu& launcher, LessonController& lessons, PlotsView& plots, QWidget& window,
        std::vector<ScriptedRun> runs, QObject* parent = nullptr);
    void setScreenshot(const QString& path) { m_screenshot = path; }
    void setQuit(bool quit) { m_quit = quit; }
    // The view to show before the screenshot (a PlotsView::viewNames() entry), or "" to
    // leave the one on show (a lesson shows its own).
    void setView(const QString& view) { m_view = view; }
    void setLessons(const QStringList& ids) { m_lessons = ids; } // after the runs, in this order
    // After the runs and the lesson, watch `pid` for `seconds` (samples seen) before the
    // screenshot; with --quit the watch then stops.
    void setWatch(ProgramsController* programs, long pid, double seconds);

    void start(); // from the event loop, once the window is shown

signals:
    // Everything asked for is done; a non-zero code when a run failed or the picture could not be saved.
    void finished(int exitCode);

private:
    void startNext();
    void runFinished(quint64 id, RunOutcome outcome, const QString& message);
    void finish();
    void startLesson();
    void startWatch();

    RunMenu& m_launcher;
    LessonController& m_lessonController;
    PlotsView& m_plots;
    QWidget& m_window;
    std::vector<ScriptedRun> m_runs;
    std::size_t m_next = 0;
    std::optional<quint64> m_waitingFor;
    QString m_screenshot;
    bool m_quit = false;
    QString m_view;
    QStringList m_lessons;
    qsizetype m_nextLesson = 0;
    ProgramsController* m_programs = nullptr;
    long m_watchPid = 0;
    double m_watchSeconds = 0;
    bool m_watchStarted = false;
    int m_exitCode = 0;
};

} // namespace ctxscope::gui
