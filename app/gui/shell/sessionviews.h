// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"

#include <QColor>
#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

class QMainWindow;
class QTabWidget;
class QTableView;

namespace ctxscope::gui {

class PlotsView;
struct PreparedTrace;
class ResultsModel;
struct ResultRow;
class WorkerClient;
class SessionStore;
class TopologyMapPanel;

// Keeps the views in step with the session document: the results table, the live and
// distribution curves of every run the store gains, the working-set curves, the heatmap,
// the ladder and Compare; selecting a row shows its placement on the map and emphasises its
// curves; clicking a heatmap cell places the tasks. Gives each run its colour.
class SessionViews : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        SessionStore* store;
        PlotsView* plots;
        QTableView* table;
        TopologyMapPanel* mapPanel;
        QTabWidget* tabs; // the map's
    };
    explicit SessionViews(const Parts& parts);
    // The runs a file or a matrix puts on the stage: its newest ones; the rest are under
    // Earlier runs. 48 runs' curves at once were unreadable, and their replot took the GUI
    // thread 207 ms (perf_open).
    static constexpr std::size_t kFileStageRuns = 8;

    // The worker whose context block names this machine in the ladder and Compare.
    void setController(const WorkerClient* controller) { m_controller = controller; }
    SessionStore& store() const { return *m_parts.store; }
    ResultsModel* resultsModel() const { return m_results; }

    // A run measured here gets its colour when it starts; colorOf gives it (or a new one).
    void assignColor(quint64 id);
    QColor colorOf(quint64 id);
    // Runs read from `origin` (a file) join the session as rows and curves.
    // `traces` (none, or one per result) are their live curves prepared off the GUI thread.
    void addResultRows(std::vector<RunResult> results, const QString& origin,
        std::vector<std::shared_ptr<const PreparedTrace>> traces = {});
    // The same as rows (ids far above the worker's, new colours), to be added by the caller.
    std::vector<ResultRow> rowsOf(
        std::vector<RunResult> results, std::vector<std::shared_ptr<const PreparedTrace>> traces = {});
    void fitResultColumns();
    // Run → Clear results: rows, curves, sweeps and matrices.
    void clear();
    // One stage per lesson and per run: the live and distribution views show the runs of the
    // stage on show, a lesson's or the last run's. Earlier runs stay in the results table; the
    // "Earlier runs" switch, or selecting one's row, brings them back.
    void beginStage(bool lesson); // a lesson's runs all join it, until endLessonStage
    void endLessonStage();
    void runBegins(quint64 id); // a run measured here: a stage of its own, unless a lesson is on
    // A run whose first side (a condition's A/B as is) was just added as a row: its result will
    // get the next row's number.
    void runContinues(quint64 id);
    void showEarlierRuns(bool on);
    bool showsEarlierRuns() const { return m_showEarlier; }
    // "#3 futex · thread · same-pu (0,0)": the run's number is its row in the results table, so
    // two runs of one placement are told apart in a legend.
    QString legendLabel(quint64 id, const QString& label);
    void refreshRunViews(); // the ladder and this session's bars in Compare
    // The Timeline tab: the breakdown of the last kMaxTracedShown traced runs (and a selected
    // traced row), the timeline of the selected one or else the last; lanes from the map.
    void refreshTimeline();
    static constexpr std::size_t kMaxTracedShown = 4;

private:
    void connectStore();
    void connectViews();
    void drawRun(const ResultRow& row, const QString& origin); // the curves of a run the store gained
    void showRunSelection(int row);
    void showStage(); // the stage's runs (and the selected one) to the live and distribution views
    void selectRun(quint64 id); // its row in the results table

    Parts m_parts;
    ResultsModel* m_results = nullptr;
    const WorkerClient* m_controller = nullptr;
    std::map<quint64, QColor> m_runColors; // of runs that started
    std::map<quint64, std::shared_ptr<const PreparedTrace>> m_traces; // of rows not drawn yet
    int m_colorsGiven = 0;
    std::set<quint64> m_stage; // the runs of the stage on show
    bool m_lessonStage = false; // a lesson's: runs that begin join it
    bool m_showEarlier = false;
    std::optional<quint64> m_selected; // its row selected: shown with the stage
    std::map<quint64, int> m_numbers; // run -> its row number (1-based)
    quint64 m_opened = 0; // results read from files
};

} // namespace ctxscope::gui
