// SPDX-License-Identifier: MIT
#pragma once

#include "runoutcome.h"
#include "workerclient.h"

#include "ctxscope/topology.h"

#include <QObject>
#include <QString>
#include <QTemporaryDir>

#include <functional>
#include <map>
#include <memory>
#include <optional>

class QAction;
class QMainWindow;
class QMenu;

namespace ctxscope::gui {

class GuiAffinity;
class PlotsView;
class RunBroker;
class RunPanel;
class StreamRouter;
class SessionViews;
class StatusPanel;
class SwitchRateMeter;
class TopologyMapWidget;

// Everything about starting measurements: the Run menu (Run, Cancel, Restart the worker,
// the sweep and the matrix), the app's own threads moved off the measured PUs, the worker's
// state on the status bar, and the end of every run (StreamRouter reports it here). Owns the
// worker (WorkerClient) and the RunBroker that lessons and scripts start runs through.
class RunMenu : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        const std::optional<Topology>* topology; // the window's, as it changes
        RunPanel* panel;
        StatusPanel* status;
        TopologyMapWidget* map;
        PlotsView* plots;
        SessionViews* views;
    };
    explicit RunMenu(const Parts& parts);
    ~RunMenu() override;

    void createActions(QMenu* run); // Run, Cancel, Restart, Sweep, Matrix

    // What Run does (Ctrl+R): the run panel's spec, with the app's threads moved off the
    // measured PUs. Returns the run id, or nothing with the reason in the status bar.
    std::optional<quint64> startRun();
    // The same for any spec (a lesson's steps); `traced`: a traced run follows (WorkerClient::start).
    // `asIsFirst` false: a condition without its A/B (WorkerClient::start). `backend`: how a traced
    // run cuts its hand-overs (ftrace: from its events, for the timeline; bpf: in the kernel).
    std::optional<quint64> startSpec(
        const BenchSpec& spec, bool traced = false, bool asIsFirst = true, TraceBackend backend = TraceBackend::Ftrace);
    // A working-set sweep, or a placement matrix of a benchmark and mode, through the worker;
    // their views fill as they measure (StreamRouter).
    std::optional<quint64> startSweep(const SweepSpec& spec);
    std::optional<quint64> startMatrix(
        const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options);
    // The survey of the machine runs go to (ctxscope-cli survey) through its worker; the card
    // joins the session store when it ends (StreamRouter).
    std::optional<quint64> startSurvey(double budgetSeconds);
    // A run, sweep or matrix ended (StreamRouter): the app's threads come back, the rate meter
    // stops, the actions follow and the coordinator tells lessons and scripts.
    void runEnded(quint64 id, RunOutcome outcome, const QString& message);
    void runBegan(); // the worker said the run started: the switch-rate meter runs with it
    void updateActions();

    WorkerClient* controller() const { return m_controller; }
    // The trace.dat a traced run on this machine's worker wrote for File -> Export trace (a file
    // of the app's own, gone when it quits); empty for a run traced on a server or untraced.
    QString traceFileOf(quint64 id) const;
    // The topology shown is the connected server's (from its worker's hello, --remote), not
    // one opened from a file: runs measure it. Set by the window with each topology.
    void setShowsServer(bool server) { m_showsServer = server; }
    bool showsServer() const { return m_showsServer; }
    // Runs go to a server whose worker is not connected (disconnected, or the connection
    // dropped): a run must reconnect first, which the user is asked about (whenConnected).
    bool needsConnection() const;
    // Runs `action` once runs can reach the machine: the Run, sweep, matrix and lesson
    // actions go through it. The gate (MachineController::whenConnected) may ask to reconnect.
    void whenConnected(std::function<void()> action);
    void setConnectionGate(std::function<void(std::function<void()>)> gate) { m_gate = std::move(gate); }
    // Whether runs measure the topology shown: this machine's with a local worker, the
    // server's own with a worker over ssh.
    bool isLive() const;
    RunBroker* coordinator() const { return m_coordinator; }
    RunPanel* panel() const { return m_parts.panel; }
    StatusPanel* status() const { return m_parts.status; }
    QMainWindow* window() const { return m_parts.window; }
    TopologyMapWidget* map() const { return m_parts.map; }
    QAction* runAction() const { return m_runAction; }
    QAction* cancelAction() const { return m_cancelAction; }

private:
    void connectWorker();
    void showMessage(const QString& message, int ms) const;
    // A run cannot go out: the server is not connected (said on the status bar).
    bool refuseUnconnected();
    // A sweep or matrix the worker took (or refused: `id` is empty): its view and progress.
    // Moves this app's threads off the measured CPUs (all of them for an unpinned run) and
    // says so in the status bar; nothing to move when the worker is on another machine.
    void keepAppOff(const std::vector<int>& measured, bool unpinned);
    std::optional<quint64> jobStarted(std::optional<quint64> id, const QString& view, const QString& progress);

    Parts m_parts;
    WorkerClient* m_controller = nullptr;
    RunBroker* m_coordinator = nullptr;
    StreamRouter* m_stream = nullptr;
    std::unique_ptr<GuiAffinity> m_affinity;
    SwitchRateMeter* m_meter = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QString m_workerDescription;
    std::function<void(std::function<void()>)> m_gate;
    bool m_showsServer = false;
    std::unique_ptr<QTemporaryDir> m_traceDir; // made at the first traced run on this machine
    std::map<quint64, QString> m_traceFiles;
};

} // namespace ctxscope::gui
