// SPDX-License-Identifier: MIT
// A watched program's scheduling from its own events. One pass per drain, with what is still
// pending (a wake-up not yet run, the CPU each thread last ran on) kept across drains.
#include "ctxscope/sched_watch.h"

#include "ctxscope/placement.h"
#include "ctxscope/topology.h"
#include "ctxscope/trace.h"
#include "os/procfs.h"
#include "trace/sched_gather.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <optional>

namespace ctxscope {

namespace {

constexpr std::size_t kTopPeers = 5;

// prev_state of a task switched out while runnable: 0 (R) or the kernel's "preempted" bit
// (TASK_REPORT_MAX, above the state bits); any of the low state bits means it went to sleep.
bool stillRunnable(std::int64_t prevState) { return (prevState & 0xff) == 0; }

int log2Bin(double ns) { return ns < 1 ? 0 : static_cast<int>(std::floor(std::log2(ns))); }

void addLog2(std::vector<std::uint64_t>& bins, double ns)
{
    const auto bin = static_cast<std::size_t>(log2Bin(ns));
    if (bins.size() <= bin)
        bins.resize(bin + 1, 0);
    ++bins[bin];
}

std::vector<SchedPeer> top(const std::map<long, SchedPeer>& peers)
{
    std::vector<SchedPeer> v;
    for (const auto& [tid, p] : peers)
        v.push_back(p);
    std::stable_sort(v.begin(), v.end(), [](const SchedPeer& a, const SchedPeer& b) { return a.count > b.count; });
    if (v.size() > kTopPeers)
        v.resize(kTopPeers);
    return v;
}

std::vector<SchedMigration> ordered(const std::map<std::pair<int, int>, SchedMigration>& moves)
{
    std::vector<SchedMigration> v;
    for (const auto& [key, m] : moves)
        v.push_back(m);
    std::stable_sort(
        v.begin(), v.end(), [](const SchedMigration& a, const SchedMigration& b) { return a.count > b.count; });
    return v;
}

void count(std::map<long, SchedPeer>& peers, long tid, const std::map<int, std::string>& comms)
{
    SchedPeer& p = peers[tid];
    p.tid = tid;
    if (p.name.empty()) {
        auto c = comms.find(static_cast<int>(tid));
        p.name = tid == 0 ? "an interrupt" : (c != comms.end() ? c->second : std::string());
    }
    ++p.count;
}

class Watch final : public SchedWatch {
public:
    Watch(std::unique_ptr<TraceSession> session, std::optional<Topology> topology, std::size_t keepBytes)
        : m_session(std::move(session))
        , m_gather(std::move(topology))
        , m_keepBytes(keepBytes)
    {
    }

    const RawTrace& recording(bool& complete) const override
    {
        complete = m_recordingComplete;
        return m_recording;
    }

    Status follow(const std::vector<long>& tids) override { return m_session->addPids(tids); }

    Status countFrom(std::uint64_t monoNs) override
    {
        if (Status s = read(monoNs); !s)
            return s;
        m_gather.forget();
        m_lostBefore = m_lostNow;
        return {};
    }

    Status pump() override { return read(monoNow()); }

    Expected<std::map<long, ThreadSched>> drain(std::uint64_t untilMonoNs) override
    {
        if (Status s = read(std::min(untilMonoNs, monoNow())); !s)
            return s.error();
        const std::uint64_t lost = m_lostNow - std::min(m_lostNow, m_lostBefore);
        m_lostBefore = m_lostNow;
        // Switches name the other task too (the idle task, a task sharing the CPU): every task
        // the events name is reported, and the watch keeps the program's threads.
        auto figures = m_gather.take(lost);
        // A waker or preemptor no switch named yet (it has not been switched in or out while
        // traced): its name from /proc, once.
        for (auto& [tid, f] : figures)
            for (auto* peers : { &f.wakers, &f.preemptors })
                for (SchedPeer& p : *peers)
                    if (p.name.empty() && p.tid != 0)
                        p.name = nameOf(p.tid);
        return figures;
    }

private:
    static std::uint64_t monoNow()
    {
        timespec now {};
        clock_gettime(CLOCK_MONOTONIC, &now);
        return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(now.tv_nsec);
    }

