// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <QMainWindow>

#include <optional>

class QLabel;
class QTableView;
class QTextBrowser;

namespace ctxscope::gui {

class FileOpener;
class LessonController;
class LessonPanel;
class LessonSession;
class LookController;
class MachineCompare;
class MachineController;
class PlotsView;
class ProgramsDock;
class ProgramsPanel;
class QuietStage;
class ResultsModel;
class WorkerClient;
class RunBroker;
class RunMenu;
class RunPanel;
class FileMenu;
class SessionStore;
class SessionViews;
class StatusPanel;
class TopologyMapPanel;
class TopologyTabs;
class VerdictCard;

// The first window's size on a screen with this much room: most of it (a 1920 screen gives
// about 1630 by 920), all but a margin of a projector's 1280x800, never below 1024x640 nor
// beyond 2560x1600 (wider lines are harder to read than they are useful).
QSize initialWindowSize(QSize available);

// The shell: the window's widgets, docks and menus, and the objects that do the work wired
// together (HACKING.md, "The GUI"). RunMenu starts measurements and StreamRouter routes the
// worker's stream; SessionStore holds what was measured or opened and SessionViews keeps the
// views in step with it; FileMenu opens and saves files; LessonController runs lessons
// beside the plots; LookController sets the palettes and presentation mode.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Show a topology; a non-live one disables runs behind a banner saying why. A live one
    // starts the worker. A server's topology comes through machines()->adopt().
    void setTopology(const Topology& topology);
    const std::optional<Topology>& topology() const { return m_topology; }

    RunMenu* launcher() const { return m_launcher; }
    FileMenu* fileMenu() const { return m_fileMenu; }
    LessonController* lessons() const { return m_lessons; }
    LookController* look() const { return m_look; }
    QuietStage* quietStage() const { return m_quiet; }
    // The machine runs go to: Connect, Disconnect, reconnecting, the title and status bar.
    MachineController* machines() const { return m_machines; }
    // File → Compare machines… and the Machine toolbar's survey.
    MachineCompare* machineCompare() const { return m_machineCompare; }
    SessionViews* views() const { return m_views; }
    // The session document: every run, sweep, matrix and compared file, and the machine.
    SessionStore* store() const { return m_store; }

    // Shortcuts to the parts the tests and scripts reach most.
    WorkerClient* controller() const;
    RunBroker* runs() const; // where lessons and scripts start runs and hear how each ended
    FileOpener* opener() const;
    LessonSession* lesson() const;
    LessonPanel* lessonPanel() const;
    VerdictCard* verdictCard() const; // the lesson's headline across the window in presentation mode
    QTextBrowser* lessonView() const;
    ResultsModel* resultsModel() const;
    QAction* runAction() const;
    QAction* cancelAction() const;
    TopologyMapPanel* mapPanel() const;
    RunPanel* runPanel() const { return m_runPanel; }
    PlotsView* plots() const { return m_plots; }
    QTableView* resultsTable() const { return m_table; }
    StatusPanel* statusPanel() const { return m_status; }
    // The Programs dock: running programs' threads on the map, re-pinned by clicking.
    ProgramsPanel* programs() const { return m_programs; }
    ProgramsDock* programsDock() const { return m_programsDock; } // hidden until View → Programs

signals:
    void topologyFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override; // offers to restore re-pinned threads first

private:
    void showTopology(const Topology& topology, bool server);
    void createWorkers(QWidget* row, LessonPanel* lessonPanel, VerdictCard* card);
    void createMenus();
    void openTopologyXml();
    void openSynthetic();
    void showTopologyOrSay(Expected<Topology> topology, const QString& title);
    void showAbout();

    std::optional<Topology> m_topology;
    QLabel* m_banner = nullptr;
    TopologyTabs* m_tabs = nullptr; // the map and the topology as text
    RunPanel* m_runPanel = nullptr;
    PlotsView* m_plots = nullptr;
    QTableView* m_table = nullptr;
    StatusPanel* m_status = nullptr;
    SessionStore* m_store = nullptr;
    SessionViews* m_views = nullptr;
    RunMenu* m_launcher = nullptr;
    FileMenu* m_fileMenu = nullptr;
    LessonController* m_lessons = nullptr;
    LookController* m_look = nullptr;
    QuietStage* m_quiet = nullptr;
    MachineController* m_machines = nullptr;
    MachineCompare* m_machineCompare = nullptr;
    ProgramsPanel* m_programs = nullptr;
    ProgramsDock* m_programsDock = nullptr;
};

} // namespace ctxscope::gui
