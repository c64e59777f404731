// SPDX-License-Identifier: MIT
#include "ctxscope/watch_delta.h"

#include <algorithm>

namespace ctxscope::protocol {

namespace {

using PeerSums = std::map<std::pair<long, std::string>, std::uint64_t>;

void addBins(std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& bins)
{
    if (to.size() < bins.size())
        to.resize(bins.size(), 0);
    for (std::size_t i = 0; i < bins.size(); ++i)
        to[i] += bins[i];
}

void addPeers(PeerSums& to, const std::vector<SchedPeer>& peers)
{
    for (const SchedPeer& p : peers)
        to[{ p.tid, p.name }] += p.count;
}

// The interval's peers with what was held back added: the interval's in their order, then the
// others, most first. The app sums peers by thread, so the order changes nothing it shows.
void mergePeers(std::vector<SchedPeer>& peers, PeerSums held)
{
    for (SchedPeer& p : peers)
        if (const auto it = held.find({ p.tid, p.name }); it != held.end()) {
            p.count += it->second;
            held.erase(it);
        }
    std::vector<SchedPeer> rest;
    for (const auto& [who, count] : held)
        rest.push_back({ who.first, who.second, count });
    std::stable_sort(
        rest.begin(), rest.end(), [](const SchedPeer& a, const SchedPeer& b) { return a.count > b.count; });
    peers.insert(peers.end(), rest.begin(), rest.end());
}

bool samePeers(const std::vector<SchedPeer>& a, const std::vector<SchedPeer>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const SchedPeer& x, const SchedPeer& y) {
        return x.tid == y.tid && x.count == y.count && x.name == y.name;
    });
}

// Everything of a sched block the stream carries (not waitsNs).
bool sameSched(const ThreadSched& a, const ThreadSched& b)
{
    const WakeLatency& x = a.wake;
    const WakeLatency& y = b.wake;
    const auto sameMove = [](const SchedMigration& m, const SchedMigration& n) {
        return m.from == n.from && m.to == n.to && m.count == n.count && m.relation == n.relation;
    };
    const EnqueueWait& q = a.fromEnqueue;
    const EnqueueWait& r = b.fromEnqueue;
    const bool sameQueued = q.known == r.known && q.count == r.count && q.meanNs == r.meanNs && q.p50Ns == r.p50Ns
        && q.p99Ns == r.p99Ns && q.log2UsHist == r.log2UsHist;
    return sameQueued && a.switchIns == b.switchIns && a.unrecordedSwitchIns == b.unrecordedSwitchIns
        && a.lostEvents == b.lostEvents && x.count == y.count && x.meanNs == y.meanNs && x.p50Ns == y.p50Ns
        && x.p99Ns == y.p99Ns && x.maxNs == y.maxNs && x.fromBins == y.fromBins && x.log2Hist == y.log2Hist
        && samePeers(a.wakers, b.wakers) && samePeers(a.preemptors, b.preemptors)
        && std::equal(a.migrations.begin(), a.migrations.end(), b.migrations.begin(), b.migrations.end(), sameMove);
}

// Everything of a thread the stream carries: a thread equal to the one last sent is left out.
bool sameThread(const ThreadRates& a, const ThreadRates& b)
{
    return a.tid == b.tid && a.state == b.state && a.cpu == b.cpu && a.voluntaryPerS == b.voluntaryPerS
        && a.involuntaryPerS == b.involuntaryPerS && a.cpuShare == b.cpuShare
        && a.runqueueWaitPerS == b.runqueueWaitPerS && a.migrationsPerS == b.migrationsPerS
        && a.migrationsLowerBound == b.migrationsLowerBound && a.name == b.name && a.affinity == b.affinity
        && a.sched.has_value() == b.sched.has_value() && (!a.sched || sameSched(*a.sched, *b.sched));
}

} // namespace

WatchDeltaEvent WatchDeltaEncoder::encode(std::uint64_t id, const WatchSample& full, const WatchFocus& focus)
{
    WatchDeltaEvent event;
    event.id = id;
    event.sample = full;
    event.sample.threads.clear();
    event.whole = focus.everything;
    std::set<long> present;
    for (const ThreadRates& thread : full.threads) {
        present.insert(thread.tid);
        ThreadRates lean = thread;
        if (lean.sched) {
            ThreadSched& s = *lean.sched;
            s.waitsNs.clear(); // never on the wire
            if (focus.everything || focus.tids.contains(thread.tid)) {
                if (const auto held = m_withheld.find(thread.tid); held != m_withheld.end()) {
                    addBins(s.wake.log2Hist, held->second.log2Hist);
                    mergePeers(s.wakers, std::move(held->second.wakers));
                    mergePeers(s.preemptors, std::move(held->second.preemptors));
                    m_withheld.erase(held);
                }
            } else {
                Withheld& held = m_withheld[thread.tid];
                addBins(held.log2Hist, s.wake.log2Hist);
                addPeers(held.wakers, s.wakers);
                addPeers(held.preemptors, s.preemptors);
                s.wake.log2Hist.clear();
                s.wakers.clear();
                s.preemptors.clear();
                s.migrations.clear();
            }
        }
        auto sent = m_sent.find(thread.tid);
        // Out of focus, known by name and affinity already: a row of values.
        const bool brief = sent != m_sent.end() && !focus.everything && !focus.tids.contains(thread.tid)
            && sent->second.name == lean.name && sent->second.affinity == lean.affinity;
        if (sent == m_sent.end())
            sent = m_sent.emplace(thread.tid, lean).first;
        else if (!sameThread(sent->second, lean))
            sent->second = lean;
        else if (!focus.everything)
            continue; // unchanged: the decoder repeats it
        (brief ? event.brief : event.sample.threads).push_back(std::move(lean));
    }
    for (auto it = m_sent.begin(); it != m_sent.end();) {
        if (present.contains(it->first)) {
            ++it;
            continue;
        }
        event.gone.push_back(it->first);
        m_withheld.erase(it->first);
        it = m_sent.erase(it);
    }
    return event;
}

WatchSample WatchDeltaDecoder::apply(const WatchDeltaEvent& event)
{
    if (event.whole)
        m_threads.clear();
    for (const long tid : event.gone)
        m_threads.erase(tid);
    for (const ThreadRates& thread : event.sample.threads)
        m_threads.insert_or_assign(thread.tid, thread);
    for (const ThreadRates& thread : event.brief) {
        ThreadRates& held = m_threads[thread.tid];
        std::string name = std::move(held.name);
        std::vector<int> affinity = std::move(held.affinity);
        held = thread;
        held.name = std::move(name);
        held.affinity = std::move(affinity);
    }
    WatchSample sample = event.sample;
    sample.threads.clear();
    sample.threads.reserve(m_threads.size());
    for (const auto& [tid, thread] : m_threads)
        sample.threads.push_back(thread);
    return sample;
}

} // namespace ctxscope::protocol
