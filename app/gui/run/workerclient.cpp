// SPDX-License-Identifier: MIT
#include "workerclient.h"

#include "ctxscope/protocol.h"
#include "ctxscope/results_file.h"
#include "sshfailure.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <utility>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

namespace ctxscope::gui {

namespace {

// A cancelled run stops within ~20 ms (runner.h); one that does not answer in this time
// means the worker is stuck and is replaced.
constexpr int kCancelGraceMs = 3000;
// Far above any line the protocol allows; a worker sending more without a newline is broken.
constexpr qint64 kMaxBuffered = 8 * static_cast<qint64>(protocol::kMaxLineBytes);
// Enough of stderr to hold ssh's complaint (a changed host key takes ~15 lines).
constexpr qsizetype kStderrTailChars = 4096;
// The size asked for the worker's stdout pipe (see startWorker).
constexpr int kWorkerPipeBytes = 1 << 20;

// kWorkerPipeBytes, or fs.pipe-max-size where an administrator set it lower (an unprivileged
// process asking for more than that is refused and keeps 64 KiB).
int workerPipeBytes()
{
    QFile limit(QStringLiteral("/proc/sys/fs/pipe-max-size"));
    bool ok = false;
    const int max = limit.open(QIODevice::ReadOnly) ? limit.readAll().trimmed().toInt(&ok) : 0;
    return ok && max > 0 ? std::min(kWorkerPipeBytes, max) : kWorkerPipeBytes;
}

// `worker --controller PID`: this app's own CPU time on the measured CPUs is counted apart from
// other tasks' in each run's interference (a worker through ssh runs where this app is not).
QStringList localWorkerArguments()
{
    return { QStringLiteral("worker"), QStringLiteral("--controller"),
        QString::number(QCoreApplication::applicationPid()) };
}

} // namespace

WorkerClient::WorkerClient(QObject* parent)
    : QObject(parent)
    , m_program(defaultProgram())
    , m_arguments(localWorkerArguments())
    , m_cancelWatchdog(new QTimer(this))
{
    m_cancelWatchdog->setSingleShot(true);
    m_cancelWatchdog->setInterval(kCancelGraceMs);
    connect(m_cancelWatchdog, &QTimer::timeout, this, [this] {
        if (!m_running)
            return;
        const QString why
            = tr("The worker did not stop within %1 s of Cancel; it was stopped.").arg(kCancelGraceMs / 1000);
        if (m_process)
            m_process->kill();
        workerGone(why);
    });
}

WorkerClient::~WorkerClient()
{
    blockSignals(true); // no signals into views that are going away
    stopWorker();
}

QString WorkerClient::defaultProgram()
{
    const QString fromEnv = qEnvironmentVariable("CTXSCOPE_CLI");
    if (!fromEnv.isEmpty())
        return fromEnv;
    const QDir dir(QCoreApplication::applicationDirPath());
    for (const QString& candidate :
        { dir.filePath(QStringLiteral("ctxscope-cli")), dir.filePath(QStringLiteral("../cli/ctxscope-cli")) })
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    return QStringLiteral("ctxscope-cli"); // from PATH
}

void WorkerClient::setWorkerCommand(const QString& program, const QStringList& arguments)
{
    m_program = program;
    m_arguments = arguments;
}

void WorkerClient::setLink(const MachineLink& link)
{
    m_link = link;
    if (!link.isRemote()) {
        setWorkerCommand(defaultProgram(), localWorkerArguments());
        return;
    }
    const WorkerCommand command = sshWorkerCommand(link, qEnvironmentVariable("CTXSCOPE_SSH_COMMAND"));
    setWorkerCommand(command.program, command.arguments);
}

void WorkerClient::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void WorkerClient::startWorker()
{
    if (m_state != State::Stopped && m_state != State::Dead)
        return;
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
    }
    m_abandoned.clear(); // the old worker will say nothing more of them
    m_pins.clear();
    m_process = new QProcess(this);
    m_stderrTail.clear();
    cpu_set_t mask;
    CPU_ZERO(&mask);
    for (int cpu : m_workerCpus)
        if (cpu >= 0 && cpu < CPU_SETSIZE)
            CPU_SET(static_cast<std::size_t>(cpu), &mask);
    const bool pinned = !m_workerCpus.empty();
    // Runs in the child between fork and exec, after QProcess set up its standard descriptors:
    // only syscalls, nothing that allocates. The stdout pipe grows from 64 KiB (about 3,600
    // samples) to 1 MiB (by default the most an unprivileged process may ask), so the worker,
    // or ssh for a server, keeps writing while the app redraws instead of waiting for each
    // read: with it the stream through ssh went from 0.6 to 1.4 million samples/s with the plot
    // (docs/performance.md). A refusal (the user's pipe quota spent) leaves the default size.
    const int pipeBytes = workerPipeBytes();
    m_process->setChildProcessModifier([mask, pinned, pipeBytes] {
        if (pinned)
            (void)::sched_setaffinity(0, sizeof(mask), &mask);
        (void)::fcntl(STDOUT_FILENO, F_SETPIPE_SZ, pipeBytes);
    });
    connect(m_process, &QProcess::readyReadStandardOutput, this, &WorkerClient::readLines);
    connect(m_process, &QProcess::readyReadStandardError, this, &WorkerClient::readErrors);
    connect(m_process, &QProcess::finished, this, &WorkerClient::processFinished);
    connect(m_process, &QProcess::errorOccurred, this, &WorkerClient::processError);
    m_reportedDeath = false;
    m_tracing.reset(); // this worker's hello says
    m_bpf.reset();
    setState(State::Starting);
    m_remoteCliMissing = false;
    m_process->start(m_program, m_arguments);
    if (m_link.push) // the host's script reads the bundle first, then hands the rest to the worker
        m_process->write(m_link.push->bytes->data(), static_cast<qint64>(m_link.push->bytes->size()));
    m_workerPid = m_process->processId();
    m_processPid = m_workerPid;
}

