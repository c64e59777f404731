// SPDX-License-Identifier: MIT
// Cutting hand-overs at the scheduler's events. One forward pass finds each switch into a
// measured task and what woke it; the steps after the switch come from per-task indexes.
#include "ctxscope/handover.h"

#include "ctxscope/stats.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <sys/syscall.h>

namespace ctxscope {

namespace {

// How far past a wake-up the cutter looks for its IPI and idle exit: a hand-over's own events
// are a handful; this bounds a pass over a busy 384-CPU trace.
constexpr std::size_t kScanLimit = 4096;

// The steps in the order a hand-over takes them (the table's order).
constexpr const char* kStepOrder[] = { "wake call", "yield call", "sleep call", "IPI sent", "woken without IPI",
    "idle exit", "switch-in", "waker runs on", "return to user", "in user space" };

int stepRank(const std::string& name)
{
    for (int i = 0; i < static_cast<int>(std::size(kStepOrder)); ++i)
        if (name == kStepOrder[i])
            return i;
    return static_cast<int>(std::size(kStepOrder));
}

struct StepKey {
    std::string name;
    std::string from;
    std::string to;
    bool cross = false;
    auto operator<=>(const StepKey&) const = default;
};

class Cutter {
public:
    Cutter(const Trace& trace, const std::vector<long>& tasks)
        : m_events(trace.events)
    {
        for (long t : tasks)
            m_tasks.insert(static_cast<int>(t));
        for (std::size_t i = 0; i < m_events.size(); ++i) {
            const TraceEvent& e = m_events[i];
            if (e.kind == TraceEventKind::SysExit && measured(e.pid))
                m_exits[e.pid].push_back(i);
            if (e.kind == TraceEventKind::SysEnter && measured(e.pid))
                m_enters[e.pid].push_back(i);
        }
    }

    void run(TraceSummary& summary)
    {
        scan();
        summary.handovers = m_handovers;
        summary.switchOuts = m_switchOuts;
        for (auto& [key, steps] : m_steps) {
            std::vector<double> durations;
            durations.reserve(steps.size());
            for (const Taken& t : steps)
                durations.push_back(t.ns);
            std::sort(durations.begin(), durations.end());
            TraceSegment s;
            s.name = key.name;
            s.fromEvent = key.from;
            s.toEvent = key.to;
            s.crossCpu = key.cross;
            s.count = durations.size();
            s.p50Ns = percentileOfSorted(durations, 0.5);
            s.p90Ns = percentileOfSorted(durations, 0.9);
            double sum = 0;
            for (double d : durations)
                sum += d;
            s.meanNs = sum / static_cast<double>(durations.size());
            summary.segments.push_back(std::move(s));
        }
        std::stable_sort(summary.segments.begin(), summary.segments.end(), bySegmentOrder<TraceSegment>);
    }

    std::vector<SegmentExample> examples()
    {
        scan();
        std::vector<SegmentExample> out;
        for (auto& [key, steps] : m_steps) {
            std::vector<double> durations;
            for (const Taken& t : steps)
                durations.push_back(t.ns);
            std::sort(durations.begin(), durations.end());
            const double median = percentileOfSorted(durations, 0.5);
            const Taken* best = &steps.front();
            for (const Taken& t : steps)
                if (std::abs(t.ns - median) < std::abs(best->ns - median))
                    best = &t;
            const Span& span = m_spans[best->handover];
            out.push_back({ key.name, key.cross, best->ns, m_events[best->from].ns, m_events[best->to].ns,
                m_events[span.first].ns, m_events[span.last].ns, m_events[best->from].cpu, m_events[best->to].cpu });
        }
        std::stable_sort(out.begin(), out.end(), bySegmentOrder<SegmentExample>);
        return out;
    }

private:
    template <typename T> static bool bySegmentOrder(const T& a, const T& b)
    {
        if (a.crossCpu != b.crossCpu)
            return a.crossCpu;
        return stepRank(a.name) < stepRank(b.name);
    }

