// SPDX-License-Identifier: MIT
#include "programwatch.h"

#include "ctxscope/topology.h"

#include <algorithm>

namespace ctxscope::gui {

namespace {

QString cpuList(const std::vector<int>& cpus) { return QString::fromStdString(formatCpuList(cpus)); }

} // namespace

ProgramWatch::ProgramWatch(QObject* parent)
    : QObject(parent)
{
}

void ProgramWatch::begin(long pid)
{
    m_pid = pid;
    m_name.clear();
    m_kernel = false;
    m_samples = 0;
    m_lastSeconds = 0;
    m_threads.clear();
    m_history.clear();
    m_process.clear();
    m_firstAffinity.clear();
    m_pins.clear();
    m_systemSwitches.reset();
    m_wakeups.clear();
    m_traced = false;
    m_backend = SchedBackend::Proc;
    m_backendFallback.clear();
    m_timeline = {};
    m_timeline.comms[kOtherTasks] = "other tasks or idle";
    m_timelineLeftOut = 0;
    m_timelineCpus.clear();
    m_intervalBegin.reset();
    emit pinsChanged();
    emit sampleAdded();
    emit timelineChanged();
}

std::uint64_t ProgramWatch::timelineStretchFromNs() const
{
    const auto& events = m_timeline.events;
    const auto gap = std::find_if(events.rbegin(), events.rend(),
        [](const TraceEvent& e) { return e.kind == TraceEventKind::Switch && e.pid == kUnrecordedPid; });
    if (gap != events.rend())
        return gap->ns;
    return events.empty() ? 0 : events.front().ns;
}

void ProgramWatch::addEvents(const std::vector<TraceEvent>& events, const std::map<int, std::string>& comms,
    bool intervalEnds, std::uint64_t leftOut)
{
    const auto watched = [&](std::int32_t tid) { return m_history.contains(tid); };
    auto& kept = m_timeline.events;
    if (!m_intervalBegin)
        m_intervalBegin = kept.size();
    for (TraceEvent e : events) {
        m_timelineCpus.insert(e.cpu);
        if (e.kind == TraceEventKind::Switch) {
            if (!watched(e.pid))
                e.pid = kOtherTasks;
            if (!watched(e.other))
                e.other = kOtherTasks;
        }
        kept.push_back(e);
    }
    for (const auto& [pid, name] : comms)
        m_timeline.comms[pid] = name;
    m_timeline.recorded += events.size() + leftOut;
    m_timelineLeftOut += leftOut;
    if (!intervalEnds)
        return;
    const std::size_t begin = *std::exchange(m_intervalBegin, std::nullopt);
    // The interval's earlier events were left out: each PU's lane breaks where its kept ones
    // begin (kUnrecordedPid), instead of stretching what ran before over what was not seen.
    if (leftOut > 0 && begin < kept.size()) {
        std::vector<TraceEvent> gaps;
        for (const int cpu : m_timelineCpus)
            gaps.push_back({ kept[begin].ns, cpu, kUnrecordedPid, kUnrecordedPid, -1, 0, TraceEventKind::Switch });
        kept.insert(kept.begin() + static_cast<std::ptrdiff_t>(begin), gaps.begin(), gaps.end());
    }
    if (kept.empty())
        return;
    // The last kTimelineNs (a move of at most kTimelineEvents, every 0.5 s).
    const std::uint64_t from = kept.back().ns > kTimelineNs ? kept.back().ns - kTimelineNs : 0;
    auto first = std::lower_bound(
        kept.begin(), kept.end(), from, [](const TraceEvent& e, std::uint64_t ns) { return e.ns < ns; });
    if (static_cast<std::size_t>(kept.end() - first) > kTimelineEvents) {
        m_timelineLeftOut += static_cast<std::size_t>(kept.end() - first) - kTimelineEvents;
        first = kept.end() - static_cast<std::ptrdiff_t>(kTimelineEvents);
    }
    kept.erase(kept.begin(), first);
    if (m_timeline.comms.size() > kTimelineNames) {
        std::map<int, std::string> named;
        const auto keep = [&](int task) {
            if (const auto it = m_timeline.comms.find(task); it != m_timeline.comms.end())
                named.insert(*it);
        };
        keep(kOtherTasks);
        for (const TraceEvent& e : kept) {
            keep(e.pid);
            keep(e.other);
        }
        m_timeline.comms = std::move(named);
    }
    emit timelineChanged();
}

void ProgramWatch::addSample(const WatchSample& sample)
{
    if (sample.pid != m_pid)
        return; // a late sample of the previous watch
    m_name = QString::fromStdString(sample.name);
    m_kernel = sample.kernel;
    ++m_samples;
    m_lastSeconds = sample.seconds;
    m_systemSwitches = sample.systemSwitchesPerS;
    m_backend = sample.backend;
    m_backendFallback = QString::fromStdString(sample.backendFallback);
    ThreadPoint total { sample.seconds, 0, std::nullopt };
    for (const ThreadRates& t : sample.threads) {
        m_firstAffinity.try_emplace(t.tid, t.affinity);
        const ThreadPoint point { sample.seconds, t.voluntaryPerS + t.involuntaryPerS, t.runqueueWaitPerS };
        std::deque<ThreadPoint>& history = m_history[t.tid];
        history.push_back(point);
        if (history.size() > kHistory)
            history.pop_front();
        total.switchesPerS += point.switchesPerS;
        if (t.sched)
            addWakeups(t.tid, *t.sched);
        if (point.runqueueWaitPerS)
            total.runqueueWaitPerS = total.runqueueWaitPerS.value_or(0) + *point.runqueueWaitPerS;
    }
    m_process.push_back(total);
    if (m_process.size() > kHistory)
        m_process.pop_front();
    for (const EndedThread& ended : sample.ended)
        m_firstAffinity.erase(ended.tid); // nothing left to restore; its history stays for the plot
    m_threads.setThreads(sample.threads);
    emit sampleAdded();
}

void ProgramWatch::addPin(double seconds, const std::vector<PinChange>& changes)
{
    if (changes.empty())
        return;
    for (const PinChange& change : changes)
        m_threads.setAffinity(change.tid, change.after);
    const QString to = cpuList(changes.front().after);
    const bool same = std::all_of(
        changes.begin(), changes.end(), [&](const PinChange& c) { return c.after == changes.front().after; });
    const QString what = changes.size() == 1 ? tr("%1 → %2").arg(changes.front().tid).arg(to)
        : same                               ? tr("%1 threads → %2").arg(changes.size()).arg(to)
                                             : tr("%1 threads re-pinned").arg(changes.size());
    m_pins.push_back({ seconds, what });
    // A re-pinned thread's wake-ups from now on are another epoch: before and after, side by side.
    for (const PinChange& change : changes)
        if (auto it = m_wakeups.find(change.tid); it != m_wakeups.end() && it->second.back().count > 0)
            it->second.push_back({ seconds, tr("after %1").arg(what), {}, 0, {}, {} });
    emit pinsChanged();
}

void ProgramWatch::addWakeups(long tid, const ThreadSched& sched)
{
    m_traced = true;
    std::vector<WakeupEpoch>& epochs = m_wakeups[tid];
    if (epochs.empty())
        epochs.push_back({ 0, tr("from the start"), {}, 0, {}, {} });
    WakeupEpoch& epoch = epochs.back();
    const auto& bins = sched.wake.log2Hist;
    if (epoch.log2Hist.size() < bins.size())
        epoch.log2Hist.resize(bins.size());
    for (std::size_t i = 0; i < bins.size(); ++i)
        epoch.log2Hist[i] += bins[i];
    epoch.count += sched.wake.count;
    const auto name = [](const SchedPeer& p) {
        return p.tid == 0 ? std::string("an interrupt") : p.name + " (" + std::to_string(p.tid) + ")";
    };
    for (const SchedPeer& p : sched.wakers)
        epoch.wakers[name(p)] += p.count;
    for (const SchedPeer& p : sched.preemptors)
        epoch.preemptors[name(p)] += p.count;
}

const std::vector<WakeupEpoch>* ProgramWatch::wakeups(long tid) const
{
    const auto it = m_wakeups.find(tid);
    return it == m_wakeups.end() ? nullptr : &it->second;
}

std::optional<std::uint64_t> WakeupEpoch::quantileBin(double q) const
{
    std::uint64_t total = 0;
    for (std::uint64_t n : log2Hist)
        total += n;
    if (total == 0)
        return std::nullopt;
    const double rank = q * static_cast<double>(total);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < log2Hist.size(); ++i) {
        seen += log2Hist[i];
        if (static_cast<double>(seen) >= rank && log2Hist[i] > 0)
            return std::uint64_t { 1 } << i;
    }
    return std::uint64_t { 1 } << (log2Hist.size() - 1);
}

std::vector<std::pair<std::string, std::uint64_t>> WakeupEpoch::top(
    const std::map<std::string, std::uint64_t>& peers, std::size_t most)
{
    std::vector<std::pair<std::string, std::uint64_t>> out(peers.begin(), peers.end());
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (out.size() > most)
        out.resize(most);
    return out;
}

const std::deque<ThreadPoint>* ProgramWatch::history(long tid) const
{
    const auto it = m_history.find(tid);
    return it == m_history.end() ? nullptr : &it->second;
}

PinGuard ProgramWatch::guard() const { return pinGuard(m_pid, m_kernel, m_name.toStdString()); }

std::vector<std::pair<long, std::vector<int>>> ProgramWatch::restorePlan() const
{
    std::vector<std::pair<long, std::vector<int>>> plan;
    for (const ThreadRates& t : m_threads.threads()) {
        const auto first = m_firstAffinity.find(t.tid);
        if (first != m_firstAffinity.end() && first->second != t.affinity)
            plan.emplace_back(t.tid, first->second);
    }
    return plan;
}

} // namespace ctxscope::gui