void WorkerClient::stopWorker()
{
    // A plain flag and id rather than std::optional: GCC 12 at -O3 reports a false
    // -Wmaybe-uninitialized on the optional's payload.
    const bool wasRunning = m_running.has_value() || m_pending.has_value() || m_pendingJob.has_value();
    const quint64 interruptedId = m_running ? *m_running : m_pendingId;
    m_pending.reset();
    m_pendingJob.reset();
    m_running.reset();
    m_cancelWatchdog->stop();
    if (m_process && m_process->state() != QProcess::NotRunning && m_state == State::Starting) {
        // No hello yet: nothing to finish, and ssh still connecting would not read the quit
        // before its connection timeout (Cancel in the Connect dialog must not wait for it).
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    } else if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->write(QByteArray::fromStdString(protocol::commandLine(protocol::QuitCommand {})) + '\n');
        m_process->closeWriteChannel();
        if (!m_process->waitForFinished(1500)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
    setState(State::Stopped);
    if (wasRunning)
        emit runFailed(interruptedId, tr("The worker was stopped during the run."));
    for (const quint64 pin : std::exchange(m_pins, {}))
        emit pinFailed(pin, tr("The worker was stopped before it answered."));
}

std::optional<quint64> WorkerClient::start(
    const BenchSpec& spec, std::optional<protocol::RunTrace> trace, bool asIsFirst)
{
    if (isBusy())
        return std::nullopt;
    const quint64 id = m_nextId++;
    if (m_state == State::Idle) {
        send(protocol::commandLine(protocol::RunCommand { id, spec, trace, asIsFirst }));
        m_running = id;
        setState(State::Running);
        emit runStarted(id, spec);
        return id;
    }
    m_pending = spec;
    m_pendingTrace = trace;
    m_pendingAsIsFirst = asIsFirst;
    m_pendingId = id;
    startWorker(); // no-op while one is starting
    return id;
}

std::optional<bool> WorkerClient::mayTrace(TraceBackend backend) const
{
    const std::optional<std::string>& refusal = backend == TraceBackend::Bpf ? m_bpf : m_tracing;
    return refusal ? std::optional<bool>(refusal->empty()) : std::nullopt;
}

QString WorkerClient::tracingRefusal() const
{
    if (!m_tracing)
        return m_link.isRemote() ? tr("Whether the server may trace is known once its worker has started.")
                                 : tr("Whether this machine may trace is known once the worker has started.");
    return QString::fromStdString(*m_tracing);
}

QString WorkerClient::bpfRefusal() const { return m_bpf ? QString::fromStdString(*m_bpf) : tracingRefusal(); }

void WorkerClient::cancel()
{
    if (m_pending || m_pendingJob) {
        m_pending.reset();
        m_pendingJob.reset();
        emit runCancelled(m_pendingId);
        return;
    }
    if (!m_running)
        return;
    send(protocol::commandLine(protocol::CancelCommand { *m_running }));
    m_cancelWatchdog->start();
}

void WorkerClient::send(const std::string& line)
{
    if (m_process && m_process->state() == QProcess::Running)
        m_process->write(QByteArray::fromStdString(line) + '\n');
}

void WorkerClient::readLines()
{
    while (m_process && m_process->canReadLine()) {
        QByteArray line = m_process->readLine();
        line.chop(1);
        handleLine(line);
    }
    if (m_process && m_process->bytesAvailable() > kMaxBuffered) {
        m_process->kill();
        workerGone(tr("The worker sent more than %1 MB without a line break; it was stopped.").arg(kMaxBuffered >> 20));
    }
}

void WorkerClient::endRun()
{
    m_running.reset();
    m_cancelWatchdog->stop();
    if (m_state == State::Running)
        setState(State::Idle);
}

void WorkerClient::handleHello(const QString& description, int protocolVersion)
{
    if (m_state != State::Starting)
        return; // one hello per worker
    if (protocolVersion != protocol::kVersion) {
        m_process->kill();
        workerGone(m_link.isRemote()
                ? tr("The worker on %1 speaks protocol version %2; this app speaks %3. Install the same version of "
                     "the ctxscope-cli package on %1 as here (`sudo apt install ./ctxscope-cli_VERSION_amd64.deb`).")
                      .arg(m_link.destination)
                      .arg(protocolVersion)
                      .arg(protocol::kVersion)
                : tr("The worker speaks protocol version %1; this app speaks %2. Install matching versions of "
                     "ctxscope and ctxscope-cli.")
                      .arg(protocolVersion)
                      .arg(protocol::kVersion));
        return;
    }
    setState(State::Idle);
    emit workerReady(description);
    if (m_pendingJob) {
        send(protocol::commandLine(*m_pendingJob));
        m_pendingJob.reset();
        m_running = m_pendingId;
        setState(State::Running);
    }
    if (m_pending) {
        const BenchSpec spec = std::move(*m_pending);
        m_pending.reset();
        // Asked before the hello: traced only where the hello says the worker may trace.
        std::optional<protocol::RunTrace> trace = std::exchange(m_pendingTrace, {});
        if (trace && !mayTrace(trace->backend).value_or(false))
            trace.reset();
        send(protocol::commandLine(
            protocol::RunCommand { m_pendingId, spec, trace, std::exchange(m_pendingAsIsFirst, true) }));
        m_running = m_pendingId;
        setState(State::Running);
        emit runStarted(m_pendingId, spec);
    }
}

void WorkerClient::readErrors()
{
    if (!m_process)
        return;
    const QByteArray bytes = m_process->readAllStandardError();
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stderr);
    m_stderrTail += QString::fromLocal8Bit(bytes);
    if (m_stderrTail.size() > kStderrTailChars)
        m_stderrTail = m_stderrTail.right(kStderrTailChars);
}

