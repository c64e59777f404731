// SPDX-License-Identifier: MIT
// HandoverProbe: handover.bpf.c's programs, loaded for one traced run on one CPU. The measured
// tasks and the switch on are written into the programs' mapped .bss; the bins and counters
// are read from it once, after the run. Nothing outlives the object: no pin, no link kept.
#include "ctxscope/handover_probe.h"
#include "ctxscope/sched_watch.h" // bpfUnavailable

#include <fmt/core.h>

#ifdef CTXSCOPE_HAVE_BPF
#include "bpf/handover_bins.h"

#include "bpf/loader_common.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <sys/syscall.h>

#include <handover.skel.h>
#endif

namespace ctxscope {

#ifndef CTXSCOPE_HAVE_BPF

Expected<std::unique_ptr<HandoverProbe>> HandoverProbe::open(int) { return makeError(bpfUnavailable()); }

#else

namespace {

// Each step as cutHandovers names it and the events it lies between, in the table's order.
struct StepName {
    ctxscope_step step;
    const char* name;
    const char* from;
    const char* to;
};
constexpr StepName kSteps[] = {
    { CTXSCOPE_STEP_WAKE_CALL, "wake call", "sys_enter", "sched_waking" },
    { CTXSCOPE_STEP_YIELD_CALL, "yield call", "sys_enter", "sched_switch" },
    { CTXSCOPE_STEP_SLEEP_CALL, "sleep call", "sys_enter", "sched_switch" },
    { CTXSCOPE_STEP_WAKER_RUNS_ON, "waker runs on", "sched_waking", "sched_switch" },
    { CTXSCOPE_STEP_RETURN_TO_USER, "return to user", "sched_switch", "sys_exit" },
    { CTXSCOPE_STEP_IN_USER_SPACE, "in user space", "sys_exit", "sys_enter" },
};
static_assert(std::size(kSteps) == CTXSCOPE_STEPS);

// Reads a counter the programs add to (the .bss is shared with the kernel).
std::uint64_t load(const __u64& counter) { return std::atomic_ref<const __u64>(counter).load(); }

class BpfHandoverProbe final : public HandoverProbe {
public:
    BpfHandoverProbe(ctxscope_handover* skel, int cpu)
        : m_skel(skel)
        , m_cpu(cpu)
    {
    }
    ~BpfHandoverProbe() override
    {
        end();
        ctxscope_handover__destroy(m_skel);
    }
    BpfHandoverProbe(const BpfHandoverProbe&) = delete;
    BpfHandoverProbe& operator=(const BpfHandoverProbe&) = delete;

    Status begin(const std::vector<long>& tasks) override
    {
        if (tasks.empty() || tasks.size() > kMaxProbedTasks)
            return makeError(fmt::format(
                "the BPF backend of a traced run follows 1 to {} tasks, not {}", kMaxProbedTasks, tasks.size()));
        auto* bss = m_skel->bss;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            bss->tids[i] = static_cast<__u32>(tasks[i]);
            bss->states[i].slot = static_cast<__u32>(i);
        }
        bss->ntids = static_cast<__u32>(tasks.size());
        m_tasks = tasks;
        m_beginNs = bpf::monotonicNs();
        bss->last_switch_ns = m_beginNs;
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