    // Reads the kernel's buffers and gathers the events up to `horizon`, in time order; later
    // ones wait. Each CPU's buffer is read in turn, so an event on one CPU that was read late
    // can be older than one read on another: a horizon no later than the read's start keeps
    // events in order across CPUs.
    Status read(std::uint64_t horizon)
    {
        auto raw = m_session->collect();
        if (!raw)
            return raw.error();
        keep(*raw);
        if (!m_decoder) {
            auto decoder = TraceDecoder::make(*raw);
            if (!decoder)
                return decoder.error();
            m_decoder = std::move(*decoder);
        }
        // Decoded and gathered as it is read: only the interval's figures are kept.
        Trace trace;
        trace.events = std::move(m_later);
        m_later.clear();
        const auto held = static_cast<std::ptrdiff_t>(trace.events.size());
        if (Status s = m_decoder->decode(*raw, trace); !s)
            return s;
        // Both parts are in time order already (decode sorts what it appends): merged, stably.
        std::inplace_merge(trace.events.begin(), trace.events.begin() + held, trace.events.end(),
            [](const TraceEvent& a, const TraceEvent& b) { return a.ns < b.ns; });
        const auto later = std::find_if(
            trace.events.begin(), trace.events.end(), [&](const TraceEvent& e) { return e.ns > horizon; });
        m_later.assign(later, trace.events.end());
        trace.events.erase(later, trace.events.end());
        for (auto& [pid, comm] : trace.comms) // the switches' own names
            m_names[pid] = std::move(comm);
        for (const TraceEvent& e : trace.events)
            m_gather.add(e, m_names);
        m_lostNow = trace.lostEvents(); // the kernel's counts run from the instance's start
        return {};
    }

    // For a trace file: the pages as the kernel wrote them, until they reach m_keepBytes.
    void keep(const RawTrace& raw)
    {
        if (m_keepBytes == 0 || !m_recordingComplete)
            return;
        if (m_recording.pageBytes() + raw.pageBytes() > m_keepBytes) {
            m_recordingComplete = false;
            return;
        }
        appendRecording(m_recording, RawTrace(raw));
    }

    const std::string& nameOf(long tid)
    {
        auto [it, fresh] = m_names.try_emplace(static_cast<int>(tid));
        if (fresh)
            it->second = readFirstLine("/proc/" + std::to_string(tid) + "/comm").value_or("");
        return it->second;
    }

