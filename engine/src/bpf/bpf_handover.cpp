// SPDX-License-Identifier: MIT
// HandoverProbe: handover.bpf.c's programs, loaded for one traced run of pinned tasks. The
// measured tasks, the traced CPUs and the switch on are written into the programs' mapped .bss;
// the bins and counters are read from it and the maps once, after the run. Nothing outlives the object: no pin, no link
// kept.
#include "ctxscope/handover_probe.h"
#include "ctxscope/handover_step.h"
#include "ctxscope/sched_watch.h" // bpfUnavailable

#include <fmt/core.h>

#ifdef CTXSCOPE_HAVE_BPF
#include "bpf/handover_bins.h"

#include "bpf/loader_common.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <bpf/btf.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <sys/syscall.h>

#include <handover.skel.h>
#endif

namespace ctxscope {

#ifndef CTXSCOPE_HAVE_BPF

Expected<std::unique_ptr<HandoverProbe>> HandoverProbe::open(const std::vector<int>&)
{
    return makeError(bpfUnavailable());
}

#else

namespace {

static_assert(kMaxProbedTasks == CTXSCOPE_HANDOVER_TASKS);
static_assert(kMaxProbedCpu == CTXSCOPE_HANDOVER_CPUS);
static_assert(kWakePreemptNs == static_cast<double>(CTXSCOPE_WAKE_PREEMPT_NS));

// Each step as cutHandovers names it, the events it lies between and whether it is a step across
// CPUs.
struct StepName {
    ctxscope_step step;
    const char* name;
    const char* from;
    const char* to;
    bool cross;
};
constexpr StepName kSteps[] = {
    { CTXSCOPE_STEP_WAKE_CALL, "wake call", "sys_enter", "sched_waking", false },
    { CTXSCOPE_STEP_YIELD_CALL, "yield call", "sys_enter", "sched_switch", false },
    { CTXSCOPE_STEP_SLEEP_CALL, "sleep call", "sys_enter", "sched_switch", false },
    { CTXSCOPE_STEP_WAKER_RUNS_ON, "waker runs on", "sched_waking", "sched_switch", false },
    { CTXSCOPE_STEP_RETURN_TO_USER, "return to user", "sched_switch", "sys_exit", false },
    { CTXSCOPE_STEP_IN_USER_SPACE, "in user space", "sys_exit", "sys_enter", false },
    { CTXSCOPE_STEP_X_WAKE_CALL, "wake call", "sys_enter", "sched_waking", true },
    { CTXSCOPE_STEP_X_IPI_SENT, "IPI sent", "sched_waking", "ipi_send_cpu", true },
    { CTXSCOPE_STEP_X_NO_IPI, "woken without IPI", "sched_waking", "sched_wake_idle_without_ipi", true },
    { CTXSCOPE_STEP_X_IDLE_EXIT, "idle exit", "ipi_send_cpu", "cpu_idle", true },
    { CTXSCOPE_STEP_X_IN_AFTER_WAKING, "switch-in", "sched_waking", "sched_switch", true },
    { CTXSCOPE_STEP_X_IN_AFTER_IPI, "switch-in", "ipi_send_cpu", "sched_switch", true },
    { CTXSCOPE_STEP_X_IN_AFTER_NO_IPI, "switch-in", "sched_wake_idle_without_ipi", "sched_switch", true },
    { CTXSCOPE_STEP_X_IN_AFTER_IDLE, "switch-in", "cpu_idle", "sched_switch", true },
    { CTXSCOPE_STEP_X_RETURN_TO_USER, "return to user", "sched_switch", "sys_exit", true },
    { CTXSCOPE_STEP_X_IN_USER_SPACE, "in user space", "sys_exit", "sys_enter", true },
};
static_assert(std::size(kSteps) == CTXSCOPE_STEPS);

// The event a cross-CPU step into the switch-in starts from (enum ctxscope_step_from).
constexpr const char* kFromEvents[] = { "sched_waking", "ipi_send_cpu", "sched_wake_idle_without_ipi", "cpu_idle" };

// The optional tracepoints of a run across CPUs, with the programs that attach to them.
struct OptionalEvent {
    const char* name;
    bpf_program* (*program)(const ctxscope_handover* skel);
};
constexpr OptionalEvent kOptionalEvents[] = {
    { "sched_wake_idle_without_ipi", [](const ctxscope_handover* skel) { return skel->progs.ctxscope_ho_no_ipi; } },
    { "ipi_send_cpu", [](const ctxscope_handover* skel) { return skel->progs.ctxscope_ho_ipi; } },
    { "cpu_idle", [](const ctxscope_handover* skel) { return skel->progs.ctxscope_ho_idle; } },
};

// Reads a counter the programs add to (the .bss is shared with the kernel).
std::uint64_t load(const __u64& counter) { return std::atomic_ref<const __u64>(counter).load(); }

// A step's durations from its bins: count, exact mean, p50 and p90 within a bin.
struct Binned {
    std::vector<std::uint64_t> bins = std::vector<std::uint64_t>(CTXSCOPE_STEP_BINS);
    std::uint64_t count = 0;
    std::uint64_t sum = 0;
    void add(const ctxscope_step_bins& b)
    {
        sum += load(b.sum_ns);
        for (std::size_t i = 0; i < bins.size(); ++i) {
            const std::uint64_t n = load(b.bins[i]);
            bins[i] += n;
            count += n;
        }
    }
    double mean() const { return count > 0 ? static_cast<double>(sum) / static_cast<double>(count) : 0; }
    double quantile(double q) const { return bpf::stepBinsQuantile(bins, q); }
};

TraceSegment segment(std::string name, std::string from, std::string to, bool cross, const Binned& b)
{
    TraceSegment seg;
    seg.name = std::move(name);
    seg.fromEvent = std::move(from);
    seg.toEvent = std::move(to);
    seg.crossCpu = cross;
    seg.count = b.count;
    seg.meanNs = b.mean();
    seg.p50Ns = b.quantile(0.5);
    seg.p90Ns = b.quantile(0.9);
    return seg;
}

// Calls f(key, value) for each entry of the map `fd`.
template <typename Key, typename Value, typename F> void forEachEntry(int fd, F&& f)
{
    Key key {};
    Key next {};
    const Key* at = nullptr;
    auto value = std::make_unique<Value>();
    while (bpf_map_get_next_key(fd, at, &next) == 0) {
        key = next;
        at = &key;
        if (bpf_map_lookup_elem(fd, &key, value.get()) == 0)
            f(key, *value);
    }
}

// A thread's name (/proc/TID/comm), "" when it is gone.
std::string threadName(long tid)
{
    std::ifstream in(fmt::format("/proc/{}/comm", tid));
    std::string name;
    std::getline(in, name);
    return name;
}

class BpfHandoverProbe final : public HandoverProbe {
public:
    BpfHandoverProbe(ctxscope_handover* skel, std::vector<int> cpus, std::vector<std::string> missing)
        : m_skel(skel)
        , m_cpus(std::move(cpus))
        , m_missing(std::move(missing))
    {
    }
    ~BpfHandoverProbe() override
    {
        end();
        ctxscope_handover__destroy(m_skel);
    }
    BpfHandoverProbe(const BpfHandoverProbe&) = delete;
    BpfHandoverProbe& operator=(const BpfHandoverProbe&) = delete;