    TraceSummary summary(const std::vector<long>& keepAwake) const override
    {
        const auto* bss = m_skel->bss;
        TraceSummary s;
        s.backend = "bpf";
        std::uint64_t cross = 0;
        for (std::size_t i = 0; i < m_tasks.size(); ++i) {
            const ctxscope_task_state& t = bss->states[i];
            s.events += load(t.events);
            s.handovers += load(t.handovers);
            s.switchOuts += load(t.switch_outs);
            s.placement.wakerCpu += load(t.waker_cpu);
            s.placement.migrated += load(t.migrated);
            cross += load(t.cross);
        }
        s.tasks = m_tasks;
        s.cpus = { m_cpu };
        for (const StepName& step : kSteps) {
            std::vector<std::uint64_t> binned(CTXSCOPE_STEP_BINS);
            std::uint64_t count = 0;
            std::uint64_t sum = 0;
            for (std::size_t i = 0; i < m_tasks.size(); ++i) {
                const ctxscope_step_bins& bins = bss->steps[i][step.step];
                sum += load(bins.sum_ns);
                for (std::size_t b = 0; b < binned.size(); ++b) {
                    const std::uint64_t n = load(bins.bins[b]);
                    binned[b] += n;
                    count += n;
                }
            }
            if (count == 0)
                continue;
            TraceSegment seg;
            seg.name = step.name;
            seg.fromEvent = step.from;
            seg.toEvent = step.to;
            seg.count = count;
            seg.meanNs = static_cast<double>(sum) / static_cast<double>(count);
            seg.p50Ns = bpf::stepBinsQuantile(binned, 0.5);
            seg.p90Ns = bpf::stepBinsQuantile(binned, 0.9);
            s.segments.push_back(std::move(seg));
        }
        // The runner's own wake-ups of the tasks (at the start and end of the measured ops) come
        // from another CPU; more than a few is a surprise to say.
        if (cross * 100 > s.handovers)
            s.notes.push_back(fmt::format("{} wake-ups of the measured tasks came from another CPU in a run on one "
                                          "CPU: they are not in the segments.",
                cross));
        others(s, keepAwake);
        return s;
    }

private:
    // Who else ran on the CPU: the programs' `others` map, keep-awake threads apart.
    void others(TraceSummary& s, const std::vector<long>& keepAwake) const
    {
        TraceCpuTime c;
        c.cpu = m_cpu;
        c.spanNs = m_endNs > m_beginNs ? static_cast<double>(m_endNs - m_beginNs) : 0;
        const int fd = bpf_map__fd(m_skel->maps.others);
        __u32 key = 0;
        __u32 next = 0;
        const __u32* at = nullptr;
        std::vector<TraceOtherTask> tasks;
        while (bpf_map_get_next_key(fd, at, &next) == 0) {
            key = next;
            at = &key;
            ctxscope_other o {};
            if (bpf_map_lookup_elem(fd, &key, &o) != 0)
                continue;
            const double ns = static_cast<double>(o.ns);
            if (std::find(keepAwake.begin(), keepAwake.end(), static_cast<long>(key)) != keepAwake.end()) {
                c.keepAwakeNs += ns;
                continue;
            }
            c.otherNs += ns;
            TraceOtherTask t;
            t.pid = static_cast<long>(key);
            t.comm = std::string(o.comm, strnlen(o.comm, sizeof o.comm));
            t.cpu = m_cpu;
            t.ns = ns;
            tasks.push_back(std::move(t));
        }
        s.cpuTime.push_back(c);
        std::stable_sort(
            tasks.begin(), tasks.end(), [](const TraceOtherTask& a, const TraceOtherTask& b) { return a.ns > b.ns; });
        if (tasks.size() > 5)
            tasks.resize(5);
        s.others = std::move(tasks);
        s.keepAwakeTasks = keepAwake;
        if (const std::uint64_t lost = load(m_skel->bss->others_lost); lost > 0)
            s.notes.push_back(fmt::format("{} other tasks ran on CPU {} beyond the {} the probe names: their time is "
                                          "counted, not their names.",
                lost, m_cpu, CTXSCOPE_HANDOVER_OTHERS));
    }

    ctxscope_handover* m_skel;
    int m_cpu;
    std::vector<long> m_tasks;
    std::uint64_t m_beginNs = 0;
    std::uint64_t m_endNs = 0;
};

} // namespace

Expected<std::unique_ptr<HandoverProbe>> HandoverProbe::open(int cpu)
{
    if (std::string why = bpfUnavailable(); !why.empty())
        return makeError(why);
    if (cpu < 0)
        return makeError("the BPF backend of a traced run needs the run's tasks on one CPU");
    bpf::quietLibbpf();
    ctxscope_handover* skel = ctxscope_handover__open();
    if (skel == nullptr)
        return makeError(fmt::format("could not open the BPF programs: {}", std::strerror(errno)));
    skel->rodata->traced_cpu = static_cast<__u32>(cpu);
    skel->rodata->yield_nr = SYS_sched_yield;
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
    return std::unique_ptr<HandoverProbe>(std::make_unique<BpfHandoverProbe>(skel, cpu));
}

#endif

} // namespace ctxscope
