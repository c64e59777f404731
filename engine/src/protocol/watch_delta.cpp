// SPDX-License-Identifier: MIT
#include "ctxscope/watch_delta.h"

#include <algorithm>
#include <array>
#include <cmath>

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

// A thread's figures as the stream carries them (sixDigits); its counts are whole already.
void roundFigures(ThreadRates& t)
{
    for (double* v : { &t.voluntaryPerS, &t.involuntaryPerS, &t.cpuShare, &t.migrationsPerS })
        *v = sixDigits(*v);
    if (t.runqueueWaitPerS)
        *t.runqueueWaitPerS = sixDigits(*t.runqueueWaitPerS);
    if (t.sched) {
        WakeLatency& w = t.sched->wake;
        EnqueueWait& q = t.sched->fromEnqueue;
        for (double* v : { &w.meanNs, &w.p50Ns, &w.p99Ns, &w.maxNs, &q.meanNs, &q.p50Ns, &q.p99Ns })
            *v = sixDigits(*v);
    }
}

// The sample's own fields into `s`, its threads left as they are (a copy of the sample would
// copy every thread only to clear them).
void assignWithoutThreads(const WatchSample& full, WatchSample& s)
{
    s.pid = full.pid;
    s.name = full.name;
    s.kernel = full.kernel;
    s.seconds = full.seconds;
    s.intervalS = full.intervalS;
    s.monoNs = full.monoNs;
    s.appeared = full.appeared;
    s.ended = full.ended;
    s.systemSwitchesPerS = full.systemSwitchesPerS;
    s.cpus = full.cpus;
    s.backend = full.backend;
    s.backendFallback = full.backendFallback;
}

// Appends `thread` to the first `used` of `into`, assigned into an element kept from an earlier
// event where there is one.
void put(std::vector<ThreadRates>& into, std::size_t& used, const ThreadRates& thread)
{
    if (used < into.size())
        into[used] = thread;
    else
        into.push_back(thread);
    ++used;
}

} // namespace

double sixDigits(double v)
{
    if (v == 0 || !std::isfinite(v))
        return v;
    static constexpr std::array<double, 23> kTens = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 }; // each exact
    const auto ten = [&](int e) { return kTens[static_cast<std::size_t>(e)]; };
    // The decimal exponent of |v| from its binary one (log10(2) = 0.30103...), then corrected.
    int binary = 0;
    std::frexp(v, &binary);
    int decimal = static_cast<int>(std::floor((binary - 1) * 0.30102999566398120));
    const int next = decimal + 1;
    if (next >= -22 && next <= 22 && std::fabs(v) >= (next >= 0 ? ten(next) : 1 / ten(-next)))
        decimal = next;
    const int shift = 5 - decimal; // keeps the digits from 10^decimal down to 10^(decimal - 5)
    if (shift >= 0 && shift <= 22) // k / 10^shift, correctly rounded: the double nearest that decimal
        return std::round(v * ten(shift)) / ten(shift);
    if (shift < 0 && -shift <= 22)
        return std::round(v / ten(-shift)) * ten(-shift);
    return v; // below 10^-17 or from 10^28 on: as it is
}

WatchDeltaEvent WatchDeltaEncoder::encode(std::uint64_t id, const WatchSample& full, const WatchFocus& focus)
{
    WatchDeltaEvent event;
    encode(id, full, focus, event);
    return event;
}

void WatchDeltaEncoder::encode(
    std::uint64_t id, const WatchSample& full, const WatchFocus& focus, WatchDeltaEvent& event)
{
    event.id = id;
    assignWithoutThreads(full, event.sample);
    event.whole = focus.everything;
    event.gone.clear();
    std::size_t objects = 0;
    std::size_t rows = 0;
    m_present.clear();
    for (const ThreadRates& thread : full.threads) {
        m_present.push_back(thread.tid);
        const bool inFocus = focus.everything || focus.tids.contains(thread.tid);
        m_lean = thread; // into m_lean's memory: no allocation once it has held a thread as large
        if (m_lean.sched) {
            ThreadSched& s = *m_lean.sched;
            s.waitsNs.clear(); // never on the wire
            if (inFocus) {
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
                s.fromEnqueue = {}; // the interval's own, not summed: sent only in focus
            }
        }
        roundFigures(m_lean);
        auto sent = m_sent.find(thread.tid);
        // Out of focus, known by name and affinity already: a row of values.
        const bool brief = sent != m_sent.end() && !inFocus && sent->second.name == m_lean.name
            && sent->second.affinity == m_lean.affinity;
        if (sent == m_sent.end())
            m_sent.emplace(thread.tid, m_lean);
        else if (!sameThread(sent->second, m_lean))
            sent->second = m_lean;
        else if (!focus.everything)
            continue; // unchanged: the decoder repeats it
        if (brief)
            put(event.brief, rows, m_lean);
        else
            put(event.sample.threads, objects, m_lean);
    }
    event.sample.threads.resize(objects);
    event.brief.resize(rows);
    // The threads sent before that this sample no longer has (a sample's threads come by TID;
    // sorted here all the same, as the lookups below need it).
    if (!std::is_sorted(m_present.begin(), m_present.end()))
        std::sort(m_present.begin(), m_present.end());
    for (auto it = m_sent.begin(); it != m_sent.end();) {
        if (std::binary_search(m_present.begin(), m_present.end(), it->first)) {
            ++it;
            continue;
        }
        event.gone.push_back(it->first);
        m_withheld.erase(it->first);
        it = m_sent.erase(it);
    }
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