    Status begin(const std::vector<long>& tasks, const std::vector<long>& keepAwake) override
    {
        if (tasks.empty() || tasks.size() > kMaxProbedTasks)
            return makeError(fmt::format(
                "the BPF backend of a traced run follows 1 to {} tasks, not {}", kMaxProbedTasks, tasks.size()));
        auto* bss = m_skel->bss;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            bss->tids[i] = static_cast<__u32>(tasks[i]);
            bss->states[i].slot = static_cast<__u32>(i);
            m_comms[tasks[i]] = threadName(tasks[i]);
        }
        bss->ntids = static_cast<__u32>(tasks.size());
        const std::size_t keep = std::min(keepAwake.size(), kMaxProbedTasks);
        for (std::size_t i = 0; i < keep; ++i)
            bss->keep_tids[i] = static_cast<__u32>(keepAwake[i]);
        bss->nkeep = static_cast<__u32>(keep);
        m_tasks = tasks;
        m_keepAwake = keepAwake;
        m_beginNs = bpf::monotonicNs();
        for (int cpu : m_cpus) {
            ctxscope_cpu_state& c = bss->cpus[cpu];
            c.last_switch_ns = m_beginNs;
            c.idle_state = CTXSCOPE_IDLE_UNKNOWN;
            c.traced = 1;
        }
        std::atomic_thread_fence(std::memory_order_seq_cst); // the tasks before the switch on
        std::atomic_ref<__u32>(bss->enabled).store(1);
        return {};
    }

