// SPDX-License-Identifier: MIT
// One thread's scheduling figures over many intervals (ctxscope/sched_total.h).
#include "ctxscope/sched_total.h"

#include "trace/sched_figures.h"

#include <algorithm>
#include <utility>

namespace ctxscope {

namespace {

// The most frequent first, at most trace::kTopPeers (SchedTotal's running totals).
std::vector<SchedPeer> top(const std::map<long, SchedPeer>& peers)
{
    std::vector<SchedPeer> v;
    for (const auto& [tid, p] : peers)
        v.push_back(p);
    trace::byCount(v);
    if (v.size() > trace::kTopPeers)
        v.resize(trace::kTopPeers);
    return v;
}

std::vector<SchedMigration> ordered(const std::map<std::pair<int, int>, SchedMigration>& moves)
{
    std::vector<SchedMigration> v;
    for (const auto& [key, m] : moves)
        v.push_back(m);
    return trace::ordered(std::move(v));
}

} // namespace

WakeLatency wakeLatencyOf(std::vector<double> waitsNs)
{
    std::sort(waitsNs.begin(), waitsNs.end());
    return trace::wakeLatencyOfSorted(waitsNs);
}

void SchedTotal::add(const ThreadSched& interval)
{
    for (double w : interval.waitsNs) {
        m_waits.add(w);
        m_sumNs += w;
        m_maxNs = std::max(m_maxNs, w);
        trace::addLog2(m_log2, w);
    }
    if (interval.wake.fromBins && interval.wake.count > 0) {
        if (m_log2.size() < interval.wake.log2Hist.size())
            m_log2.resize(interval.wake.log2Hist.size(), 0);
        for (std::size_t i = 0; i < interval.wake.log2Hist.size(); ++i)
            m_log2[i] += interval.wake.log2Hist[i];
        m_binned += interval.wake.count;
        m_sumNs += interval.wake.meanNs * static_cast<double>(interval.wake.count);
        m_maxNs = std::max(m_maxNs, interval.wake.maxNs);
    }
    if (interval.fromEnqueue.known) {
        m_enqueueKnown = true;
        const auto& bins = interval.fromEnqueue.log2UsHist;
        if (m_queuedLog2Us.size() < bins.size())
            m_queuedLog2Us.resize(bins.size(), 0);
        for (std::size_t i = 0; i < bins.size(); ++i)
            m_queuedLog2Us[i] += bins[i];
        m_queued += interval.fromEnqueue.count;
        m_queuedSumNs += interval.fromEnqueue.meanNs * static_cast<double>(interval.fromEnqueue.count);
    }
    m_switchIns += interval.switchIns;
    m_unrecorded += interval.unrecordedSwitchIns;
    m_lost += interval.lostEvents;
    auto addPeers = [](std::map<long, SchedPeer>& total, const std::vector<SchedPeer>& peers) {
        for (const auto& p : peers) {
            SchedPeer& t = total[p.tid];
            t.tid = p.tid;
            if (t.name.empty())
                t.name = p.name;
            t.count += p.count;
        }
    };
    addPeers(m_wakers, interval.wakers);
    addPeers(m_preemptors, interval.preemptors);
    for (const auto& m : interval.migrations) {
        SchedMigration& t = m_migrations[{ m.from, m.to }];
        const std::uint64_t before = t.count;
        t = m;
        t.count = before + m.count;
    }
}

ThreadSched SchedTotal::figures() const
{
    ThreadSched s;
    s.switchIns = m_switchIns;
    s.unrecordedSwitchIns = m_unrecorded;
    s.wake.count = m_waits.count() + m_binned;
    s.wake.fromBins = m_binned > 0;
    if (s.wake.count > 0) {
        s.wake.meanNs = m_sumNs / static_cast<double>(s.wake.count);
        if (s.wake.fromBins) {
            const auto [p50, p99] = trace::log2Quantiles(m_log2, 0.5, 0.99);
            s.wake.p50Ns = std::min(p50, m_maxNs);
            s.wake.p99Ns = std::min(p99, m_maxNs);
        } else {
            s.wake.p50Ns = m_waits.percentile(0.5);
            s.wake.p99Ns = m_waits.percentile(0.99);
        }
        s.wake.maxNs = m_maxNs;
        s.wake.log2Hist = m_log2;
    }
    s.fromEnqueue = trace::enqueueWaitOf(m_queuedLog2Us, m_queued, m_queuedSumNs, m_maxNs);
    s.fromEnqueue.known = m_enqueueKnown;
    s.wakers = top(m_wakers);
    s.preemptors = top(m_preemptors);
    s.migrations = ordered(m_migrations);
    s.lostEvents = m_lost;
    return s;
}

} // namespace ctxscope
