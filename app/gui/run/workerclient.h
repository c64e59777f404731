// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/events.h"
#include "ctxscope/matrix.h"
#include "ctxscope/pin.h"
#include "ctxscope/process_list.h"
#include "ctxscope/protocol.h"
#include "ctxscope/result.h"
#include "ctxscope/watch.h"
#include "ctxscope/working_set.h"
#include "machinelink.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>
#include <set>
#include <vector>

class QTimer;

namespace ctxscope::gui {

// Drives `ctxscope-cli worker` (the GUI never measures in its own process): starts it with
// QProcess, sends run/cancel commands built by the engine's protocol, reads its NDJSON
// stream as it arrives (readyRead, never blocking) and turns every line into a signal.
// Results are immutable values shared with every view.
class WorkerClient : public QObject {
    Q_OBJECT
public:
    enum class State {
        Stopped, // no worker yet
        Starting, // started, waiting for its hello
        Idle, // ready for a run
        Running,
        Dead, // exited or failed; the next start() launches a new one
    };
    Q_ENUM(State)

    explicit WorkerClient(QObject* parent = nullptr);
    ~WorkerClient() override; // asks the worker to quit, then kills it if it lingers

    // CTXSCOPE_CLI when set, else ctxscope-cli beside this executable (installed in one bin
    // directory) or in the build tree (build/<preset>/app/cli next to app/gui).
    static QString defaultProgram();
    // The command that runs a worker; tests give a fake one.
    void setWorkerCommand(const QString& program, const QStringList& arguments);
    // The machine whose worker this controller drives: this one (the default: defaultProgram()),
    // or a server through ssh ($CTXSCOPE_SSH_COMMAND or `ssh`). Takes effect at the next start.
    void setLink(const MachineLink& link);
    const MachineLink& link() const { return m_link; }
    // The last worker ended because the server has no such CLI (its shell's 127): a portable
    // bundle could be pushed there instead (MachineLink::push).
    bool remoteCliMissing() const { return m_remoteCliMissing; }
    // The CPUs the worker may use (the affinity this app started with), so that the GUI
    // narrowing its own threads away from the measured PUs never narrows the worker's.
    void setWorkerCpus(std::vector<int> cpus) { m_workerCpus = std::move(cpus); }
    const std::vector<int>& workerCpus() const { return m_workerCpus; }

    State state() const { return m_state; }
    qint64 workerPid() const { return m_workerPid; } // of the last worker started
    std::optional<quint64> currentRun() const { return m_running; }
    // The machine description of the worker's hello (Google Benchmark's context block), for
    // saved results; empty until a worker said hello.
    const nlohmann::json& workerContext() const { return m_context; }
    // The host name that context gives (what the worker's machine calls itself), "" when none.
    const QString& workerHostName() const { return m_hostName; }
    // The hwloc XML of the worker's machine from its hello (a server's, over ssh); empty
    // until a worker said hello.
    const std::string& workerTopologyXml() const { return m_topologyXml; }
    // A run is going on, or waits for a starting worker.
    bool isBusy() const { return m_running || m_pending || m_pendingJob; }
    // The run or job the worker measures now; none between them.
    std::optional<quint64> runningId() const { return m_running; }