    void end() override
    {
        if (m_endNs != 0 || m_beginNs == 0)
            return;
        std::atomic_ref<__u32>(m_skel->bss->enabled).store(0);
        m_endNs = bpf::monotonicNs();
    }

    TraceSummary summary() const override
    {
        const auto* bss = m_skel->bss;
        TraceSummary s;
        s.backend = "bpf";
        s.missingEvents = m_missing;
        std::uint64_t cross = 0;
        std::uint64_t waitsCut = 0;
        for (std::size_t i = 0; i < m_tasks.size(); ++i) {
            const ctxscope_task_state& t = bss->states[i];
            s.events += load(t.events);
            s.handovers += load(t.handovers);
            s.switchOuts += load(t.switch_outs);
            s.placement.wakerCpu += load(t.waker_cpu);
            s.placement.migrated += load(t.migrated);
            s.targetStates.idle += load(t.idle);
            s.targetStates.preempting += load(t.preempting);
            s.targetStates.waiting += load(t.waiting);
            s.targetStates.waitingBehindOthers += load(t.waiting_behind_others);
            cross += load(t.cross);
            waitsCut += load(t.waits_cut);
        }
        s.placement.idleCpu = s.targetStates.idle;
        s.placement.busyCpu = s.targetStates.preempting + s.targetStates.waiting;
        s.tasks = m_tasks;
        s.keepAwakeTasks = m_keepAwake;
        s.cpus = m_cpus;
        for (const StepName& step : kSteps) {
            Binned b;
            for (std::size_t i = 0; i < m_tasks.size(); ++i)
                b.add(bss->steps[i][step.step]);
            if (b.count > 0)
                s.segments.push_back(segment(step.name, step.from, step.to, step.cross, b));
        }
        busySteps(s);
        idleStates(s);
        std::stable_sort(s.segments.begin(), s.segments.end(), segmentBefore);
        // The runner's own wake-ups of the tasks (at the start and end of the measured ops) come
        // from another CPU; more than a few is a surprise to say.
        if (cross * 100 > s.handovers)
            s.notes.push_back(fmt::format("{} wake-ups of the measured tasks came from another CPU in a run on one "
                                          "CPU: they are not in the segments.",
                cross));
        if (waitsCut > 0)
            s.notes.push_back(fmt::format("In {} hand-overs the wakee waited through more than the {} switches a "
                                          "CPU keeps: the start of those waits is not charged to a task.",
                waitsCut, CTXSCOPE_SWITCH_LOG - 1));
        if (const std::uint64_t lost = load(bss->busy_lost); lost > 0)
            s.notes.push_back(fmt::format("{} waits and preemptions went beyond the tasks and steps the probe names "
                                          "({} and {}): they are counted by the wakee's CPU's state, not by task.",
                lost, CTXSCOPE_HANDOVER_BUSY, CTXSCOPE_HANDOVER_BUSY_STEPS));
        others(s);
        return s;
    }

private:
    // The table's order: steps across CPUs first, each in the order a hand-over takes them.
    static bool segmentBefore(const TraceSegment& a, const TraceSegment& b)
    {
        if (a.crossCpu != b.crossCpu)
            return a.crossCpu;
        return stepRank(a.name) < stepRank(b.name);
    }
    // A task by its id, named as cutHandovers names it.
    TraceOtherTask task(long pid, int cpu) const
    {
        TraceOtherTask t;
        t.pid = pid;
        t.cpu = cpu;
        t.measured = std::find(m_tasks.begin(), m_tasks.end(), pid) != m_tasks.end();
        t.keepAwake = std::find(m_keepAwake.begin(), m_keepAwake.end(), pid) != m_keepAwake.end();
        if (t.keepAwake) {
            t.comm = "keep-awake";
        } else if (auto it = m_comms.find(pid); it != m_comms.end() && !it->second.empty()) {
            t.comm = it->second;
        } else {
            const int fd = bpf_map__fd(m_skel->maps.others);
            const auto key = static_cast<__u32>(pid);
            ctxscope_other o {};
            t.comm = bpf_map_lookup_elem(fd, &key, &o) == 0 ? std::string(o.comm, strnlen(o.comm, sizeof o.comm))
                                                            : fmt::format("PID {}", pid);
        }
        return t;
    }