    std::unique_ptr<TraceSession> m_session;
    trace::SchedGatherer m_gather;
    std::map<int, std::string> m_names; // of the tasks the switches named, and those looked up
    std::size_t m_keepBytes = 0;
    RawTrace m_recording;
    bool m_recordingComplete = true;
    std::vector<TraceEvent> m_later; // read, but newer than the horizon of the last read
    std::optional<TraceDecoder> m_decoder;
    std::uint64_t m_lostNow = 0;
    std::uint64_t m_lostBefore = 0;
};

} // namespace

namespace trace {

SchedGatherer::SchedGatherer(std::optional<Topology> topology)
    : m_topology(std::move(topology))
{
}

void SchedGatherer::add(const TraceEvent& e, const std::map<int, std::string>& comms)
{
    if (e.kind == TraceEventKind::Waking || e.kind == TraceEventKind::WakeupNew) {
        // A wake-up of a thread already runnable (preempted) keeps its earlier start.
        auto [p, fresh] = m_pending.try_emplace(e.other, Pending { e.ns });
        if (!fresh && p->second.leftWoken)
            p->second = Pending { e.ns };
        // From an interrupt, the task that happened to run is not the waker.
        const bool irq = (e.value & (kTraceFlagHardirq | kTraceFlagSoftirq)) != 0;
        count(m_gathered[e.other].wakers, irq ? 0 : e.pid, comms);
    } else if (e.kind == TraceEventKind::Switch) {
        if (e.pid != 0)
            switchedOut(e, comms);
        if (e.other != 0)
            switchedIn(m_gathered[e.other], e);
    }
}

void SchedGatherer::switchedOut(const TraceEvent& e, const std::map<int, std::string>& comms)
{
    const bool seenIn = m_running.erase(e.pid) > 0;
    auto p = m_pending.find(e.pid);
    // Leaving a CPU it was never seen entering: the kernel dropped its switch-in (seen on
    // a 6.18 VM for switches out of one vCPU's idle task and out of some other tasks;
    // perf misses them too). Its wait is unknown, and is counted as such.
    if (!seenIn && p != m_pending.end()) {
        ++m_gathered[e.pid].unrecorded;
        m_pending.erase(p);
        p = m_pending.end();
    }
    if (stillRunnable(e.value)) {
        m_pending[e.pid] = Pending { e.ns };
        count(m_gathered[e.pid].preemptors, e.other, comms);
    } else if (p != m_pending.end()) {
        p->second = Pending { e.ns, true };
    }
}

void SchedGatherer::switchedIn(Gathered& g, const TraceEvent& e)
{
    ++g.switchIns;
    m_running.insert(e.other);
    if (auto p = m_pending.find(e.other); p != m_pending.end()) {
        g.waits.push_back(static_cast<double>(e.ns - p->second.readyNs));
        m_pending.erase(p);
    }
    auto [last, fresh] = m_lastCpu.try_emplace(e.other, e.cpu);
    if (!fresh && last->second != e.cpu) {
        SchedMigration& m = g.migrations[{ last->second, e.cpu }];
        m.from = last->second;
        m.to = e.cpu;
        if (m.relation.empty() && m_topology)
            if (auto r = relationOf(*m_topology, m.from, m.to))
                m.relation = std::string(toString(*r));
        ++m.count;
    }
    last->second = e.cpu;
}

std::map<long, ThreadSched> SchedGatherer::take(std::uint64_t lostEvents)
{
    std::map<long, ThreadSched> out;
    for (auto& [tid, g] : m_gathered) {
        ThreadSched s;
        s.switchIns = g.switchIns;
        s.unrecordedSwitchIns = g.unrecorded;
        s.wake = wakeLatencyOf(g.waits);
        s.waitsNs = std::move(g.waits);
        s.wakers = top(g.wakers);
        s.preemptors = top(g.preemptors);
        s.migrations = ordered(g.migrations);
        s.lostEvents = lostEvents;
        out[tid] = std::move(s);
    }
    m_gathered.clear();
    return out;
}

} // namespace trace

WakeLatency wakeLatencyOf(std::vector<double> waitsNs)
{
    WakeLatency w;
    w.count = waitsNs.size();
    if (waitsNs.empty())
        return w;
    std::sort(waitsNs.begin(), waitsNs.end());
    double sum = 0;
    for (double v : waitsNs) {
        sum += v;
        addLog2(w.log2Hist, v);
    }
    w.meanNs = sum / static_cast<double>(w.count);
    w.p50Ns = percentileOfSorted(waitsNs, 0.5);
    w.p99Ns = percentileOfSorted(waitsNs, 0.99);
    w.maxNs = waitsNs.back();
    return w;
}

Expected<std::unique_ptr<SchedWatch>> SchedWatch::open(
    const std::vector<long>& tids, std::size_t keepBytes, const std::vector<std::string>& marks)
{
    TraceOptions o;
    o.syscalls = false;
    o.schedOnly = true;
    o.pids = tids;
    o.bufferKbPerCpu = 8192;
    o.savedComms = false; // collected every 100 ms: the names come from the switches, else /proc
    auto session = TraceSession::open(o);
    if (!session)
        return session.error();
    if (Status s = (*session)->start(); !s)
        return s.error();
    for (const std::string& mark : marks)
        if (Status s = (*session)->mark(mark); !s)
            return s.error();
    auto topology = Topology::loadLive();
    auto watch = std::make_unique<Watch>(
        std::move(*session), topology ? std::optional<Topology>(std::move(*topology)) : std::nullopt, keepBytes);
    return std::unique_ptr<SchedWatch>(std::move(watch));
}

void SchedTotal::add(const ThreadSched& interval)
{
    for (double w : interval.waitsNs) {
        m_waits.add(w);
        m_sumNs += w;
        m_maxNs = std::max(m_maxNs, w);
        addLog2(m_log2, w);
    }
    m_switchIns += interval.switchIns;
    m_unrecorded += interval.unrecordedSwitchIns;
    m_lost += interval.lostEvents;
    auto addPeers = [](std::map<long, SchedPeer>& total, const std::vector<SchedPeer>& peers) {
        for (const auto& p : peers) {
            SchedPeer& t = total[p.tid];
            t.tid = p.tid;
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
    s.wake.count = m_waits.count();
    if (s.wake.count > 0) {
        s.wake.meanNs = m_sumNs / static_cast<double>(s.wake.count);
        s.wake.p50Ns = m_waits.percentile(0.5);
        s.wake.p99Ns = m_waits.percentile(0.99);
        s.wake.maxNs = m_maxNs;
        s.wake.log2Hist = m_log2;
    }
    s.wakers = top(m_wakers);
    s.preemptors = top(m_preemptors);
    s.migrations = ordered(m_migrations);
    s.lostEvents = m_lost;
    return s;
}

nlohmann::json threadSchedToJson(const ThreadSched& s)
{
    auto peers = [](const std::vector<SchedPeer>& v) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& p : v)
            a.push_back({ { "tid", p.tid }, { "name", p.name }, { "count", p.count } });
        return a;
    };
    nlohmann::json moves = nlohmann::json::array();
    for (const auto& m : s.migrations)
        moves.push_back({ { "from", m.from }, { "to", m.to }, { "relation", m.relation }, { "count", m.count } });
    return {
        { "switch_ins", s.switchIns },
        { "unrecorded_switch_ins", s.unrecordedSwitchIns },
        { "wake_latency",
            { { "count", s.wake.count }, { "mean_ns", s.wake.meanNs }, { "p50_ns", s.wake.p50Ns },
                { "p99_ns", s.wake.p99Ns }, { "max_ns", s.wake.maxNs }, { "log2_hist", s.wake.log2Hist } } },
        { "wakers", peers(s.wakers) },
        { "preemptors", peers(s.preemptors) },
        { "migrations", moves },
        { "lost_events", s.lostEvents },
    };
}

} // namespace ctxscope
