// SPDX-License-Identifier: MIT
#pragma once

#include "loadedfile.h"
#include "runcontroller.h"
#include "runoutcome.h"
#include "sessionfile.h"

#include "ctxscope/topology.h"

#include <QMainWindow>

#include <map>
#include <memory>
#include <optional>

class QLabel;
class QMenu;
class QPlainTextEdit;
class QSplitter;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace ctxscope::gui {

class FileOpener;
class GuiAffinity;
class LessonPanel;
class LookController;
class LessonSession;
class PlotsView;
class ResultsModel;
struct ResultRow;
class RunCoordinator;
class RunPanel;
class SessionStore;
class StatusPanel;
class SwitchRateMeter;
class TopologyMapPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Show a topology; a non-live one disables runs behind a banner saying why. A live one
    // starts the worker.
    void setTopology(const Topology& topology);
    const std::optional<Topology>& topology() const { return m_topology; }

    // What Run does (Ctrl+R): the run panel's spec, with the app's threads moved off the
    // measured PUs. Returns the run id, or nothing with the reason in the status bar.
    std::optional<quint64> startRun();
    // The same for any spec (a lesson's steps).
    std::optional<quint64> startSpec(const BenchSpec& spec);
    // A working-set sweep of the run panel's spec, or a placement matrix of its benchmark
    // and mode, through the worker (mainwindowjobs.cpp); their views fill as they measure.
    std::optional<quint64> startSweep(const SweepSpec& spec);
    std::optional<quint64> startMatrix(
        const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options);
    // Runs a lesson's experiments one after the other and shows its conclusion.
    Status startLesson(const QString& id);
    LessonSession* lesson() const { return m_lesson; }

    // Results as a Google-Benchmark-shaped JSON file (with samples) or CSV, by the suffix.
    Status saveResults(const QString& path) const;
    // Adds the results of a saved file as rows and curves.
    Status openResults(const QString& path);
    // The plot on show, as PNG, SVG or PDF by the suffix.
    Status exportPlot(const QString& path) const;
    // F11 and View → Dark palette (LookController).
    void setPresentationMode(bool on);
    bool isPresenting() const;

    // The views of mainwindowviews.cpp: working-set curves, the heatmap, the comparison.
    void addSweep(std::shared_ptr<const SweepCurves> sweep);
    void addMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin);
    // Adds a results file (from another machine or an earlier session) to Compare.
    Status compareWith(const QString& path);
    void setDarkPalette(bool dark);
    // The whole session (mainwindowsession.cpp): runs, sweeps, matrices, compared files,
    // the topology XML and the system info, as one JSON file.
    Session session() const;
    Status saveSession(const QString& path) const;
    Status loadSession(const QString& path);
    // What opening a file does once it is parsed (on any thread): results, a sweep, a matrix
    // or a whole session join the views.
    Status showDocument(OpenedDocument document);
    Status showCompared(const LoadedFile& file, const QString& path);
    // Runs read from `origin` (a file) join the session as rows and curves.
    void addResultRows(std::vector<RunResult> results, const QString& origin);
    // Opens files from the menus off the GUI thread, with progress and Cancel.
    FileOpener* opener() const { return m_opener; }

    TopologyMapPanel* mapPanel() const { return m_mapPanel; }
    RunPanel* runPanel() const { return m_runPanel; }
    PlotsView* plots() const { return m_plots; }
    ResultsModel* resultsModel() const { return m_results; }
    QTableView* resultsTable() const { return m_table; }
    QTextBrowser* lessonView() const { return m_lessonView; }
    LessonPanel* lessonPanel() const { return m_lessonPanel; }
    StatusPanel* statusPanel() const { return m_status; }
    RunController* controller() const { return m_controller; }
    // The session document: every run, sweep, matrix and compared file, and the machine.
    SessionStore* store() const { return m_store; }
    // Where lessons and scripts start runs and hear how each ended (runFinished).
    RunCoordinator* runs() const { return m_runs; }
    QAction* runAction() const { return m_runAction; }
    QAction* cancelAction() const { return m_cancelAction; }

signals:
    void topologyFailed(const QString& message);
    void lessonFinished(bool completed);

private:
    void createMenus();
    void createFileActions(QMenu* file);
    void fitResultColumns();
    void createRunViews();
    void connectController();
    void openTopologyXml();
    void openSynthetic();
    void showAbout();
    void updateActions();
    void showRunSelection(int row);

    // The stream's signals, queued from the controller.
    void onRunStarted(quint64 id, const ctxscope::BenchSpec& spec);
    void onProgress(quint64 id, const QString& stage, int repetition, int repetitions, double fraction);
    void onSamples(quint64 id, int repetition, quint64 first, const QVector<double>& nsPerOp);
    void onResult(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    void onRunFailed(quint64 id, const QString& message);
    void onRunCancelled(quint64 id);
    void onWorkerState(RunController::State state);
    void endOfRun(quint64 id);
    void markUnfinished(quint64 id, const QString& how); // its partial curve stays, named so
    void connectViews();
    void createViewActions(QMenu* view);
    void showLessonPanel(bool show);
    void fitLessonRow(); // map | plots | lesson widths while the lesson panel is open
    bool eventFilter(QObject* watched, QEvent* event) override;
    void createSessionActions(QMenu* file);
    void createJobActions(QMenu* run);
    void connectJobs();
    void jobEnded(quint64 id, const QString& message);
    void refreshRunViews(); // the ladder and this session's bars in Compare
    void clearResults(); // rows, curves, sweeps and matrices
    std::vector<ResultRow> rowsOf(std::vector<RunResult> results);
    void connectStore();
    Status showSession(Session session, const QString& name);
    void drawRun(const ResultRow& row, const QString& origin); // the curves of a run the store gained
    void reportFinished(quint64 id, RunOutcome outcome, const QString& message);
    void showLessonViews();

    std::optional<Topology> m_topology;
    QLabel* m_banner = nullptr;
    QTabWidget* m_tabs = nullptr;
    TopologyMapPanel* m_mapPanel = nullptr;
    QPlainTextEdit* m_topologyText = nullptr;
    RunPanel* m_runPanel = nullptr;
    PlotsView* m_plots = nullptr;
    ResultsModel* m_results = nullptr;
    QTableView* m_table = nullptr;
    QSplitter* m_topSplitter = nullptr; // map | plots | lesson panel
    QList<int> m_sizesBeforeLesson; // of m_topSplitter, restored when the lesson panel closes
    LessonPanel* m_lessonPanel = nullptr;
    QTextBrowser* m_lessonView = nullptr; // the lesson panel's text
    LessonSession* m_lesson = nullptr; // the last lesson started (a child of this window)
    StatusPanel* m_status = nullptr;
    RunController* m_controller = nullptr;
    SwitchRateMeter* m_meter = nullptr;
    std::unique_ptr<GuiAffinity> m_affinity;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_restartAction = nullptr;
    std::map<quint64, QColor> m_runColors; // of runs that started
    int m_runsStarted = 0;
    quint64 m_opened = 0; // results read from files
    LookController* m_look = nullptr;
    QAction* m_lessonPanelAction = nullptr;
    QString m_workerDescription;
    SessionStore* m_store = nullptr;
    RunCoordinator* m_runs = nullptr;
    FileOpener* m_opener = nullptr;
    std::map<quint64, std::size_t> m_liveSweeps; // run id -> index in the working-set plot
    std::map<quint64, std::vector<RunResult>> m_matrixRuns; // of matrices being measured
};

} // namespace ctxscope::gui
