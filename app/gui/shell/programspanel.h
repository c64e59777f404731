// SPDX-License-Identifier: MIT
#pragma once

#include "machinelink.h"

#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QMessageBox;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;

namespace ctxscope::gui {

class PinDialogs;
class ProgramPlot;
class ProgramsController;
class TimelineView;
class TopologyMapWidget;
class WakeupPlot;

// The Programs dock (docs/user-guide.md, "Running programs"): pick a process (own first,
// busiest first, filtered by name or PID, or a PID typed in), watch its threads move on the
// map as labelled markers, read their rates in the table and over time in the plot, select
// threads and the PUs to pin them to on the map, Apply; Restore gives each thread back the
// affinity it had when watching began, and stopping the watch offers to.
class ProgramsPanel : public QWidget {
    Q_OBJECT
public:
    ProgramsPanel(TopologyMapWidget& map, QWidget* parent = nullptr);
    ~ProgramsPanel() override;

    // The machine runs go to; `live`: its topology is the one the map shows, so the panel
    // may watch there (a topology file or a synthetic one: nothing to watch).
    void setMachine(const MachineLink& link, bool live);
    void setWorkerCpus(std::vector<int> cpus);

    ProgramsController* controller() const { return m_programs; }
    QLineEdit* filter() const { return m_filter; }
    QLineEdit* pidField() const { return m_pid; }
    QTableView* processTable() const { return m_processTable; }
    QTableView* threadTable() const { return m_threadTable; }
    QPushButton* watchButton() const { return m_watchButton; }
    QPushButton* stopButton() const { return m_stopButton; }
    QPushButton* applyButton() const { return m_applyButton; }
    QPushButton* restoreButton() const { return m_restoreButton; }
    ProgramPlot* plot() const { return m_plot; }
    // A traced watch's wake-up latencies of the selected thread (under the rates, shown once a
    // traced sample came), and the check that makes the next watch traced (disabled, with the
    // worker's reason, where it may not trace).
    WakeupPlot* wakeupPlot() const { return m_wakeups; }
    // Beside it, a traced watch's timeline: the watched threads' last seconds on each PU.
    TimelineView* timelineView() const { return m_timeline; }
    QString timelineCaption() const;
    // The rates, the wake-ups and the timeline are tabs of one pane; the last two open with a
    // traced watch's first sample, on the wake-ups unless told another (--view timeline).
    enum PlotTab { RatesTab, WakeupsTab, TimelineTab };
    QTabWidget* plotTabs() const { return m_plotTabs; }
    void setTracedTab(PlotTab tab) { m_tracedTab = tab; }
    QCheckBox* traceSwitch() const { return m_traceWakeups; }
    // On the Timeline tab: a traced watch also records the scheduler's events to draw them
    // (ftrace); off, its figures are counted in the kernel (BPF) where the worker may. A change
    // watches the program again.
    QCheckBox* timelineSwitch() const { return m_recordEvents; }
    QString statusText() const;
    // The open question "restore?" when stopping a watch after re-pins; null when none.
    QMessageBox* restoreQuestion() const;
    // The open question before a kernel thread or PID 1 is moved (Apply); null when none.
    QMessageBox* moveQuestion() const;
    QSize sizeHint() const override; // wide enough for the thread table's figures
    // The threads whose wakers, preemptors and wake-up bins the watch sends (a lean watch,
    // ProgramsController::showThreads): the table's visible and selected rows and the wake-up
    // plot's thread, sent kFocusDebounceMs after the last scroll, resize, selection or sample.
    static constexpr int kFocusDebounceMs = 150;
    std::vector<long> shownThreads() const;

    // Watches the PID in the field (or the selected process); Stop asks first when threads
    // were re-pinned.
    void watchChosen();
    // Stop: asks to restore first when threads were re-pinned. Closing, floating or docking the
    // panel never stops a watch; the map's clicks re-pin only while the panel is shown.
    void stopWatching();
    // Quitting the app: asks, and waits (3 s at most) for the restore to be answered.
    void restoreBeforeQuit();
    // Pins the selected threads to the PUs selected on the map; a kernel thread or PID 1 only
    // once the user said yes to moveQuestion().
    void applyPin();
    void restore();

protected:
    void showEvent(QShowEvent* event) override; // the first opening lists the processes
    void hideEvent(QHideEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override; // the thread table's resizes

private:
    // The constructor's parts: the widgets (the process list, the watch with its threads and
    // pin buttons, the plots' tabs; one splitter pane each), then their connections.
    QHBoxLayout* buildPickRow(); // the filter, Trace wake-ups, Refresh
    void buildProcessTable(QSplitter* splitter);
    void buildWatchRow(QSplitter* splitter);
    void buildPlotTabs(QSplitter* splitter);
    void connectControls(); // the panel's own widgets, the timeline and the map's PUs
    void connectWatch(); // the watch's samples, timeline and pins to the table, plots and map
    void connectController(); // the worker's answers and the pin questions' to the status line

    std::vector<long> selectedThreads() const;
    std::vector<int> targetCpus() const; // the map's re-pin targets
    void updateRepinMode(bool shown);
    void updateMarkers();
    void updateButtons();
    void updateWakeups(); // the first selected thread's, else the one woken most
    void updateTimeline(); // when shown; else once its tab is
    void colourTimeline(); // the selected threads stand out
    void say(const QString& text, bool problem = false);
    void watchEnded(const QString& why);
    void focusSoon(); // shownThreads, debounced

    TopologyMapWidget& m_map;
    ProgramsController* m_programs = nullptr;
    PinDialogs* m_dialogs = nullptr; // the questions before a restore or a kernel thread's move
    bool m_live = true;
    QLineEdit* m_filter = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_processTable = nullptr;
    QPushButton* m_refreshButton = nullptr;
    QLineEdit* m_pid = nullptr;
    QPushButton* m_watchButton = nullptr;
    QPushButton* m_stopButton = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_threadTable = nullptr;
    QLabel* m_target = nullptr;
    QPushButton* m_applyButton = nullptr;
    QPushButton* m_restoreButton = nullptr;
    ProgramPlot* m_plot = nullptr;
    WakeupPlot* m_wakeups = nullptr;
    QTabWidget* m_plotTabs = nullptr;
    PlotTab m_tracedTab = WakeupsTab;
    TimelineView* m_timeline = nullptr;
    QLabel* m_timelineNote = nullptr;
    QCheckBox* m_recordEvents = nullptr;
    bool m_timelineStale = false;
    std::uint64_t m_stretchFromNs = 0; // the shown timeline's newest stretch without a gap
    std::optional<std::uint64_t> m_watchOriginNs; // the first traced event of this watch: the axis's 0
    QCheckBox* m_traceWakeups = nullptr;
    QTimer* m_focusTimer = nullptr;
    long m_wakeupsThread = 0; // the wake-up plot's, 0: none
};

} // namespace ctxscope::gui
