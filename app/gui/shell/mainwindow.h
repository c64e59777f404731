// SPDX-License-Identifier: MIT
#pragma once

#include "runcontroller.h"
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

class GuiAffinity;
class LessonPanel;
class LessonSession;
class PlotsView;
class ResultsModel;
class RunPanel;
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
        const std::string& bench, BenchMode mode, MatrixMode fill, const LessonOptions& options);
    // Runs a lesson's experiments one after the other and shows its conclusion.
    Status startLesson(const QString& id);
    LessonSession* lesson() const { return m_lesson; }

    // Results as a Google-Benchmark-shaped JSON file (with samples) or CSV, by the suffix.
    Status saveResults(const QString& path) const;
    // Adds the results of a saved file as rows and curves.
    Status openResults(const QString& path);
    // The plot on show, as PNG, SVG or PDF by the suffix.
    Status exportPlot(const QString& path) const;
    // F11: full screen, the high-contrast palette (black on white, or white on black after
    // View → Dark palette), fonts x1.3 on plots, map and lesson, the run panel and results table
    // hidden. Everything comes back as it was when it is switched off (mainwindowlook.cpp).
    void setPresentationMode(bool on);
    bool isPresenting() const { return m_presenting; }

    // The views of mainwindowviews.cpp: working-set curves, the heatmap, the comparison.
    void addSweep(std::shared_ptr<const SweepCurves> sweep);
    void addMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin);
    // Adds a results file (from another machine or an earlier session) to Compare.
    Status compareWith(const QString& path);
    // Light or dark colours for the whole app, plots included (in presentation mode, the
    // high-contrast palette of that brightness).
    void setDarkPalette(bool dark);
    // The whole session (mainwindowsession.cpp): runs, sweeps, matrices, compared files,
    // the topology XML and the system info, as one JSON file.
    Session session() const;
    Status saveSession(const QString& path) const;
    Status loadSession(const QString& path);

    TopologyMapPanel* mapPanel() const { return m_mapPanel; }
    RunPanel* runPanel() const { return m_runPanel; }
    PlotsView* plots() const { return m_plots; }
    ResultsModel* resultsModel() const { return m_results; }
    QTableView* resultsTable() const { return m_table; }
    QTextBrowser* lessonView() const { return m_lessonView; }
    LessonPanel* lessonPanel() const { return m_lessonPanel; }
    StatusPanel* statusPanel() const { return m_status; }
    RunController* controller() const { return m_controller; }
    QAction* runAction() const { return m_runAction; }
    QAction* cancelAction() const { return m_cancelAction; }

signals:
    void topologyFailed(const QString& message);
    // After a run's result (ok) or failure reached every view: the moment to take a screenshot.
    void runFinished(quint64 id, bool ok, const QString& message);
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
    void applyPalette();
    void showLessonPanel(bool show);
    void fitLessonRow(); // map | plots | lesson widths while the lesson panel is open
    bool eventFilter(QObject* watched, QEvent* event) override;
    void createSessionActions(QMenu* file);
    void createJobActions(QMenu* run);
    void connectJobs();
    void jobEnded(quint64 id, const QString& message);
    void refreshRunViews(); // the ladder and this session's bars in Compare
    void clearResults(); // rows, curves, sweeps and matrices
    void addResultRows(std::vector<RunResult> results, const QString& origin);
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
    QFont m_fontBefore; // the application font before presentation mode
    bool m_presenting = false;
    bool m_dark = false;
    bool m_wasMaximized = false; // before presentation mode
    bool m_darkBefore = false;
    QPalette m_paletteBefore;
    QString m_styleBefore;
    QAction* m_presentationAction = nullptr;
    QAction* m_darkAction = nullptr;
    QAction* m_lessonPanelAction = nullptr;
    QString m_workerDescription;
    std::vector<Session::Matrix> m_matrices;
    std::vector<CompareSource> m_compared;
    std::vector<nlohmann::json> m_comparedContexts;
    nlohmann::json m_loadedContext; // of a loaded session, shown while no worker describes this machine
    std::map<quint64, std::size_t> m_liveSweeps; // run id -> index in the working-set plot
    std::map<quint64, std::vector<RunResult>> m_matrixRuns; // of matrices being measured
    std::string m_loadedTopologyXml; // as the loaded session had it (hwloc's re-export adds lines)
};

} // namespace ctxscope::gui