    // The tasks the wakees' CPUs ran (preempted, waited behind) and the steps named after them.
    void busySteps(TraceSummary& s) const
    {
        forEachEntry<__u32, ctxscope_busy>(bpf_map__fd(m_skel->maps.busy), [&](__u32 pid, const ctxscope_busy& b) {
            TraceOtherTask t = task(pid, static_cast<int>(b.cpu));
            if (b.preempted > 0) {
                t.handovers = b.preempted;
                s.preempted.push_back(t);
            }
            if (b.waited > 0) {
                t.handovers = b.waited;
                t.ns = static_cast<double>(b.waited_ns);
                s.waitedBehind.push_back(t);
            }
        });
        std::stable_sort(s.waitedBehind.begin(), s.waitedBehind.end(),
            [](const TraceOtherTask& a, const TraceOtherTask& b) { return a.ns > b.ns; });
        std::stable_sort(s.preempted.begin(), s.preempted.end(),
            [](const TraceOtherTask& a, const TraceOtherTask& b) { return a.handovers > b.handovers; });
        forEachEntry<ctxscope_busy_key, ctxscope_step_bins>(
            bpf_map__fd(m_skel->maps.busy_steps), [&](const ctxscope_busy_key& k, const ctxscope_step_bins& bins) {
                Binned b;
                b.add(bins);
                if (b.count == 0 || k.from >= std::size(kFromEvents))
                    return;
                const BusyWay way = k.way == CTXSCOPE_BUSY_PREEMPTING ? BusyWay::Preempting : BusyWay::WaitingBehind;
                s.segments.push_back(
                    segment(busyStepName(way, task(k.pid, -1).comm), kFromEvents[k.from], "sched_switch", true, b));
            });
    }

    // The idle exits by the state they left (numbered; CTXSCOPE_IDLE_UNKNOWN: none traced).
    void idleStates(TraceSummary& s) const
    {
        for (int state = 0; state <= CTXSCOPE_IDLE_UNKNOWN; ++state) {
            Binned b;
            b.add(m_skel->bss->idle_bins[state]);
            if (b.count == 0)
                continue;
            TraceIdleState x;
            x.state = state == CTXSCOPE_IDLE_UNKNOWN ? -1 : state;
            x.name = fmt::format("state {}", x.state);
            x.count = b.count;
            x.p50Ns = b.quantile(0.5);
            x.p90Ns = b.quantile(0.9);
            s.idleStates.push_back(std::move(x));
        }
        std::stable_sort(s.idleStates.begin(), s.idleStates.end(),
            [](const TraceIdleState& a, const TraceIdleState& b) { return a.count > b.count; });
    }

