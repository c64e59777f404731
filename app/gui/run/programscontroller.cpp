// SPDX-License-Identifier: MIT
#include "programscontroller.h"

#include "workerclient.h"

#include "ctxscope/topology.h"

#include <algorithm>
#include <utility>

namespace ctxscope::gui {

ProgramsController::ProgramsController(QObject* parent)
    : QObject(parent)
    , m_worker(new WorkerClient(this))
{
    connect(m_worker, &WorkerClient::processesAvailable, this,
        [this](quint64 id, std::shared_ptr<const std::vector<ProcessActivity>> list) {
            if (m_listId != id)
                return;
            m_processes.setProcesses(*list);
            emit processesChanged();
            jobEnded(id, {});
        });
    connect(m_worker, &WorkerClient::watchSampleAvailable, this,
        [this](quint64 id, std::shared_ptr<const WatchSample> sample) {
            if (m_watchId != id)
                return;
            m_sinceSample.restart();
            m_watch.addSample(*sample);
        });
    connect(m_worker, &WorkerClient::traceEventsAvailable, this,
        [this](quint64 id, std::shared_ptr<const protocol::TraceEventsEvent> part) {
            if (m_watchId != id)
                return;
            const bool last = part->first + part->events.size() >= part->window;
            m_watch.addEvents(part->events, part->comms, last, last ? part->recorded - part->window : 0);
        });
    connect(
        m_worker, &WorkerClient::watchFinished, this, [this](quint64 id, std::shared_ptr<const WatchSummary> summary) {
            jobEnded(id, QString::fromStdString(summary->ending));
        });
    connect(m_worker, &WorkerClient::runFailed, this, [this](quint64 id, const QString& message) {
        if (m_switching) { // the worker was stopped on purpose: no failure to report
            jobEnded(id, {});
            return;
        }
        if (id == m_listId || id == m_watchId)
            emit failed(message);
        jobEnded(id, message);
    });
    connect(m_worker, &WorkerClient::runCancelled, this, [this](quint64 id) { jobEnded(id, {}); });
    connect(m_worker, &WorkerClient::pinned, this, [this](quint64 id, const std::vector<PinChange>& changes) {
        m_pinned.insert(m_pinned.end(), changes.begin(), changes.end());
        pinAnswered(id);
    });
    connect(m_worker, &WorkerClient::pinFailed, this, [this](quint64 id, const QString& message) {
        m_refusal = message; // said once the batch is answered, after what did get pinned
        pinAnswered(id);
    });
}

ProgramsController::~ProgramsController() = default;

void ProgramsController::setMachine(const MachineLink& link)
{
    if (link.isRemote() == m_link.isRemote() && link.destination == m_link.destination
        && link.remoteCli == m_link.remoteCli)
        return;
    // The threads re-pinned on the machine left get their affinity back first: the worker
    // sets it as it reads each pin, before the quit that follows them.
    restore();
    m_link = link;
    m_nextPid.reset();
    m_switching = true;
    m_worker->stopWorker(); // its watch and list end through runFailed, its pins through pinFailed
    m_switching = false;
    m_pins.clear();
    m_pinned.clear();
    m_refusal.clear();
    m_worker->setLink(link);
    // What was listed and watched belongs to the other machine: its PIDs and TIDs mean
    // nothing here (Restore there would re-pin unrelated threads here).
    m_watch.begin(0);
    m_processes.setProcesses({});
    emit processesChanged();
}

void ProgramsController::refreshProcesses()
{
    if (m_listId)
        return;
    m_listId = m_worker->startProcesses(kListSeconds);
    emit busyChanged();
}

bool ProgramsController::watch(long pid)
{
    if (pid <= 0)
        return false;
    m_nextPid = pid;
    if (m_watchId)
        stop(); // the next watch starts once this one has ended
    else if (!m_listId)
        startPending(); // else once the list (a second at most) is in
    return true;
}

void ProgramsController::startPending()
{
    if (!m_nextPid || m_worker->isBusy())
        return;
    const long pid = *m_nextPid;
    m_nextPid.reset();
    m_watch.begin(pid);
    m_shown.clear();
    m_sinceSample.start();
    m_watchKeepsEvents = m_traced && m_timeline;
    m_watchId = m_worker->startWatch(pid, kIntervalS, m_traced, m_watchKeepsEvents ? kTimelineEventsPerInterval : 0);
    if (m_watchId)
        emit watchStarted(pid);
    emit busyChanged();
}

void ProgramsController::showThreads(std::vector<long> tids)
{
    std::sort(tids.begin(), tids.end());
    tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
    if (!m_watchId || tids == m_shown)
        return;
    if (m_worker->focusWatch(*m_watchId, tids))
        m_shown = std::move(tids);
}

QString ProgramsController::tracingRefusal() const { return m_worker->tracingRefusal(); }

void ProgramsController::stop()
{
    if (m_watchId)
        m_worker->cancel();
}

void ProgramsController::jobEnded(quint64 id, const QString& why)
{
    if (id == m_watchId) {
        m_watchId.reset();
        emit watchEnded(why);
    } else if (id == m_listId) {
        m_listId.reset();
    } else {
        return;
    }
    emit busyChanged();
    startPending();
}

double ProgramsController::watchSeconds() const
{
    return m_watch.lastSeconds()
        + (m_sinceSample.isValid() ? static_cast<double>(m_sinceSample.elapsed()) / 1000.0 : 0);
}

void ProgramsController::setWorkerCpus(std::vector<int> cpus) { m_worker->setWorkerCpus(std::move(cpus)); }

void ProgramsController::pinAnswered(quint64 id)
{
    std::erase(m_pins, id);
    if (m_pins.empty()) {
        if (!m_pinned.empty()) {
            m_watch.addPin(watchSeconds(), std::exchange(m_pinned, {}));
            emit pinDone(m_watch.pins().back().what);
        }
        // A refusal among the batch stays what the panel says last.
        if (!m_refusal.isEmpty())
            emit pinRefused(std::exchange(m_refusal, {}));
    }
    emit busyChanged();
}

void ProgramsController::pinThreads(
    const std::vector<long>& tids, const std::vector<int>& cpus, KernelThreads kernelThreads)
{
    int sent = 0;
    for (const long tid : tids)
        if (const auto id = m_worker->pin(tid, false, cpus, kernelThreads)) {
            m_pins.push_back(*id);
            ++sent;
        }
    if (sent == 0 && !tids.empty())
        emit pinRefused(tr("The worker is not running, so nothing was pinned: watch the program again."));
    emit busyChanged();
}

int ProgramsController::restore()
{
    const auto plan = m_watch.restorePlan();
    // Only the watched program's threads are in the plan: the opt-in reaches no other thread.
    const auto kernelThreads = m_watch.guard() == PinGuard::None ? KernelThreads::Refuse : KernelThreads::Move;
    int sent = 0;
    for (const auto& [tid, cpus] : plan)
        if (const auto id = m_worker->pin(tid, false, cpus, kernelThreads)) {
            m_pins.push_back(*id);
            ++sent;
        }
    if (sent == 0 && !plan.empty())
        emit pinRefused(tr("The worker is not running, so no thread was restored: watch the program again."));
    emit busyChanged();
    return sent;
}

} // namespace ctxscope::gui