void WorkerClient::processFinished(int exitCode, QProcess::ExitStatus status)
{
    readErrors();
    m_remoteCliMissing = status == QProcess::NormalExit && m_link.isRemote() && !m_link.push && exitCode == 127;
    if (status == QProcess::NormalExit && m_link.isRemote()) {
        const QString explained = explainRemoteExit(m_link, exitCode, m_stderrTail);
        if (!explained.isEmpty()) {
            workerGone(explained);
            return;
        }
    }
    QString why = status == QProcess::CrashExit
        ? tr("The worker (pid %1) was killed by signal %2.").arg(m_workerPid).arg(exitCode)
        : tr("The worker (pid %1) exited with code %2.").arg(m_workerPid).arg(exitCode);
    if (m_link.isRemote())
        why = status == QProcess::CrashExit ? tr("The connection to %1 ended: ssh (pid %2) was killed by signal %3.")
                                                  .arg(m_link.destination)
                                                  .arg(m_processPid)
                                                  .arg(exitCode)
                                            : tr("The connection to %1 ended: ssh (pid %2) exited with code %3.")
                                                  .arg(m_link.destination)
                                                  .arg(m_processPid)
                                                  .arg(exitCode);
    if (const QString said = lastLine(m_stderrTail); !said.isEmpty())
        why += tr(" It said: %1").arg(said);
    workerGone(why);
}

void WorkerClient::processError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart)
        workerGone(m_link.isRemote()
                ? tr("Could not start ssh (%1) to reach %2: %3. Install Debian's openssh-client.")
                      .arg(m_program, m_link.destination, m_process->errorString())
                : tr("Could not start the worker %1: %2.").arg(m_program, m_process->errorString()));
}

void WorkerClient::workerGone(const QString& why)
{
    if (m_reportedDeath)
        return;
    m_reportedDeath = true;
    m_cancelWatchdog->stop();
    if (m_running) {
        const quint64 id = *m_running;
        m_running.reset();
        emit runFailed(id, why);
    }
    if (m_pending || m_pendingJob) {
        m_pending.reset();
        m_pendingJob.reset();
        emit runFailed(m_pendingId, why);
    }
    for (const quint64 pin : std::exchange(m_pins, {}))
        emit pinFailed(pin, why);
    setState(State::Dead);
    emit workerFailed(why);
}

} // namespace ctxscope::gui