    // Who else ran on the CPUs: each CPU's time (keep-awake threads' apart), and the programs'
    // `others` map.
    void others(TraceSummary& s) const
    {
        const double span = m_endNs > m_beginNs ? static_cast<double>(m_endNs - m_beginNs) : 0;
        std::map<int, TraceCpuTime> cpus;
        for (int cpu : m_cpus) {
            TraceCpuTime& c = cpus[cpu];
            c.cpu = cpu;
            c.spanNs = span;
            c.otherNs = static_cast<double>(load(m_skel->bss->cpus[cpu].other_ns));
            c.keepAwakeNs = static_cast<double>(load(m_skel->bss->cpus[cpu].keep_awake_ns));
        }
        std::vector<TraceOtherTask> tasks;
        forEachEntry<__u32, ctxscope_other>(bpf_map__fd(m_skel->maps.others), [&](__u32 pid, const ctxscope_other& o) {
            TraceOtherTask t;
            t.pid = static_cast<long>(pid);
            t.comm = std::string(o.comm, strnlen(o.comm, sizeof o.comm));
            t.cpu = static_cast<int>(o.cpu);
            t.ns = static_cast<double>(o.ns);
            tasks.push_back(std::move(t));
        });
        for (const auto& [cpu, c] : cpus)
            s.cpuTime.push_back(c);
        std::stable_sort(
            tasks.begin(), tasks.end(), [](const TraceOtherTask& a, const TraceOtherTask& b) { return a.ns > b.ns; });
        if (tasks.size() > 5)
            tasks.resize(5);
        s.others = std::move(tasks);
        if (const std::uint64_t lost = load(m_skel->bss->others_lost); lost > 0)
            s.notes.push_back(fmt::format("{} other tasks ran on the traced CPUs beyond the {} the probe names: their "
                                          "time is counted, not their names.",
                lost, CTXSCOPE_HANDOVER_OTHERS));
    }

    ctxscope_handover* m_skel;
    std::vector<int> m_cpus;
    std::vector<std::string> m_missing;
    std::vector<long> m_tasks;
    std::vector<long> m_keepAwake;
    std::map<long, std::string> m_comms;
    std::uint64_t m_beginNs = 0;
    std::uint64_t m_endNs = 0;
};

} // namespace

Expected<std::unique_ptr<HandoverProbe>> HandoverProbe::open(const std::vector<int>& cpus)
{
    if (std::string why = bpfUnavailable(); !why.empty())
        return makeError(why);
    std::vector<int> traced = cpus;
    std::sort(traced.begin(), traced.end());
    traced.erase(std::unique(traced.begin(), traced.end()), traced.end());
    if (traced.empty() || traced.front() < 0)
        return makeError("the BPF backend of a traced run needs each of the run's tasks pinned to one CPU");
    if (traced.back() >= kMaxProbedCpu)
        return makeError(fmt::format(
            "the BPF backend of a traced run traces CPUs 0 to {}, not CPU {}", kMaxProbedCpu - 1, traced.back()));
    bpf::quietLibbpf();
    ctxscope_handover* skel = ctxscope_handover__open();
    if (skel == nullptr)
        return makeError(fmt::format("could not open the BPF programs: {}", std::strerror(errno)));
    skel->rodata->yield_nr = SYS_sched_yield;
    skel->rodata->one_cpu = traced.size() == 1 ? 1 : 0;
    // Across CPUs the IPI, the wake-up without one and the idle exits, each where the kernel has
    // its tracepoint; on one CPU none of them is a step.
    std::vector<std::string> missing;
    btf* vmlinux = btf__load_vmlinux_btf();
    for (const OptionalEvent& e : kOptionalEvents) {
        const bool present = vmlinux != nullptr
            && btf__find_by_name_kind(vmlinux, fmt::format("btf_trace_{}", e.name).c_str(), BTF_KIND_TYPEDEF) >= 0;
        if (traced.size() > 1 && !present)
            missing.emplace_back(e.name);
        bpf_program__set_autoload(e.program(skel), traced.size() > 1 && present);
    }
    btf__free(vmlinux);
    if (int err = ctxscope_handover__load(skel); err != 0) {
        ctxscope_handover__destroy(skel);
        return makeError(fmt::format("the kernel refused the BPF programs: {}", std::strerror(-err)));
    }
    if (int err = ctxscope_handover__attach(skel); err != 0) {
        ctxscope_handover__destroy(skel);
        return makeError(
            fmt::format("could not attach the BPF programs to the scheduler's and system calls' tracepoints: {}",
                std::strerror(-err)));
    }
    return std::unique_ptr<HandoverProbe>(std::make_unique<BpfHandoverProbe>(skel, traced, std::move(missing)));
}

#endif

} // namespace ctxscope
