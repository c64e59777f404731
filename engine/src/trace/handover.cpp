// SPDX-License-Identifier: MIT
// Cutting hand-overs at the scheduler's events. One forward pass finds each switch into a
// measured task and what woke it; the steps after the switch come from per-task indexes.
#include "ctxscope/handover.h"
#include "ctxscope/handover_step.h"

#include "ctxscope/stats.h"

#include "ctxscope/units.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

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

// prev_state of a task switched out while runnable: 0 (R) or the kernel's "preempted" bit above
// the state bits.
bool stillRunnable(std::int64_t prevState) { return (prevState & 0xff) == 0; }

struct StepKey {
    std::string name;
    std::string from;
    std::string to;
    bool cross = false;
    auto operator<=>(const StepKey&) const = default;
};

class Cutter {
public:
    Cutter(const Trace& trace, const std::vector<long>& tasks, const std::vector<long>& keepAwake)
        : m_events(trace.events)
        , m_comms(trace.comms)
    {
        for (long t : tasks)
            m_tasks.insert(static_cast<int>(t));
        for (long t : keepAwake)
            m_keepAwake.insert(static_cast<int>(t));
        for (std::size_t i = 0; i < m_events.size(); ++i) {
            const TraceEvent& e = m_events[i];
            if (e.kind == TraceEventKind::Switch)
                m_cpuSwitches[e.cpu].push_back(i);
            if (e.kind == TraceEventKind::IdleEnter)
                m_cpuIdleEnters[e.cpu].push_back(i);
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
        summary.targetStates = m_states;
        summary.placement = m_placement;
        summary.waitedBehind = sortedTasks(m_waitedBehind, &TraceOtherTask::ns);
        summary.preempted = sortedTasks(m_preempted, &TraceOtherTask::handovers);
        cpuTimes(summary);
        for (auto& [state, exits] : m_idleExits) {
            std::sort(exits.begin(), exits.end());
            TraceIdleState x;
            x.state = state;
            x.name = fmt::format("state {}", state);
            x.count = exits.size();
            x.p50Ns = percentileOfSorted(exits, 0.5);
            x.p90Ns = percentileOfSorted(exits, 0.9);
            summary.idleStates.push_back(std::move(x));
        }
        std::stable_sort(summary.idleStates.begin(), summary.idleStates.end(),
            [](const TraceIdleState& a, const TraceIdleState& b) { return a.count > b.count; });
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
    template <typename Field>
    static std::vector<TraceOtherTask> sortedTasks(const std::map<int, TraceOtherTask>& tasks, Field field)
    {
        std::vector<TraceOtherTask> out;
        for (const auto& [pid, t] : tasks)
            out.push_back(t);
        std::stable_sort(out.begin(), out.end(),
            [field](const TraceOtherTask& a, const TraceOtherTask& b) { return a.*field > b.*field; });
        return out;
    }

    TraceOtherTask task(int pid, int cpu) const
    {
        TraceOtherTask t;
        t.pid = pid;
        t.cpu = cpu;
        t.measured = measured(pid);
        t.keepAwake = m_keepAwake.contains(pid);
        if (t.keepAwake)
            t.comm = "keep-awake";
        else if (auto it = m_comms.find(pid); it != m_comms.end())
            t.comm = it->second;
        else
            t.comm = fmt::format("PID {}", pid);
        return t;
    }

    // Who ran on each CPU that recorded a switch, from the trace's first event to its last: each
    // switch's next task until the CPU's next switch; before its first, that switch's prev.
    void cpuTimes(TraceSummary& summary) const
    {
        if (m_events.empty())
            return;
        const std::uint64_t begin = m_events.front().ns;
        const std::uint64_t end = m_events.back().ns;
        std::map<int, TraceOtherTask> others;
        for (const auto& [cpu, switches] : m_cpuSwitches) {
            TraceCpuTime c;
            c.cpu = cpu;
            c.spanNs = static_cast<double>(end - begin);
            std::uint64_t from = begin;
            int running = m_events[switches.front()].pid;
            auto account = [&](int pid, std::uint64_t a, std::uint64_t b) {
                const double ns = static_cast<double>(b - a);
                if (pid == 0 || measured(pid) || ns <= 0)
                    return;
                if (m_keepAwake.contains(pid)) {
                    c.keepAwakeNs += ns;
                    return;
                }
                c.otherNs += ns;
                auto [it, added] = others.try_emplace(pid, task(pid, cpu));
                it->second.ns += ns;
            };
            for (std::size_t i : switches) {
                account(running, from, m_events[i].ns);
                from = m_events[i].ns;
                running = m_events[i].other;
            }
            account(running, from, end);
            summary.cpuTime.push_back(c);
        }
        summary.others = sortedTasks(others, &TraceOtherTask::ns);
        if (summary.others.size() > 5)
            summary.others.resize(5);
    }

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

    enum class Target { Idle, Preempting, Waiting, Unknown };

    // The state the power:cpu_idle entry before this exit on its CPU named (-1: none traced).
    int idleStateBefore(std::size_t exit) const
    {
        auto it = m_cpuIdleEnters.find(m_events[exit].cpu);
        if (it == m_cpuIdleEnters.end())
            return -1;
        auto at = std::lower_bound(it->second.begin(), it->second.end(), exit);
        if (at == it->second.begin())
            return -1;
        return static_cast<int>(m_events[*std::prev(at)].value);
    }

    // The wakee's CPU's state at the wake-up, from that CPU's first switch after it (whose prev
    // ran then): the idle task, switched straight to the wakee: idle; another task switched out
    // still runnable straight to the wakee within kWakePreemptNs: preempted by the wake-up;
    // anything else (it kept the CPU, or others ran first): the wakee waited.
    Target targetState(std::size_t waking, std::size_t in) const
    {
        const int cpu = m_events[in].cpu;
        auto it = m_cpuSwitches.find(cpu);
        if (it == m_cpuSwitches.end())
            return Target::Unknown;
        const auto first = std::upper_bound(it->second.begin(), it->second.end(), waking);
        if (first == it->second.end() || *first > in)
            return Target::Unknown;
        const TraceEvent& f = m_events[*first];
        if (*first != in)
            return Target::Waiting;
        if (f.pid == 0)
            return Target::Idle;
        if (stillRunnable(f.value) && static_cast<double>(f.ns - m_events[waking].ns) <= kWakePreemptNs)
            return Target::Preempting;
        return Target::Waiting;
    }

    // The wakee waited from the wake-up to its switch-in while other tasks ran on its CPU: each is
    // charged the time it ran in that wait, and the step is named after the one that ran longest.
    void waitedBehind(std::size_t waking, std::size_t last, std::size_t in)
    {
        const int cpu = m_events[in].cpu;
        const auto& switches = m_cpuSwitches.at(cpu);
        auto at = std::upper_bound(switches.begin(), switches.end(), waking);
        std::map<int, double> ran;
        std::uint64_t from = m_events[waking].ns;
        for (; at != switches.end() && *at <= in; ++at) {
            const TraceEvent& sw = m_events[*at];
            if (sw.pid != 0)
                ran[sw.pid] += static_cast<double>(sw.ns - from);
            from = sw.ns;
        }
        int longest = 0;
        for (const auto& [pid, ns] : ran)
            if (longest == 0 || ns > ran[longest])
                longest = pid;
        ++m_states.waiting;
        bool behindOthers = false;
        for (const auto& [pid, ns] : ran) {
            auto [it, added] = m_waitedBehind.try_emplace(pid, task(pid, cpu));
            ++it->second.handovers;
            it->second.ns += ns;
            behindOthers = behindOthers || (!it->second.measured && !it->second.keepAwake);
        }
        if (behindOthers)
            ++m_states.waitingBehindOthers;
        const std::string name = longest == 0 ? std::string("switch-in") : m_waitedBehind.at(longest).comm;
        step(longest == 0 ? name : busyStepName(BusyWay::WaitingBehind, name), last, in, true);
    }

    // A step of the hand-over being cut (the one m_spans' last entry spans).
    void step(const std::string& name, std::size_t from, std::size_t to, bool cross)
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
            if (out && m_events[*out].cpu != cpu)
                ++m_placement.migrated;
            if (!cross)
                ++m_placement.wakerCpu;
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
                switch (targetState(*waking, in)) {
                case Target::Idle:
                    ++m_states.idle;
                    ++m_placement.idleCpu;
                    if (idleExit && *idleExit > last) {
                        step("idle exit", last, *idleExit, true);
                        m_idleExits[idleStateBefore(*idleExit)].push_back(
                            static_cast<double>(m_events[*idleExit].ns - m_events[last].ns));
                        last = *idleExit;
                    }
                    step("switch-in", last, in, true);
                    break;
                case Target::Preempting: {
                    ++m_states.preempting;
                    ++m_placement.busyCpu;
                    const int x = m_events[in].pid;
                    auto [it, added] = m_preempted.try_emplace(x, task(x, cpu));
                    ++it->second.handovers;
                    step(busyStepName(BusyWay::Preempting, it->second.comm), last, in, true);
                    break;
                }
                case Target::Waiting:
                    ++m_placement.busyCpu;
                    waitedBehind(*waking, last, in);
                    break;
                case Target::Unknown:
                    ++m_states.unknown;
                    if (idleExit && *idleExit > last) {
                        step("idle exit", last, *idleExit, true);
                        last = *idleExit;
                    }
                    step("switch-in", last, in, true);
                    break;
                }
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
    const std::map<int, std::string>& m_comms;
    std::set<int> m_tasks;
    std::set<int> m_keepAwake;
    std::map<int, std::vector<std::size_t>> m_cpuSwitches; // CPU -> its switches' indexes
    std::map<int, std::vector<std::size_t>> m_cpuIdleEnters; // CPU -> its idle entries' indexes
    std::map<int, std::vector<double>> m_idleExits; // state left -> the idle exit steps' ns
    TraceTargetStates m_states;
    TracePlacementShares m_placement;
    std::map<int, TraceOtherTask> m_waitedBehind;
    std::map<int, TraceOtherTask> m_preempted;
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

TraceSummary cutHandovers(const Trace& trace, const std::vector<long>& tasks, const std::vector<long>& keepAwake)
{
    TraceSummary summary;
    summary.tasks = tasks;
    summary.keepAwakeTasks = keepAwake;
    summary.events = trace.events.size();
    summary.losses = trace.losses;
    summary.lostEvents = trace.lostEvents();
    summary.missingEvents = trace.missingEvents;
    for (const auto& l : trace.losses)
        summary.cpus.push_back(l.cpu);
    Cutter(trace, tasks, keepAwake).run(summary);
    return summary;
}

std::vector<SegmentExample> segmentExamples(
    const Trace& trace, const std::vector<long>& tasks, const std::vector<long>& keepAwake)
{
    return Cutter(trace, tasks, keepAwake).examples();
}

void nameIdleStates(TraceSummary& summary, const CpuIdleConfig& config)
{
    summary.idleDriver = config.hasDriver() ? config.driver : "none";
    for (TraceIdleState& s : summary.idleStates) {
        if (s.state < 0) {
            s.name = "unknown";
            s.note = "no cpu_idle entry was traced before the exit";
            continue;
        }
        if (!config.hasDriver()) {
#if defined(__x86_64__) || defined(__i386__)
            s.name = "HLT";
#else
            s.name = "the default idle";
#endif
            s.declaredExitNs.reset();
            s.note = "no cpuidle driver: on a VM, an exit to the hypervisor";
            continue;
        }
        const auto it = std::find_if(
            config.states.begin(), config.states.end(), [&](const IdleState& x) { return x.index == s.state; });
        if (it == config.states.end()) {
            s.name = fmt::format("state {}", s.state);
            s.note = fmt::format("cpuidle ({}) states no such state", config.driver);
            continue;
        }
        s.name = it->name;
        s.declaredExitNs = it->exitLatencyUs * 1000;
        s.note.clear();
    }
}

bool traceDisturbed(const TraceSummary& summary)
{
    if (summary.targetStates.waitingBehindOthersShare() > kDisturbedShare)
        return true;
    const auto i = traceInterference(summary);
    return i && i->maxOtherShare() > kDisturbedShare;
}

std::optional<Interference> traceInterference(const TraceSummary& summary)
{
    if (summary.cpuTime.empty())
        return std::nullopt;
    Interference out;
    for (const TraceCpuTime& c : summary.cpuTime) {
        CpuInterference x;
        x.cpu = c.cpu;
        x.otherShare = c.spanNs > 0 ? c.otherNs / c.spanNs : 0;
        out.cpus.push_back(x);
        out.seconds = std::max(out.seconds, c.spanNs / 1e9);
    }
    for (const TraceOtherTask& t : summary.others) {
        const double span = out.seconds * 1e9;
        const double share = span > 0 ? t.ns / span : 0;
        if (share > kNameTasksShare && out.topTasks.size() < 3)
            out.topTasks.push_back({ t.pid, t.pid, t.comm,
                t.comm.starts_with("kworker") || t.comm.starts_with("ksoftirqd"), share, t.cpu });
    }
    return out;
}

std::string waitedBehindCause(const TraceSummary& summary)
{
    const TraceTargetStates& s = summary.targetStates;
    if (s.waitingBehindOthers == 0)
        return {};
    std::vector<std::string> who;
    for (const TraceOtherTask& t : summary.waitedBehind)
        if (!t.measured && !t.keepAwake && who.size() < 3)
            who.push_back(fmt::format("{} (PID {}), {} in all", t.comm, t.pid, formatDuration(t.ns)));
    return fmt::format("in {:.0f}% of the traced hand-overs across CPUs ({} of {}) the wakee waited behind another "
                       "program: {}",
        100 * s.waitingBehindOthersShare(), s.waitingBehindOthers, s.total(), fmt::join(who, "; "));
}

void finishTraceSummary(TraceSummary& summary, std::uint64_t ops, double nsPerOp, double untracedNsPerOp,
    std::optional<double> rusageSwitchesPerOp, std::optional<double> untracedSwitchesPerOp)
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
    if (rusageSwitchesPerOp && untracedSwitchesPerOp && relative(*rusageSwitchesPerOp, *untracedSwitchesPerOp) > 0.10)
        summary.notes.push_back(fmt::format("The traced run switched {:.2f} times per op, the untraced run {:.2f}: "
                                            "tracing changed how the tasks hand over (a waiter whose partner answers "
                                            "before it sleeps does not switch), so its steps explain the traced run, "
                                            "not the untraced figure; trace again.",
            *rusageSwitchesPerOp, *untracedSwitchesPerOp));
}

} // namespace ctxscope
