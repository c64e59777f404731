// SPDX-License-Identifier: MIT
// What each scheduler event does to the figures of the tasks it names (sched_gather.h).
#include "trace/sched_gather.h"

#include "ctxscope/placement.h"
#include "trace/sched_figures.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace ctxscope::trace {

namespace {

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

} // namespace ctxscope::trace
