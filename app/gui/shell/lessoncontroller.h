// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/lesson.h"
#include "ctxscope/topology.h"

#include <QList>
#include <QObject>
#include <QString>

#include <optional>

class QAction;
class QMainWindow;
class QMenu;
class QSplitter;
class QWidget;

namespace ctxscope {
struct LessonInfo;
}

namespace ctxscope::gui {

class LessonPanel;
class LessonSession;
class VerdictCard;
struct LessonRecord;
class PlotsView;
class WorkerClient;
class RunBroker;
class SessionStore;

// Lessons in the window: Lessons menu, a LessonSession running the experiments through the
// RunBroker, and the lesson panel beside the plots (View → Lesson panel), which takes
// about a third of the row while it is open and gives the map its width back when it closes.
class RunMenu;
class LessonController : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        const std::optional<Topology>* topology; // the window's, as it changes
        RunBroker* runs;
        const WorkerClient* controller; // busy: no lesson starts
        SessionStore* store;
        PlotsView* plots;
        QSplitter* row; // map | plots | lesson panel
        QWidget* map; // the row's first widget (its tabs)
        LessonPanel* panel;
        VerdictCard* card; // across the window in presentation mode, in the panel's place
        RunMenu* launcher; // whether runs measure the topology shown (isLive), and reach it (whenConnected)
    };
    explicit LessonController(const Parts& parts);

    void createMenu(QMenu* lessons); // one entry per lesson
    void createViewAction(QMenu* view); // View → Lesson panel
    // Runs a lesson's experiments one after the other and shows its conclusion.
    Status start(const QString& id);
    LessonSession* lesson() const { return m_lesson; } // the last lesson of runs started (null after a whole one)
    LessonPanel* panel() const { return m_parts.panel; }
    VerdictCard* card() const { return m_parts.card; }
    // In presentation mode the lesson is the verdict card across the window (its headline large,
    // the details folded) instead of the panel, and the row gives the map and the plots its
    // width, with a handle wide enough to grab.
    void showPanel(bool show);
    void setPresenting(bool on);

signals:
    void started(); // before its first run: the views begin its stage
    void finished(bool completed);

private:
    // A lesson that runs whole in the worker (live-placement): its phases fill the panel as
    // the worker streams them, and its conclusion ends it.
    Status startWhole(const LessonInfo& info);
    void wholeEnded(bool completed, const std::vector<std::string>& conclusion, const QString& why);
    bool wholeRecordIsOurs() const; // its store record is still there (no session opened or cleared since)
    void fitRow(); // map | plots | lesson widths while the panel is open
    void fitPresentingRow(); // map | plots while presenting
    std::optional<LessonHeadline> headlineOf(const LessonRecord& lesson) const;
    void showLessonViews(); // the lesson's own curves, once it is done
    bool eventFilter(QObject* watched, QEvent* event) override;

    Parts m_parts;
    LessonSession* m_lesson = nullptr;
    std::optional<quint64> m_wholeJob; // the worker's job of a whole lesson, while it runs
    std::size_t m_wholeRecord = 0; // its record in the store
    std::string m_wholeId;
    QAction* m_panelAction = nullptr;
    QList<int> m_sizesBefore; // of the row, restored when the panel closes
    bool m_presenting = false;
    bool m_lessonShown = false; // the panel, or in presentation mode the card
    int m_handleBefore = 0; // the row's handle width before presentation mode
    QList<int> m_sizesBeforePresenting;
};

} // namespace ctxscope::gui