    void scan()
    {
        for (std::size_t i = 0; i < m_events.size(); ++i) {
            const TraceEvent& e = m_events[i];
            switch (e.kind) {
            case TraceEventKind::SysEnter:
                if (measured(e.pid))
                    m_inCall[e.pid] = i;
                break;
            case TraceEventKind::SysExit:
                if (measured(e.pid))
                    m_inCall.erase(e.pid);
                break;
            case TraceEventKind::Waking:
                if (measured(e.other)) {
                    m_waking[e.other] = i;
                    // The waker's open call now is its wake call (later it may be its wait).
                    if (auto call = find(m_inCall, e.pid); call && measured(e.pid))
                        m_wakeCall[e.other] = *call;
                    else
                        m_wakeCall.erase(e.other);
                }
                break;
            case TraceEventKind::Switch:
                if (measured(e.pid)) {
                    ++m_switchOuts;
                    m_switchedOut[e.pid] = i;
                }
                if (measured(e.other) && e.other != e.pid)
                    arrival(i);
                break;
            default:
                break;
            }
        }
    }

    bool measured(int pid) const { return m_tasks.contains(pid); }

    std::optional<std::size_t> find(std::unordered_map<int, std::size_t>& map, int pid) const
    {
        auto it = map.find(pid);
        return it == map.end() ? std::nullopt : std::optional(it->second);
    }

    // The first index in `list` after `after`, before the task next switches out.
    static std::optional<std::size_t> nextAfter(const std::vector<std::size_t>& list, std::size_t after)
    {
        auto it = std::upper_bound(list.begin(), list.end(), after);
        return it == list.end() ? std::nullopt : std::optional(*it);
    }

    // A step of the hand-over being cut (the one m_spans' last entry spans).
    void step(const char* name, std::size_t from, std::size_t to, bool cross)
    {
        const TraceEvent& a = m_events[from];
        const TraceEvent& b = m_events[to];
        if (m_spans.empty() || !m_spans.back().open)
            m_spans.push_back({ from, to, true });
        Span& span = m_spans.back();
        span.first = std::min(span.first, from);
        span.last = std::max(span.last, to);
        m_steps[StepKey { name, traceEventName(a.kind), traceEventName(b.kind), cross }].push_back(
            { static_cast<double>(b.ns - a.ns), from, to, m_spans.size() - 1 });
    }

    void arrival(std::size_t in)
    {
        const TraceEvent& sw = m_events[in];
        const int wakee = sw.other;
        const int cpu = sw.cpu;
        auto waking = find(m_waking, wakee);
        auto out = find(m_switchedOut, wakee);
        bool found = false;
        std::size_t last = in;
        bool cross = false;
        if (waking && (!out || *waking > *out)) {
            m_waking.erase(wakee);
            const TraceEvent& w = m_events[*waking];
            cross = w.cpu != cpu;
            if (auto call = find(m_wakeCall, wakee))
                step("wake call", *call, *waking, cross);
            last = *waking;
            if (cross) {
                std::optional<std::size_t> ipi;
                std::optional<std::size_t> idleExit;
                const std::size_t end = std::min(in, *waking + kScanLimit);
                for (std::size_t k = *waking + 1; k < end; ++k) {
                    const TraceEvent& e = m_events[k];
                    if (!ipi && e.kind == TraceEventKind::IpiSend && e.cpu == w.cpu && e.aux == cpu)
                        ipi = k;
                    else if (!ipi && e.kind == TraceEventKind::WakeIdleNoIpi && e.aux == cpu)
                        ipi = k;
                    else if (!idleExit && e.kind == TraceEventKind::IdleExit && e.cpu == cpu)
                        idleExit = k;
                }
                if (ipi) {
                    const bool sent = m_events[*ipi].kind == TraceEventKind::IpiSend;
                    step(sent ? "IPI sent" : "woken without IPI", last, *ipi, true);
                    last = *ipi;
                }
                if (idleExit && *idleExit > last) {
                    step("idle exit", last, *idleExit, true);
                    last = *idleExit;
                }
                step("switch-in", last, in, true);
            } else {
                step("waker runs on", last, in, false);
            }
            found = true;
        } else if (measured(sw.pid)) {
            // No wake-up since the wakee last left (it was preempted, still runnable, or it
            // yielded): the measured task switching out hands the CPU over by its own call,
            // a yield or a wait it sleeps in.
            if (auto call = find(m_inCall, sw.pid)) {
                step(m_events[*call].value == SYS_sched_yield ? "yield call" : "sleep call", *call, in, false);
                found = true;
            }
        }
        if (!found)
            return;
        ++m_handovers;
        // Back in user space, then the next call: both before the wakee next switches out.
        auto exitAt = nextAfter(m_exits[wakee], in);
        if (exitAt && m_events[*exitAt].cpu == cpu) {
            step("return to user", in, *exitAt, cross);
            if (auto enterAt = nextAfter(m_enters[wakee], *exitAt))
                step("in user space", *exitAt, *enterAt, cross);
        }
        m_spans.back().open = false;
    }

