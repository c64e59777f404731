// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/topology.h"
#include "ctxscope/traced_run.h"

#include <QElapsedTimer>
#include <QWidget>

#include <optional>
#include <vector>

class QAction;
class QCheckBox;
class QComboBox;
class QFormLayout;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;

namespace ctxscope::gui {

// The size typed in a working-set field (the engine's parser: 4096, 64K, 16M, 1G); 0 when
// it is empty or disabled (a benchmark without a working set).
Expected<std::uint64_t> workingSetBytes(const QLineEdit* field);

// What to run and where: benchmark (the engine's list, so new ones appear by themselves),
// mode, placement (the map's selection, a relation class, or unpinned), working set, length,
// repetitions, policy; Run and Cancel; the progress of the current run with an estimate
// of the time left. The choices persist between sessions (QSettings).
class RunPanel : public QWidget {
    Q_OBJECT
public:
    enum class PlacementKind { Map, Relation, Unpinned };

    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override; // saves the settings

    void setActions(QAction* run, QAction* cancel);
    void setTopology(const Topology& topology);
    // Runs go to this machine: the working set is checked as it is typed against the memory it
    // has available (a quarter of MemAvailable, as the engine checks); a server checks its own.
    void setLocalMachine(bool local);
    // Why runs are disabled (a topology file or a synthetic one is shown): said in place of
    // what the placement lacks, in the panel's plain colour; empty: runs are possible.
    void setRunsDisabled(const QString& why);
    QString problemText() const; // the line under the choices: what stops Run, if anything
    void setMapSelection(const std::vector<int>& cpus);

    // The most tasks the chosen benchmark places on the map (its own count; a ring's largest),
    // and its name: the map places no more (TopologyMapWidget::setTaskLimit).
    int mapTaskLimit() const;
    QString benchmarkName() const;

    // The spec Run would start, or a sentence saying what is missing.
    Expected<BenchSpec> spec() const;
    // The PUs the run's tasks will be pinned to (what the GUI keeps off); empty when unpinned.
    std::vector<int> measuredCpus() const;
    static std::vector<int> measuredCpus(const BenchSpec& spec, const Topology& topology);

    bool setBenchmark(const QString& name);
    bool setMode(BenchMode mode);
    void usePlacement(PlacementKind kind, std::optional<Relation> relation = std::nullopt);
    PlacementKind placementKind() const;
    void setIterations(int iterations); // a fixed number of ops per repetition
    void setMinTime(double seconds); // calibrated to at least this long per repetition
    void setRepetitions(int repetitions);
    // The working set each task touches per op, as typed: 4096, 64K, 16M, 1G; empty: none.
    void setWorkingSet(const QString& text);
    // spin-futex: how long a waiting task spins before it sleeps, in ns (the CLI's --spin-ns).
    void setSpinNs(int ns);
    // "Trace the scheduler" (off by default, never remembered): a traced run after the untraced
    // one. `refusal`: why the machine the runs go to may not trace with ftrace (the worker's
    // sentence), empty when it may; with BPF refused too the check is disabled with that
    // tooltip, as it is for a benchmark with nothing to trace.
    void setTracingRefusal(const QString& refusal);
    // How a traced run cuts its hand-overs, chosen under the switch (remembered): "from its
    // events" (ftrace: the Timeline tab's events, a trace file to export) or "in the kernel"
    // (bpf: the steps only, a fraction of the cost, pinned tasks only). `refusal`: why the
    // machine the runs go to may not use BPF (its worker's sentence), empty when it may; each
    // way is offered only where its worker allows it, and the switch where either is allowed.
    void setBpfRefusal(const QString& refusal);
    void setTraceBackend(TraceBackend backend); // Ftrace or Bpf
    TraceBackend traceBackend() const;
    void setTraced(bool on);
    // Whether Run starts a traced run: checked, allowed, and the benchmark has something to trace.
    bool traced() const;
    QCheckBox* traceSwitch() const { return m_trace; }
    QComboBox* traceBackendChooser() const { return m_traceHow; }
    // The conditions a run may be measured under, each as an A/B (as is, then with it; never
    // remembered): "Keep the other CPU awake" (a SCHED_IDLE polling thread on each CPU of the
    // placement) and "Hold C-states shallow" (/dev/cpu_dma_latency at 0), the latter only where
    // the machine the runs go to has cpuidle states: `count` as its worker's hello says, -1
    // before one.
    void setIdleStates(int count);
    QCheckBox* keepAwakeSwitch() const { return m_keepAwake; }
    QCheckBox* shallowSwitch() const { return m_shallow; }

    void loadSettings();
    void saveSettings() const;

    // The run's progress as the worker reports it.
    void runStarted();
    void showProgress(const QString& stage, int repetition, int repetitions, double fraction);
    void runEnded(const QString& outcome, bool completed);
    // The line under the progress bar: the run's stage, or how it ended (a condition's A/B too).
    QString outcomeText() const;

    QComboBox* benchmarkChooser() const { return m_bench; }
    QComboBox* placementChooser() const { return m_placement; }
    QProgressBar* progressBar() const { return m_progress; }
    QLineEdit* workingSetField() const { return m_ws; }
    QSpinBox* spinField() const { return m_spinNs; }

signals:
    void specChanged(); // any choice changed: Run's availability may change

private:
    void benchmarkChanged();
    void updateTraceSwitch();
    void updateConditionSwitches();
    // The conditions checked and allowed, put into a spec whose placement is set.
    void addConditions(BenchSpec& spec) const;
    void updatePlacementInfo();
    void showProblem();
    const BenchInfo* currentBench() const;
    int taskCount() const;
    // The working set typed, checked against the memory available when runs go to this machine.
    Expected<std::uint64_t> checkedWorkingSet() const;

    std::optional<Topology> m_topology;
    std::vector<int> m_mapCpus;
    bool m_local = false;
    QString m_disabled;
    QComboBox* m_bench = nullptr;
    QLabel* m_benchInfo = nullptr;
    QComboBox* m_mode = nullptr;
    QComboBox* m_placement = nullptr;
    QLabel* m_placementInfo = nullptr;
    QSpinBox* m_tasks = nullptr;
    QComboBox* m_lengthKind = nullptr;
    QDoubleSpinBox* m_minTime = nullptr;
    QSpinBox* m_iterations = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QComboBox* m_policy = nullptr;
    QLineEdit* m_ws = nullptr;
    QSpinBox* m_spinNs = nullptr; // its row is shown for spin-futex only
    QCheckBox* m_trace = nullptr;
    QComboBox* m_traceHow = nullptr;
    TraceBackend m_chosenBackend = TraceBackend::Ftrace; // as chosen; shown where the worker allows it
    QString m_tracingRefusal;
    QString m_bpfRefusal;
    QCheckBox* m_keepAwake = nullptr;
    QCheckBox* m_shallow = nullptr;
    int m_idleStates = -1;
    QFormLayout* m_form = nullptr;
    QLabel* m_problem = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_eta = nullptr;
    QElapsedTimer m_runClock;
};

} // namespace ctxscope::gui
