// SPDX-License-Identifier: MIT
// A watched program's scheduling from its own events. One pass per drain, with what is still
// pending (a wake-up not yet run, the CPU each thread last ran on) kept across drains.
#include "ctxscope/sched_watch.h"

#include "ctxscope/placement.h"
#include "ctxscope/topology.h"
#include "ctxscope/trace.h"
#include "os/clock_read.h"
#include "os/procfs.h"
#include "trace/sched_gather.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string_view>

namespace ctxscope {

namespace {

constexpr std::size_t kTopPeers = 5;

// prev_state of a task switched out while runnable: 0 (R) or the kernel's "preempted" bit
// (TASK_REPORT_MAX, above the state bits); any of the low state bits means it went to sleep.
bool stillRunnable(std::int64_t prevState) { return (prevState & 0xff) == 0; }

// The letter ps and /proc give a task that left a CPU in `prevState`: its lowest report bit, in
// the order of the kernel's task_state_array (R when none is set: preempted).
char stateLetter(std::int64_t prevState)
{
    constexpr std::string_view kLetters = "SDTtXZPI";
    for (std::size_t bit = 0; bit < kLetters.size(); ++bit)
        if ((prevState & (std::int64_t { 1 } << bit)) != 0)
            return kLetters[bit];
    return 'R';
}

// floor(log2(ns)): that of its whole part, the bit width of an integer less one.
int log2Bin(double ns)
{
    return ns < 1 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(std::min(ns, 0x1p63)))) - 1;
}

void addLog2(std::vector<std::uint64_t>& bins, double ns)
{
    const auto bin = static_cast<std::size_t>(log2Bin(ns));
    if (bins.size() <= bin)
        bins.resize(bin + 1, 0);
    ++bins[bin];
}

// wakeLatencyOf of waits already in order.
WakeLatency wakeLatencyOfSorted(const std::vector<double>& waitsNs)
{
    WakeLatency w;
    w.count = waitsNs.size();
    if (waitsNs.empty())
        return w;
    // The bins up to the largest wait's (the last), made at once rather than grown bin by bin,
    // an allocation each, for each of 1,000 threads every interval.
    w.log2Hist.assign(static_cast<std::size_t>(log2Bin(waitsNs.back())) + 1, 0);
    double sum = 0;
    for (double v : waitsNs) {
        sum += v;
        ++w.log2Hist[static_cast<std::size_t>(log2Bin(v))];
    }
    w.meanNs = sum / static_cast<double>(w.count);
    w.p50Ns = percentileOfSorted(waitsNs, 0.5);
    w.p99Ns = percentileOfSorted(waitsNs, 0.99);
    w.maxNs = waitsNs.back();
    return w;
}

// Most counted first, ties in the order they came, in place. A thread's peers and moves of
// one interval are usually a handful, sorted for each of 1,000 threads every interval: an
// insertion sort, where std::stable_sort's buffer was an allocation each time.
template <typename T> void byCount(std::vector<T>& v)
{
    if (v.size() > 16) {
        std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.count > b.count; });
        return;
    }
    for (std::size_t i = 1; i < v.size(); ++i)
        for (std::size_t j = i; j > 0 && v[j - 1].count < v[j].count; --j)
            std::swap(v[j - 1], v[j]);
}

// The most frequent first, at most kTopPeers (SchedTotal's running totals).
std::vector<SchedPeer> top(const std::map<long, SchedPeer>& peers)
{
    std::vector<SchedPeer> v;
    for (const auto& [tid, p] : peers)
        v.push_back(p);
    byCount(v);
    if (v.size() > kTopPeers)
        v.resize(kTopPeers);
    return v;
}

std::vector<SchedMigration> ordered(std::vector<SchedMigration> moves)
{
    byCount(moves);
    return moves;
}

std::vector<SchedMigration> ordered(const std::map<std::pair<int, int>, SchedMigration>& moves)
{
    std::vector<SchedMigration> v;
    for (const auto& [key, m] : moves)
        v.push_back(m);
    return ordered(std::move(v));
}

