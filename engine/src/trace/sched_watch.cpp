// SPDX-License-Identifier: MIT
// A watched program's scheduling from its own events. One pass per drain, with what is still
// pending (a wake-up not yet run, the CPU each thread last ran on) kept across drains.
#include "ctxscope/sched_watch.h"

#include "ctxscope/topology.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_decoder.h"
#include "ctxscope/trace_session.h"
#include "os/clock_read.h"
#include "os/procfs.h"
#include "trace/sched_gather.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace ctxscope {

namespace {

// The SchedWatch that SchedWatch::open gives: reads the private ftrace instance's buffers
// (TraceSession), decodes them and feeds the events to a SchedGatherer.
class InstanceSchedWatch final : public SchedWatch {
public:
    InstanceSchedWatch(std::unique_ptr<TraceSession> session, std::optional<Topology> topology, std::size_t keepBytes,
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
        m_counts = m_gather.counts(m_countsAtNs);
        m_lostBefore = m_lostNow;
        return {};
    }

    Expected<double> pump() override
    {
        if (Status s = read(clk::monotonicNs(), false); !s)
            return s.error();
        return m_bufferBytes > 0 ? static_cast<double>(m_lastReadBytes) / static_cast<double>(m_bufferBytes) : 1.0;
    }

    // Its figures are made anew each drain (SchedGatherer::take): `figures` is replaced.
    Status drain(std::uint64_t untilMonoNs, SchedFigures& figures) override
    {
        const std::uint64_t horizon = std::min(untilMonoNs, clk::monotonicNs());
        if (Status s = read(horizon, true); !s)
            return s;
        m_countsAtNs = horizon;
        m_counts = m_gather.counts(m_countsAtNs);
        const std::uint64_t lost = m_lostNow - std::min(m_lostNow, m_lostBefore);
        m_lostBefore = m_lostNow;
        // Switches name the other task too (the idle task, a task sharing the CPU): only the
        // followed threads have figures (SchedGatherer::follow); the others keep their counts.
        figures.clear();
        for (auto& [tid, f] : m_gather.take(lost, m_scratch.comms)) // in TID order
            figures.emplace_back(tid, std::move(f));
        // A waker or preemptor no switch named yet (it has not been switched in or out while
        // traced): its name from /proc, once.
        for (auto& [tid, f] : figures)
            for (auto* peers : { &f.wakers, &f.preemptors })
                for (SchedPeer& p : *peers)
                    if (p.name.empty() && p.tid != 0)
                        p.name = nameOf(p.tid);
        return {};
    }

    const std::unordered_map<long, SchedCounts>& counts() const override { return m_counts; }

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
            if (otherIsTask(e.kind))
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
    std::unordered_map<long, SchedCounts> m_counts; // counts() at m_countsAtNs
    std::size_t m_bufferBytes = 0; // each CPU's ring
    std::size_t m_lastReadBytes = 0; // the most one CPU's ring held at the last read
    std::size_t m_keepEvents = 0; // keepEvents(): the latest of an interval's events to keep
    std::vector<TraceEvent> m_kept; // since the last takeEvents()
    std::uint64_t m_keptLeftOut = 0;
};

} // namespace

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
    auto watch = std::make_unique<InstanceSchedWatch>(std::move(*session),
        topology ? std::optional<Topology>(std::move(*topology)) : std::nullopt, keepBytes, o.bufferKbPerCpu * 1024);
    watch->followOnly(tids);
    return std::unique_ptr<SchedWatch>(std::move(watch));
}

} // namespace ctxscope
