// SPDX-License-Identifier: MIT
#pragma once

#include "machinelink.h"
#include "processtablemodel.h"
#include "programwatch.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <optional>
#include <vector>

namespace ctxscope::gui {

class WorkerClient;

// Running programs through a worker of their own (so a watch never holds up a run, and a run
// never waits for a watch): the process list, the watch of one process, re-pinning its
// threads, and Restore. Works on the machine runs go to, this one or a server over ssh.
class ProgramsController : public QObject {
    Q_OBJECT
public:
    static constexpr double kListSeconds = 1.0; // the process list's sampling time
    static constexpr double kIntervalS = 0.5; // the watch's, as `ctxscope-cli watch`'s default
    // A traced watch's events for the timeline, the latest of each interval: 40,000 a second,
    // a program of 100 threads switching 200 times a second each (ProgramWatch keeps 10 s).
    static constexpr std::size_t kTimelineEventsPerInterval = 20'000;

    explicit ProgramsController(QObject* parent = nullptr);
    ~ProgramsController() override;

    // The machine to watch on; a change stops what runs (its worker belongs to the old one).
    void setMachine(const MachineLink& link);
    // The CPUs its worker may use: the app's own at start (WorkerClient::setWorkerCpus).
    void setWorkerCpus(std::vector<int> cpus);
    // For tests: the worker's command.
    WorkerClient* worker() const { return m_worker; }

    void refreshProcesses();
    // Begins watching `pid`: at once, or once the watch that runs has stopped or the list
    // being sampled is in. False for a PID below 1.
    bool watch(long pid);
    void stop(); // the watch, if any; its summary comes back through watchEnded
    bool isWatching() const { return m_watchId.has_value(); }
    // Watches from now on also follow the scheduler's events (each thread's wake-up latencies,
    // wakers and preemptors: watch --trace); a watch that runs keeps how it began.
    void setTraced(bool on) { m_traced = on; }
    bool traced() const { return m_traced; }
    // Traced watches from now on also keep the scheduler's events for the Timeline tab, which
    // only ftrace records. Without them the worker takes the cheapest backend it may use: BPF,
    // which counts in the kernel, where allowed (chooseWatchBackend).
    void setTimeline(bool on) { m_timeline = on; }
    bool timeline() const { return m_timeline; }
    // Whether the watch that runs (or ran last) asked for those events.
    bool watchKeepsEvents() const { return m_watchKeepsEvents; }
    // Why this machine's worker may not trace (its hello's sentence), empty when it may.
    QString tracingRefusal() const;
    bool isListing() const { return m_listId.has_value(); }

    // Re-pins these threads of the watched process to `cpus` (one pin message each); once
    // all are answered, one mark on the plot and pinDone. A kernel thread or PID 1
    // (ProgramWatch::guard) is moved only with KernelThreads::Move: ask the user first.
    void pinThreads(const std::vector<long>& tids, const std::vector<int>& cpus,
        KernelThreads kernelThreads = KernelThreads::Refuse);
    // Gives every thread whose affinity changed the affinity it had when first seen, kernel
    // threads and PID 1 included (giving back is what the user agreed to undo); the number of
    // pins sent (pinRefused says so when the worker could take none).
    int restore();
    int pinsInFlight() const { return static_cast<int>(m_pins.size()); }
    // The threads the page shows (its table's visible and selected rows, the wake-up plot's):
    // the watch sends their wakers, preemptors and wake-up bins, the others' counts only (a
    // lean watch, docs/protocol.md). Sent when it differs from the last set sent to this watch.
    void showThreads(std::vector<long> tids);
    const std::vector<long>& shownThreads() const { return m_shown; }

    ProgramWatch* watchData() { return &m_watch; }
    ProcessTableModel* processes() { return &m_processes; }

signals:
    void processesChanged();
    void watchStarted(long pid);
    // The watch ended: stopped, the process ended (`why` says so), or the worker failed.
    void watchEnded(const QString& why);
    void pinDone(const QString& what);
    void pinRefused(const QString& message);
    void failed(const QString& message); // the worker could not list or watch
    void busyChanged();

private:
    void jobEnded(quint64 id, const QString& why); // the list or the watch, however it ended
    void startPending();
    double watchSeconds() const; // now, on the watch's clock
    void pinAnswered(quint64 id);

    WorkerClient* m_worker = nullptr;
    MachineLink m_link;
    ProgramWatch m_watch;
    ProcessTableModel m_processes;
    std::optional<quint64> m_listId;
    std::optional<quint64> m_watchId;
    std::optional<long> m_nextPid; // asked for while the previous watch winds down
    std::vector<quint64> m_pins; // sent, not answered
    std::vector<PinChange> m_pinned; // the answers so far of the pins in flight
    QString m_refusal; // the last refusal among them
    bool m_switching = false; // setMachine stops the old machine's worker
    bool m_traced = false;
    bool m_timeline = false;
    bool m_watchKeepsEvents = false;
    std::vector<long> m_shown; // as last sent to the running watch, by TID
    QElapsedTimer m_sinceSample; // since the last sample (or the start), for pins between samples
};

} // namespace ctxscope::gui