class Watch final : public SchedWatch {
public:
    Watch(std::unique_ptr<TraceSession> session, std::optional<Topology> topology, std::size_t keepBytes,
        std::size_t bufferBytes)
        : m_session(std::move(session))
        , m_gather(std::move(topology))
        , m_keepBytes(keepBytes)
        , m_bufferBytes(bufferBytes)
    {
    }

    // The program's threads are the tasks whose figures are gathered (the session's filter
    // names them already).
    void followOnly(const std::vector<long>& tids) { m_gather.follow(tids); }

    const RawTrace& recording(bool& complete) const override
    {
        complete = m_recordingComplete;
        return m_recording;
    }

    Status follow(const std::vector<long>& tids) override
    {
        m_gather.follow(tids);
        return m_session->addPids(tids);
    }

    Status countFrom(std::uint64_t monoNs) override
    {
        if (Status s = read(monoNs, true); !s)
            return s;
        m_gather.forget(monoNs);
        std::erase_if(m_kept, [&](const TraceEvent& e) { return e.ns < monoNs; });
        m_countsAtNs = monoNs;
        m_lostBefore = m_lostNow;
        return {};
    }

    Expected<double> pump() override
    {
        if (Status s = read(clk::monotonicNs(), false); !s)
            return s.error();
        return m_bufferBytes > 0 ? static_cast<double>(m_lastReadBytes) / static_cast<double>(m_bufferBytes) : 1.0;
    }

    Expected<std::map<long, ThreadSched>> drain(std::uint64_t untilMonoNs) override
    {
        const std::uint64_t horizon = std::min(untilMonoNs, clk::monotonicNs());
        if (Status s = read(horizon, true); !s)
            return s.error();
        m_countsAtNs = horizon;
        const std::uint64_t lost = m_lostNow - std::min(m_lostNow, m_lostBefore);
        m_lostBefore = m_lostNow;
        // Switches name the other task too (the idle task, a task sharing the CPU): only the
        // followed threads have figures (SchedGatherer::follow); the others keep their counts.
        auto figures = m_gather.take(lost, m_scratch.comms);
        // A waker or preemptor no switch named yet (it has not been switched in or out while
        // traced): its name from /proc, once.
        for (auto& [tid, f] : figures)
            for (auto* peers : { &f.wakers, &f.preemptors })
                for (SchedPeer& p : *peers)
                    if (p.name.empty() && p.tid != 0)
                        p.name = nameOf(p.tid);
        return figures;
    }

    std::unordered_map<long, SchedCounts> counts() const override { return m_gather.counts(m_countsAtNs); }

    void keepEvents(std::size_t most) override
    {
        m_keepEvents = most;
        m_kept.clear();
    }