    void startWorker(); // no-op unless Stopped or Dead
    void stopWorker(); // quit politely; Stopped afterwards
    // Starts a run, launching the worker first if needed (the run goes out after its
    // hello). Returns the run's id, or nothing when a run is already in progress. With
    // `trace`, a traced run follows the untraced one: its events come in traceEventsAvailable
    // before the result, whose RunResult::trace holds the hand-over's segments.
    // `asIsFirst` false: a spec with a condition is measured with it only, not as an A/B (a lesson's step).
    std::optional<quint64> start(
        const BenchSpec& spec, std::optional<protocol::RunTrace> trace = std::nullopt, bool asIsFirst = true);
    // Why the worker may not trace (its hello's sentence: what is missing and how to grant it);
    // empty when it may. Before a hello: that no worker has said yet.
    QString tracingRefusal() const;
    // The same for BPF (its hello's "bpf": a traced run cut in the kernel).
    QString bpfRefusal() const;
    // Whether the worker may trace with this backend (ftrace or bpf); nullopt before its hello
    // (a traced run asked for then is sent traced only if the hello allows it, else untraced).
    std::optional<bool> mayTrace(TraceBackend backend = TraceBackend::Ftrace) const;
    // A working-set sweep or a placement matrix (workerclientjobs.cpp): like start(), one
    // job at a time; it ends with sweepFinished / matrixAvailable, or runFailed / runCancelled.
    std::optional<quint64> startSweep(const SweepSpec& spec);
    std::optional<quint64> startMatrix(
        const std::string& bench, BenchMode mode, MatrixMode fill, const RunBudget& options);
    // A lesson that runs whole in the worker (LessonInfo::wholeInWorker: live-placement):
    // lessonStepAvailable per step (phase) as it ends, then lessonFinished, which ends the job.
    std::optional<quint64> startLesson(const std::string& lesson, const RunBudget& options);
    // The survey of the worker's machine (ctxscope-cli survey) within `budgetSeconds`:
    // surveyStepAvailable per run as it ends, then surveyFinished, which ends the job.
    std::optional<quint64> startSurvey(double budgetSeconds);
    // Running programs (workerclientjobs.cpp): `processes` and `watch` are jobs like a run
    // (one at a time, cancellable); a cancelled watch still ends with watchFinished.
    std::optional<quint64> startProcesses(double seconds);
    // `trace`: each thread's wake-ups from the scheduler's events too (watch --trace).
    // `events` (with trace): each interval's latest scheduler events of the watched threads,
    // as traceEventsAvailable parts after its sample. The watch is lean (watch_delta lines,
    // turned back into whole samples here): each thread's wakers, preemptors and wake-up bins
    // come only while it is in focus (focusWatch), what was held back summed when it enters it.
    std::optional<quint64> startWatch(long pid, double intervalS, bool trace = false, std::size_t events = 0);
    // The threads of watch `id` whose details the next samples carry (the ones shown); with
    // `everything`, the next sample carries every thread whole once. False (nothing sent) unless
    // that watch runs.
    bool focusWatch(quint64 id, const std::vector<long>& tids, bool everything = false);
    // Sets a thread's (or with `process`, every thread's) affinity at once, even during a
    // watch; answered by pinned or pinFailed. Nothing without a worker that said hello. A
    // kernel thread or PID 1 only with KernelThreads::Move, sent once the user said yes.
    std::optional<quint64> pin(
        long target, bool process, const std::vector<int>& cpus, KernelThreads kernelThreads = KernelThreads::Refuse);
    void cancel(); // the current run, if any

signals:
    void stateChanged(ctxscope::gui::WorkerClient::State state);
    void workerReady(const QString& description); // "ctxscope-cli 0.1.0, pid 1234"
    // The worker exited or could not start; with a run in progress runFailed comes first.
    void workerFailed(const QString& message);
    // A line that is not a message of the protocol; reading goes on.
    void protocolError(const QString& message);
    void runStarted(quint64 id, const ctxscope::BenchSpec& spec);
    void progress(quint64 id, const QString& stage, int repetition, int repetitions, double fraction);
    // Samples in time order (ns per op), `first` counted from the start of the repetition.
    void samplesAvailable(quint64 id, int repetition, quint64 first, const QVector<double>& nsPerOp);
    void resultAvailable(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    // A run whose spec has a condition (keep-awake, a PM QoS hold) is an A/B: its side as is comes
    // first, and the run goes on; its last result is the condition's side, announced by its A/B
    // (the worker's comparison of the two) just before resultAvailable.
    void asIsResultAvailable(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    void conditionAbAvailable(quint64 id, std::shared_ptr<const ctxscope::ConditionAb> ab);
    // Part of a traced run's event window (the lines come in time order, before its result).
    void traceEventsAvailable(quint64 id, std::shared_ptr<const ctxscope::protocol::TraceEventsEvent> part);
    void runFailed(quint64 id, const QString& message);
    void runCancelled(quint64 id);
    // A sweep's points as they finish, then the caches of the machine (for the markers).
    void sweepPointAvailable(quint64 id, std::shared_ptr<const ctxscope::WorkingSetPoint> point);
    void sweepFinished(quint64 id, std::shared_ptr<const std::vector<ctxscope::CacheInfo>> caches);
    // A matrix's measured pairs as they finish (their runs), then the matrix itself.
    void matrixRunAvailable(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    void matrixAvailable(quint64 id, std::shared_ptr<const ctxscope::MatrixResult> matrix);
    void lessonStepAvailable(quint64 id, std::shared_ptr<const ctxscope::protocol::LessonStepEvent> step);
    void lessonFinished(quint64 id, std::shared_ptr<const ctxscope::LessonResult> lesson);
    void surveyStepAvailable(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    // The card's "survey" block (suite version, budget, what was skipped and why).
    void surveyFinished(quint64 id, std::shared_ptr<const nlohmann::json> survey);
    // Every process, busiest first; ends the processes job.
    void processesAvailable(quint64 id, std::shared_ptr<const std::vector<ctxscope::ProcessActivity>> processes);
    // A watch's samples as they come, then its summary, which ends the watch.
    void watchSampleAvailable(quint64 id, std::shared_ptr<const ctxscope::WatchSample> sample);
    void watchFinished(quint64 id, std::shared_ptr<const ctxscope::WatchSummary> summary);
    void pinned(quint64 id, const std::vector<ctxscope::PinChange>& changes);
    void pinFailed(quint64 id, const QString& message);

private:
    void setState(State state);
    void send(const std::string& line);
    void readLines();
    void handleLine(const QByteArray& line);
    void handleHello(const QString& description, int protocolVersion);
    void processFinished(int exitCode, QProcess::ExitStatus status);
    void processError(QProcess::ProcessError error);
    void readErrors(); // the worker's (or ssh's) stderr: passed on to ours, its tail kept
    void workerGone(const QString& why);
    void endRun();
    std::optional<quint64> startJob(protocol::Command command, quint64 id);
    // The current command's sweep, matrix or lesson event.
    void handleJobEvent(protocol::Event& event);
    // The answer to a pin (not a job: it may come during one); false when the event answers none.
    bool handlePinAnswer(protocol::Event& event, quint64 id);
    // A line that is no event: a protocol error, or the end of the run it was the result of.
    void handleUnreadable(const protocol::EventError& unreadable, const QByteArray& line);

    MachineLink m_link;
    QString m_program;
    QStringList m_arguments;
    QString m_stderrTail; // the last lines the worker or ssh wrote to stderr, for failures
    std::vector<int> m_workerCpus;
    QProcess* m_process = nullptr; // owned by this object (Qt parent); replaced on restart
    QTimer* m_cancelWatchdog = nullptr;
    qint64 m_workerPid = 0; // the worker's own (a server's, from its hello, over ssh)
    qint64 m_processPid = 0; // the process this app started: the worker, or ssh
    nlohmann::json m_context;
    QString m_hostName;
    std::string m_topologyXml;
    std::optional<std::string> m_tracing; // the hello's "tracing"; none before a hello
    std::optional<std::string> m_bpf; // the hello's "bpf"; none before a hello
    State m_state = State::Stopped;
    quint64 m_nextId = 1;
    std::optional<quint64> m_running;
    protocol::WatchDeltaDecoder m_watchDecoder; // the lean watch's threads, as last sent
    std::vector<long> m_watchFocus; // as last sent with focusWatch
    // Runs the app gave up on (a line it had to refuse) and told the worker to cancel: what
    // the worker still says of them (its "cancelled", or an error if it had finished) is dropped.
    std::set<quint64> m_abandoned;
    std::set<quint64> m_pins; // sent, not yet answered
    std::optional<BenchSpec> m_pending; // waits for the hello of a starting worker
    std::optional<protocol::RunTrace> m_pendingTrace; // and whether it is traced
    bool m_pendingAsIsFirst = true; // and whether a condition is an A/B
    std::optional<protocol::Command> m_pendingJob; // a sweep or matrix waiting the same way
    quint64 m_pendingId = 0;
    bool m_reportedDeath = false;
    bool m_remoteCliMissing = false;
};

} // namespace ctxscope::gui

Q_DECLARE_METATYPE(std::shared_ptr<const ctxscope::RunResult>)
Q_DECLARE_METATYPE(std::shared_ptr<const ctxscope::ConditionAb>)
Q_DECLARE_METATYPE(ctxscope::BenchSpec)
Q_DECLARE_METATYPE(std::shared_ptr<const ctxscope::protocol::TraceEventsEvent>)