    const std::vector<TraceEvent>& m_events;
    std::set<int> m_tasks;
    std::unordered_map<int, std::vector<std::size_t>> m_exits;
    std::unordered_map<int, std::vector<std::size_t>> m_enters;
    std::unordered_map<int, std::size_t> m_inCall; // measured task -> its open sys_enter
    std::unordered_map<int, std::size_t> m_waking; // measured task -> its latest sched_waking
    std::unordered_map<int, std::size_t> m_wakeCall; // measured task -> the waker's call that woke it
    std::unordered_map<int, std::size_t> m_switchedOut;
    // One step taken: how long, between which events, in which hand-over (m_spans' index).
    struct Taken {
        double ns = 0;
        std::size_t from = 0;
        std::size_t to = 0;
        std::size_t handover = 0;
    };
    // A hand-over's first and last events; open while its steps are being cut.
    struct Span {
        std::size_t first = 0;
        std::size_t last = 0;
        bool open = false;
    };
    std::map<StepKey, std::vector<Taken>> m_steps;
    std::vector<Span> m_spans;
    std::uint64_t m_handovers = 0;
    std::uint64_t m_switchOuts = 0;
};

double relative(double a, double b) { return b != 0 ? std::abs(a - b) / b : 0; }

} // namespace

TraceSummary cutHandovers(const Trace& trace, const std::vector<long>& tasks)
{
    TraceSummary summary;
    summary.tasks = tasks;
    summary.events = trace.events.size();
    summary.losses = trace.losses;
    summary.lostEvents = trace.lostEvents();
    summary.missingEvents = trace.missingEvents;
    for (const auto& l : trace.losses)
        summary.cpus.push_back(l.cpu);
    Cutter(trace, tasks).run(summary);
    return summary;
}

std::vector<SegmentExample> segmentExamples(const Trace& trace, const std::vector<long>& tasks)
{
    return Cutter(trace, tasks).examples();
}

void finishTraceSummary(TraceSummary& summary, std::uint64_t ops, double nsPerOp, double untracedNsPerOp,
    std::optional<double> rusageSwitchesPerOp)
{
    summary.ops = ops;
    summary.nsPerOp = nsPerOp;
    summary.untracedNsPerOp = untracedNsPerOp;
    summary.rusageSwitchesPerOp = rusageSwitchesPerOp;
    const double n = ops > 0 ? static_cast<double>(ops) : 1;
    summary.switchOutsPerOp = static_cast<double>(summary.switchOuts) / n;
    double total = 0;
    for (const auto& s : summary.segments)
        total += s.meanNs * static_cast<double>(s.count);
    summary.segmentNsPerOp = total / n;
    if (summary.lostEvents > 0)
        summary.notes.push_back(fmt::format("The kernel lost {} events: the segments rest on an incomplete trace; "
                                            "trace fewer ops or give the trace a larger buffer (--trace-buffer).",
            summary.lostEvents));
    if (!summary.segments.empty() && relative(summary.segmentNsPerOp, nsPerOp) > 0.10) {
        if (summary.segmentNsPerOp < nsPerOp)
            summary.notes.push_back(fmt::format("The segments add up to {:.0f} ns per op against the traced run's "
                                                "{:.0f} ns: {:.0f}% of the time is not in a hand-over the trace could "
                                                "cut.",
                summary.segmentNsPerOp, nsPerOp, 100 * (1 - summary.segmentNsPerOp / nsPerOp)));
        else
            summary.notes.push_back(fmt::format("The segments add up to {:.0f} ns per op, {:.0f}% more than the traced "
                                                "run's {:.0f} ns: some steps overlap (a waker that runs on while its "
                                                "wakee waits to run).",
                summary.segmentNsPerOp, 100 * (summary.segmentNsPerOp / nsPerOp - 1), nsPerOp));
    }
    if (rusageSwitchesPerOp && relative(summary.switchOutsPerOp, *rusageSwitchesPerOp) > 0.02)
        summary.notes.push_back(fmt::format("The trace holds {:.3f} switches of the measured tasks per op, getrusage "
                                            "counted {:.3f}: they should agree within 2%.",
            summary.switchOutsPerOp, *rusageSwitchesPerOp));
}

} // namespace ctxscope