    Trace takeEvents(std::uint64_t& leftOut) override
    {
        Trace out;
        trimKept(m_keepEvents);
        leftOut = std::exchange(m_keptLeftOut, 0);
        out.events = std::exchange(m_kept, {});
        const auto name = [&](int task) { // each task once: up to 20,000 events an interval name a few
            if (!out.comms.contains(task))
                out.comms.emplace(task, nameOf(task));
        };
        for (const TraceEvent& e : out.events) {
            name(e.pid);
            if (e.kind == TraceEventKind::Switch || e.kind == TraceEventKind::Waking
                || e.kind == TraceEventKind::WakeupNew)
                name(e.other);
        }
        out.comms.erase(0); // the idle task has no /proc entry; the timeline names it
        return out;
    }

private:
    // Reads the kernel's buffers and gathers the events up to `horizon`, in time order; later
    // ones wait. Each CPU's buffer is read in turn, so an event on one CPU that was read late
    // can be older than one read on another: a horizon no later than the read's start keeps
    // events in order across CPUs.
    Status read(std::uint64_t horizon, bool withLosses)
    {
        // The formats once, for the decoder (and a recording's start).
        auto raw = m_session->collect({ .losses = withLosses, .layout = !m_decoder });
        if (!raw)
            return raw.error();
        m_lastReadBytes = 0;
        for (const auto& b : raw->buffers)
            m_lastReadBytes = std::max(m_lastReadBytes, b.pages.size());
        keep(*raw);
        if (!m_decoder) {
            auto decoder = TraceDecoder::make(*raw);
            if (!decoder)
                return decoder.error();
            m_decoder = std::move(*decoder);
        }
        // Decoded and gathered as it is read: only the interval's figures are kept. The
        // scratch trace keeps its memory from read to read (each read's events would otherwise
        // be fresh pages from the kernel), and the names of the tasks seen so far, so that only
        // a new task's name is made.
        Trace& trace = m_scratch;
        trace.events.assign(m_later.begin(), m_later.end());
        m_later.clear();
        const auto held = static_cast<std::ptrdiff_t>(trace.events.size());
        if (Status s = m_decoder->decode(*raw, trace); !s)
            return s;
        // Both parts are in time order already (decode sorts what it appends): merged, stably.
        if (held > 0)
            std::inplace_merge(trace.events.begin(), trace.events.begin() + held, trace.events.end(),
                [](const TraceEvent& a, const TraceEvent& b) { return a.ns < b.ns; });
        const auto later = std::find_if(
            trace.events.begin(), trace.events.end(), [&](const TraceEvent& e) { return e.ns > horizon; });
        m_later.assign(later, trace.events.end());
        trace.events.erase(later, trace.events.end());
        for (const TraceEvent& e : trace.events)
            m_gather.add(e);
        if (m_keepEvents > 0) {
            m_kept.insert(m_kept.end(), trace.events.begin(), trace.events.end());
            if (m_kept.size() > 2 * m_keepEvents) // trimmed now and then, not at every read
                trimKept(m_keepEvents);
        }
        if (withLosses)
            m_lostNow = trace.lostEvents(); // the kernel's counts run from the instance's start
        return {};
    }

    // The latest `most` events kept; the earlier ones are counted as left out.
    void trimKept(std::size_t most)
    {
        if (m_kept.size() <= most)
            return;
        const std::size_t cut = m_kept.size() - most;
        m_keptLeftOut += cut;
        m_kept.erase(m_kept.begin(), m_kept.begin() + static_cast<std::ptrdiff_t>(cut));
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
        auto [it, fresh] = m_scratch.comms.try_emplace(static_cast<int>(tid));
        if (fresh)
            it->second = readFirstLine("/proc/" + std::to_string(tid) + "/comm").value_or("");
        return it->second;
    }

    std::unique_ptr<TraceSession> m_session;
    trace::SchedGatherer m_gather;
    // The last read's events; its comms name the tasks the switches named, and those looked up.
    Trace m_scratch;
    std::size_t m_keepBytes = 0;
    RawTrace m_recording;
    bool m_recordingComplete = true;
    std::vector<TraceEvent> m_later; // read, but newer than the horizon of the last read
    std::optional<TraceDecoder> m_decoder;
    std::uint64_t m_lostNow = 0;
    std::uint64_t m_lostBefore = 0;
    std::uint64_t m_countsAtNs = 0; // the last drain's horizon
    std::size_t m_bufferBytes = 0; // each CPU's ring
    std::size_t m_lastReadBytes = 0; // the most one CPU's ring held at the last read
    std::size_t m_keepEvents = 0; // keepEvents(): the latest of an interval's events to keep
    std::vector<TraceEvent> m_kept; // since the last takeEvents()
    std::uint64_t m_keptLeftOut = 0;
};

} // namespace

namespace trace {

SchedGatherer::SchedGatherer(std::optional<Topology> topology)
    : m_topology(std::move(topology))
{
}

SchedGatherer::Task& SchedGatherer::slowTask(long tid)
{
    std::uint32_t* slot = nullptr;
    if (tid >= 0 && static_cast<std::size_t>(tid) < kSlotTids) {
        const auto at = static_cast<std::size_t>(tid);
        const std::size_t block = at / kSlotBlock;
        if (block >= m_slots.size())
            m_slots.resize(block + 1);
        if (!m_slots[block])
            m_slots[block] = std::make_unique<std::array<std::uint32_t, kSlotBlock>>();
        slot = &(*m_slots[block])[at % kSlotBlock];
    } else {
        slot = &m_farSlots[tid];
    }
    if (*slot != 0)
        return m_tasks[*slot - 1];
    Task& t = m_tasks.emplace_back();
    *slot = static_cast<std::uint32_t>(m_tasks.size());
    t.tid = tid;
    t.gathers = m_followAll || m_followed.contains(tid);
    return t;
}

void SchedGatherer::follow(const std::vector<long>& tids)
{
    m_followed.insert(tids.begin(), tids.end());
    const bool first = std::exchange(m_followAll, false);
    for (auto& t : m_tasks) {
        t.gathers = m_followed.contains(t.tid);
        if (first && !t.gathers)
            t.gathered = Gathered {};
    }
}

namespace {

void countPeer(std::vector<SchedGatherer::Peer>& peers, long tid)
{
    for (auto& p : peers)
        if (p.tid == tid) {
            ++p.count;
            return;
        }
    peers.push_back({ tid, 1 });
}

} // namespace

void SchedGatherer::add(const TraceEvent& e)
{
    if (e.kind == TraceEventKind::Waking || e.kind == TraceEventKind::WakeupNew) {
        Task& t = task(e.other);
        // A wake-up of a thread already runnable (preempted) keeps its earlier start.
        if (!t.pending || t.pending->leftWoken)
            t.pending = Pending { e.ns };
        // From an interrupt, the task that happened to run is not the waker.
        const bool irq = (e.value & (kTraceFlagHardirq | kTraceFlagSoftirq)) != 0;
        if (t.gathers) {
            t.gathered.any = true;
            countPeer(t.gathered.wakers, irq ? 0 : e.pid);
        }
        if (!t.runningSince)
            t.counts.state = 'R';
    } else if (e.kind == TraceEventKind::Switch) {
        if (e.pid != 0)
            switchedOut(task(e.pid), e);
        if (e.other != 0)
            switchedIn(task(e.other), e);
    }
}

void SchedGatherer::switchedOut(Task& t, const TraceEvent& e)
{
    SchedCounts& c = t.counts;
    const bool seenIn = t.runningSince.has_value();
    if (seenIn)
        c.runNs += e.ns - std::min(e.ns, runStart(*t.runningSince));
    t.runningSince.reset();
    c.state = stateLetter(e.value);
    ++(stillRunnable(e.value) ? c.involuntary : c.voluntary);
    // Leaving a CPU it was never seen entering: the kernel dropped its switch-in (seen on
    // a 6.18 VM for switches out of one vCPU's idle task and out of some other tasks;
    // perf misses them too). Its wait is unknown, and is counted as such.
    if (!seenIn && t.pending) {
        t.gathered.any = t.gathers;
        t.gathered.unrecorded += t.gathers ? 1 : 0;
        t.pending.reset();
    }
    if (stillRunnable(e.value)) {
        t.pending = Pending { e.ns };
        if (t.gathers) {
            t.gathered.any = true;
            countPeer(t.gathered.preemptors, e.other);
        }
    } else if (t.pending) {
        t.pending = Pending { e.ns, true };
    }
}

void SchedGatherer::switchedIn(Task& t, const TraceEvent& e)
{
    Gathered& g = t.gathered;
    g.any = t.gathers;
    g.switchIns += t.gathers ? 1 : 0;
    t.runningSince = e.ns;
    SchedCounts& c = t.counts;
    ++c.switchIns;
    c.state = 'R';
    c.cpu = e.cpu;
    if (t.pending) {
        const std::uint64_t waitNs = e.ns - std::min(e.ns, t.pending->readyNs);
        if (t.gathers)
            g.waits.push_back(static_cast<double>(waitNs));
        c.waitNs += waitNs;
        t.pending.reset();
    }
    if (t.lastCpu >= 0 && t.lastCpu != e.cpu) {
        ++c.migrations;
        if (t.gathers)
            moved(g, t.lastCpu, e.cpu);
    }
    t.lastCpu = e.cpu;
}

void SchedGatherer::moved(Gathered& g, int from, int to)
{
    for (auto& m : g.migrations)
        if (m.from == from && m.to == to) {
            ++m.count;
            return;
        }
    SchedMigration m;
    m.from = from;
    m.to = to;
    if (m_topology)
        if (auto r = relationOf(*m_topology, from, to))
            m.relation = std::string(toString(*r));
    m.count = 1;
    g.migrations.push_back(std::move(m));
}

void SchedGatherer::forget(std::uint64_t atNs)
{
    for (auto& t : m_tasks) {
        t.gathered = Gathered {};
        t.counts = SchedCounts { .cpu = t.counts.cpu, .state = t.counts.state };
    }
    m_countFromNs = atNs;
}

std::unordered_map<long, SchedCounts> SchedGatherer::counts(std::uint64_t atNs) const
{
    std::unordered_map<long, SchedCounts> out;
    out.reserve(m_tasks.size());
    for (const auto& t : m_tasks) {
        SchedCounts c = t.counts;
        if (t.runningSince)
            c.runNs += atNs - std::min(atNs, runStart(*t.runningSince));
        out.emplace(t.tid, c);
    }
    return out;
}

std::map<long, ThreadSched> SchedGatherer::take(std::uint64_t lostEvents, const std::map<int, std::string>& comms)
{
    const auto named = [&](std::vector<Peer>& peers) { // emptied right after
        byCount(peers);
        if (peers.size() > kTopPeers)
            peers.resize(kTopPeers);
        std::vector<SchedPeer> out;
        out.reserve(peers.size());
        for (const Peer& p : peers) {
            const auto c = comms.find(static_cast<int>(p.tid));
            out.push_back(
                { p.tid, p.tid == 0 ? "an interrupt" : (c != comms.end() ? c->second : std::string()), p.count });
        }
        return out;
    };
    std::map<long, ThreadSched> out;
    for (auto& t : m_tasks) {
        Gathered& g = t.gathered;
        if (!g.any)
            continue;
        ThreadSched s;
        s.switchIns = g.switchIns;
        s.unrecordedSwitchIns = g.unrecorded;
        s.waitsNs = std::move(g.waits);
        std::sort(s.waitsNs.begin(), s.waitsNs.end());
        s.wake = wakeLatencyOfSorted(s.waitsNs);
        const std::size_t waits = s.waitsNs.size();
        s.wakers = named(g.wakers);
        s.preemptors = named(g.preemptors);
        s.migrations = ordered(std::move(g.migrations));
        s.lostEvents = lostEvents;
        out.emplace(t.tid, std::move(s));
        // The peers' lists keep their room for the next interval (they are counted into it
        // one by one); the waits went with the figures.
        g.any = false;
        g.switchIns = 0;
        g.unrecorded = 0;
        g.wakers.clear();
        g.preemptors.clear();
        g.migrations.clear();
        g.waits.clear();
        g.waits.reserve(waits); // the next interval's, grown once instead of doubling from one
    }
    return out;
}

} // namespace trace

WakeLatency wakeLatencyOf(std::vector<double> waitsNs)
{
    std::sort(waitsNs.begin(), waitsNs.end());
    return wakeLatencyOfSorted(waitsNs);
}

Expected<std::unique_ptr<SchedWatch>> SchedWatch::open(
    const std::vector<long>& tids, std::size_t keepBytes, const std::vector<std::string>& marks)
{
    TraceOptions o;
    o.syscalls = false;
    o.schedOnly = true;
    o.pids = tids;
    o.bufferKbPerCpu = 8192;
    o.savedComms = false; // collected every 25 to 500 ms: the names come from the switches, else /proc
    auto session = TraceSession::open(o);
    if (!session)
        return session.error();
    if (Status s = (*session)->start(); !s)
        return s.error();
    for (const std::string& mark : marks)
        if (Status s = (*session)->mark(mark); !s)
            return s.error();
    auto topology = Topology::loadLive();
    auto watch = std::make_unique<Watch>(std::move(*session),
        topology ? std::optional<Topology>(std::move(*topology)) : std::nullopt, keepBytes, o.bufferKbPerCpu * 1024);
    watch->followOnly(tids);
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
