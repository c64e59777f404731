// SPDX-License-Identifier: MIT
// The in-kernel half of a traced run (bpf_handover.cpp): the hand-overs between the measured
// tasks, on one CPU or across pinned CPUs, cut into steps at the same events cutHandovers
// (trace/handover.cpp) cuts ftrace's at, each step's durations binned here. No event leaves the
// kernel: ctxscope reads the bins once, after the run. The programs are attached for the traced
// run only and do nothing until ctxscope sets `enabled` (at the first measured op) and nothing
// after it clears it (after the last); each first compares the task (or the CPU) with the few
// measured ones. Across CPUs each traced CPU keeps its last idle exits and switches, so the
// switch into a wakee can look back at what its CPU did since the wake-up. Named ctxscope_ho_*;
// nothing is pinned, and the kernel frees them with ctxscope's process.
#include "bpf_log2.h"
#include "handover_maps.h"
#include "kernel_types.h"

#include <linux/bpf.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u64 yield_nr = 0; // this machine's SYS_sched_yield
// The tasks share one CPU: a wake-up from another CPU is the runner's, counted apart.
const volatile __u32 one_cpu = 0;

// Set by ctxscope through the mapped .bss: the measured tasks, the keep-awake threads, the
// traced CPUs, then `enabled`.
__u32 tids[CTXSCOPE_HANDOVER_TASKS] = {};
__u32 ntids = 0;
__u32 keep_tids[CTXSCOPE_HANDOVER_TASKS] = {};
__u32 nkeep = 0;
__u32 enabled = 0;

// Other tasks the full maps refused.
__u64 others_lost = 0;
__u64 busy_lost = 0;

// Per measured task and step: each (task, step) has one writer at a time (the task's own
// sys_enter or sys_exit, or the switch into it, interrupts off), so plain adds lose nothing
// and no locked add is paid; ctxscope adds the tasks' bins up.
struct ctxscope_step_bins steps[CTXSCOPE_HANDOVER_TASKS][CTXSCOPE_STEP_SLOTS] = {};

struct ctxscope_task_state states[CTXSCOPE_HANDOVER_TASKS] = {};

// The traced CPUs' own state, and the measured wakee each CPU last woke (its slot + 1): the
// IPI that CPU sends next is that wake-up's.
struct ctxscope_cpu_state cpus[CTXSCOPE_HANDOVER_CPUS] = {};
__u32 waking_slot[CTXSCOPE_HANDOVER_CPUS] = {};

// The idle exit steps by the state left; two CPUs' wakees can leave idle at once: locked adds.
struct ctxscope_step_bins idle_bins[CTXSCOPE_IDLE_STATES + 1] = {};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_HANDOVER_OTHERS);
    __type(key, __u32);
    __type(value, struct ctxscope_other);
} others SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_HANDOVER_BUSY);
    __type(key, __u32);
    __type(value, struct ctxscope_busy);
} busy SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_HANDOVER_BUSY_STEPS);
    __type(key, struct ctxscope_busy_key);
    __type(value, struct ctxscope_step_bins);
} busy_steps SEC(".maps");

// All zeros: what a new busy step starts from (too large for the stack).
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct ctxscope_step_bins);
} zero_bins SEC(".maps");

// The index of `tid` among the first `n` of `list` (at most CTXSCOPE_HANDOVER_TASKS), or -1.
static __always_inline int index_in(const __u32* list, __u32 n, __u32 tid)
{
    for (int i = 0; i < CTXSCOPE_HANDOVER_TASKS; ++i) {
        if ((__u32)i >= n)
            break;
        if (list[i] == tid)
            return i;
    }
    return -1;
}

static __always_inline int slot_of(__u32 tid) { return index_in(tids, ntids, tid); }
static __always_inline int keep_awake(__u32 tid) { return index_in(keep_tids, nkeep, tid) >= 0; }

// A measured task's state by its slot, NULL for none (-1); masked as take() masks its step.
static __always_inline struct ctxscope_task_state* state_at(int i)
{
    if (i < 0 || i >= CTXSCOPE_HANDOVER_TASKS)
        return 0;
    asm volatile("" : "+r"(i));
    return &states[i & (CTXSCOPE_HANDOVER_TASKS - 1)];
}

// A traced CPU's state, NULL for a CPU the run does not trace.
static __always_inline struct ctxscope_cpu_state* cpu_at(__u32 cpu)
{
    if (cpu >= CTXSCOPE_HANDOVER_CPUS)
        return 0;
    asm volatile("" : "+r"(cpu));
    struct ctxscope_cpu_state* c = &cpus[cpu & (CTXSCOPE_HANDOVER_CPUS - 1)];
    return c->traced ? c : 0;
}

// Bin b < 16 holds b ns; above, a power of two 2^p is cut into 16 bins of 2^(p-4) ns each.
static __always_inline __u32 bin_of(__u64 ns)
{
    if (ns < CTXSCOPE_SUB_BINS)
        return (__u32)ns;
    __u32 p = ctxscope_log2(ns);
    if (p > CTXSCOPE_STEP_TOP)
        return CTXSCOPE_STEP_BINS - 1;
    const __u32 sub = (__u32)(ns >> (p - CTXSCOPE_SUB_BITS)) & (CTXSCOPE_SUB_BINS - 1);
    return (p - CTXSCOPE_SUB_BITS + 1) * CTXSCOPE_SUB_BINS + sub;
}

// A global function (not inlined) is verified once, on its own: inlined with its branches into
// every caller, the verifier's paths through sched_switch passed its limit.
__noinline int take(__u32 slot, __u32 step, __u64 from, __u64 to)
{
    if (slot >= CTXSCOPE_HANDOVER_TASKS || step >= CTXSCOPE_STEPS || to < from)
        return 0;
    const __u64 ns = to - from;
    // Masked as well as checked: the verifier must see the indexes bounded where they are used,
    // and the empty asm keeps the compiler from dropping the masks the checks made redundant.
    asm volatile("" : "+r"(slot), "+r"(step));
    struct ctxscope_step_bins* s = &steps[slot & (CTXSCOPE_HANDOVER_TASKS - 1)][step & (CTXSCOPE_STEP_SLOTS - 1)];
    __u32 b = bin_of(ns);
    if (b >= CTXSCOPE_STEP_BINS)
        b = CTXSCOPE_STEP_BINS - 1;
    s->sum_ns += ns;
    s->bins[b] += 1;
    return 0;
}

// An idle exit step, binned by the state left as well (locked: shared by the traced CPUs).
__noinline int take_idle(__u32 state, __u64 from, __u64 to)
{
    if (to < from)
        return 0;
    if (state > CTXSCOPE_IDLE_UNKNOWN)
        state = CTXSCOPE_IDLE_UNKNOWN;
    asm volatile("" : "+r"(state));
    if (state > CTXSCOPE_IDLE_UNKNOWN)
        return 0;
    struct ctxscope_step_bins* s = &idle_bins[state];
    const __u64 ns = to - from;
    __u32 b = bin_of(ns);
    if (b >= CTXSCOPE_STEP_BINS)
        b = CTXSCOPE_STEP_BINS - 1;
    __sync_fetch_and_add(&s->sum_ns, ns);
    __sync_fetch_and_add(&s->bins[b], 1);
    return 0;
}

// A step named after the task the wakee's CPU ran (locked: that task may run on two CPUs).
__noinline int take_busy(__u32 pid, __u32 way, __u32 from_event, __u64 from, __u64 to)
{
    if (to < from)
        return 0;
    struct ctxscope_busy_key key = { .pid = pid, .way = (__u16)way, .from = (__u16)from_event };
    struct ctxscope_step_bins* s = bpf_map_lookup_elem(&busy_steps, &key);
    if (!s) {
        const __u32 zero = 0;
        const struct ctxscope_step_bins* z = bpf_map_lookup_elem(&zero_bins, &zero);
        if (!z)
            return 0;
        bpf_map_update_elem(&busy_steps, &key, z, BPF_NOEXIST);
        s = bpf_map_lookup_elem(&busy_steps, &key);
        if (!s) {
            __sync_fetch_and_add(&busy_lost, 1);
            return 0;
        }
    }
    const __u64 ns = to - from;
    __u32 b = bin_of(ns);
    if (b >= CTXSCOPE_STEP_BINS)
        b = CTXSCOPE_STEP_BINS - 1;
    __sync_fetch_and_add(&s->sum_ns, ns);
    __sync_fetch_and_add(&s->bins[b], 1);
    return 0;
}

// The entry of a task a wakee's CPU ran, made on first sight; NULL when the map is full.
static __always_inline struct ctxscope_busy* busy_of(__u32 pid, __u32 cpu)
{
    struct ctxscope_busy* b = bpf_map_lookup_elem(&busy, &pid);
    if (b)
        return b;
    struct ctxscope_busy fresh = { .cpu = cpu };
    bpf_map_update_elem(&busy, &pid, &fresh, BPF_NOEXIST);
    b = bpf_map_lookup_elem(&busy, &pid);
    if (!b)
        __sync_fetch_and_add(&busy_lost, 1);
    return b;
}

// The measured task running now, its event counted; NULL when it is not one (or when off).
static __always_inline struct ctxscope_task_state* current_measured(void)
{
    if (!enabled)
        return 0;
    struct ctxscope_task_state* t = state_at(slot_of((__u32)bpf_get_current_pid_tgid()));
    if (t)
        ++t->events;
    return t;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ctxscope_ho_enter, struct pt_regs* regs, long nr)
{
    struct ctxscope_task_state* t = current_measured();
    if (!t)
        return 0;
    const __u64 now = bpf_ktime_get_ns();
    if (t->exit_ns) {
        take(t->slot, t->in_cross ? CTXSCOPE_STEP_X_IN_USER_SPACE : CTXSCOPE_STEP_IN_USER_SPACE, t->exit_ns, now);
        t->exit_ns = 0;
    }
    t->call_ns = now;
    t->call_nr = (__u64)nr;
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ctxscope_ho_exit, struct pt_regs* regs, long ret)
{
    struct ctxscope_task_state* t = current_measured();
    if (!t)
        return 0;
    t->call_ns = 0;
    if (t->in_ns) {
        // Back in user space on the CPU it was switched in on (cutHandovers' first exit after
        // the switch-in, on that CPU). Only then is the clock read.
        if (t->in_cpu == bpf_get_smp_processor_id()) {
            const __u64 now = bpf_ktime_get_ns();
            take(t->slot, t->in_cross ? CTXSCOPE_STEP_X_RETURN_TO_USER : CTXSCOPE_STEP_RETURN_TO_USER, t->in_ns, now);
            t->exit_ns = now;
        }
        t->in_ns = 0;
    }
    return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(ctxscope_ho_waking, struct task_struct* p)
{
    if (!enabled)
        return 0;
    const int slot = slot_of((__u32)p->pid);
    struct ctxscope_task_state* t = state_at(slot);
    if (!t)
        return 0;
    ++t->events;
    const __u32 cpu = bpf_get_smp_processor_id();
    t->waking_ns = bpf_ktime_get_ns();
    t->waking_cpu = cpu;
    t->ipi_ns = 0;
    // The waker's open call now is its wake call (a waker that is not measured has none).
    const struct ctxscope_task_state* waker = state_at(slot_of((__u32)bpf_get_current_pid_tgid()));
    t->wake_call_ns = waker ? waker->call_ns : 0;
    if (!one_cpu && cpu < CTXSCOPE_HANDOVER_CPUS) // on one CPU no IPI is a step
        waking_slot[cpu & (CTXSCOPE_HANDOVER_CPUS - 1)] = (__u32)slot + 1;
    return 0;
}

// The first IPI (or wake-up without one) the waker's CPU sends after the wake-up to the CPU the
// wakee last ran on: cutHandovers' first such event to the CPU it is switched in on, which the
// switch-in checks.
static __always_inline void wake_signal(__u32 target, __u32 from_event)
{
    if (!enabled)
        return;
    const __u32 cpu = bpf_get_smp_processor_id();
    if (cpu >= CTXSCOPE_HANDOVER_CPUS)
        return;
    const __u32 s = waking_slot[cpu & (CTXSCOPE_HANDOVER_CPUS - 1)];
    struct ctxscope_task_state* t = state_at((int)s - 1);
    if (!t || !t->waking_ns || t->ipi_ns || t->waking_cpu != cpu || t->out_cpu != target)
        return;
    t->ipi_ns = bpf_ktime_get_ns();
    t->ipi_cpu = target;
    t->ipi_from = from_event;
}

SEC("tp_btf/ipi_send_cpu")
int BPF_PROG(ctxscope_ho_ipi, unsigned int target, unsigned long callsite, void* callback)
{
    wake_signal(target, CTXSCOPE_FROM_IPI);
    return 0;
}

SEC("tp_btf/sched_wake_idle_without_ipi")
int BPF_PROG(ctxscope_ho_no_ipi, int target)
{
    wake_signal((__u32)target, CTXSCOPE_FROM_NO_IPI);
    return 0;
}

// power:cpu_idle on a traced CPU: the state an entry names, each exit's time and that state.
SEC("tp_btf/cpu_idle")
int BPF_PROG(ctxscope_ho_idle, unsigned int state, unsigned int cpu_id)
{
    if (!enabled)
        return 0;
    struct ctxscope_cpu_state* c = cpu_at(bpf_get_smp_processor_id());
    if (!c)
        return 0;
    if (state != (unsigned int)-1) { // PWR_EVENT_EXIT
        c->idle_state = state < CTXSCOPE_IDLE_STATES ? state : CTXSCOPE_IDLE_UNKNOWN;
        return 0;
    }
    const __u32 i = c->exit_next & (CTXSCOPE_IDLE_RING - 1);
    c->exit_ns[i] = bpf_ktime_get_ns();
    c->exit_state[i] = c->idle_state;
    c->exit_next = c->exit_next + 1;
    return 0;
}

// The time the traced CPU gave the task switching out (`prev`, still current) since its last
// switch, when it is neither measured nor idle. Global, so verified once: inlined, its loop over
// the keep-awake threads multiplied sched_switch's paths past the verifier's limit.
__noinline int charge(__u32 cpu, __u32 prev_pid, __u64 since, __u64 now)
{
    struct ctxscope_cpu_state* c = cpu_at(cpu);
    if (!c || prev_pid == 0 || since == 0 || now < since)
        return 0;
    const __u64 ns = now - since;
    if (keep_awake(prev_pid)) {
        c->keep_awake_ns += ns;
        return 0;
    }
    c->other_ns += ns;
    struct ctxscope_other* o = bpf_map_lookup_elem(&others, &prev_pid);
    if (o) {
        __sync_fetch_and_add(&o->ns, ns);
        return 0;
    }
    struct ctxscope_other fresh = { .ns = ns, .cpu = cpu };
    bpf_get_current_comm(fresh.comm, sizeof fresh.comm);
    if (bpf_map_update_elem(&others, &prev_pid, &fresh, BPF_NOEXIST) != 0)
        __sync_fetch_and_add(&others_lost, 1);
    return 0;
}

// One turn of task `pid` on `cpu` within the wait of measured task `slot` (woken, not yet
// switched in): the task is counted once per hand-over (its entry keeps the wake-up it last
// delayed) and charged the turn; the wakee keeps the task that ran longest in its wait so far.
__noinline int wait_turn(__u32 slot, __u32 cpu, __u32 pid, __u64 ns)
{
    struct ctxscope_task_state* t = state_at((int)slot);
    if (!t || pid == 0)
        return 0;
    struct ctxscope_busy* b = busy_of(pid, cpu);
    if (!b)
        return 0;
    if (b->wait_stamp != t->waking_ns) {
        b->wait_stamp = t->waking_ns;
        b->wait_ns_now = 0;
        __sync_fetch_and_add(&b->waited, 1);
        if (slot_of(pid) < 0 && !keep_awake(pid))
            t->wait_behind_others = 1;
    }
    b->wait_ns_now += ns;
    __sync_fetch_and_add(&b->waited_ns, ns);
    if (b->wait_ns_now > t->wait_longest_ns) {
        t->wait_longest_ns = b->wait_ns_now;
        t->wait_longest = pid;
    }
    return 0;
}

// The wakee (its wake-up not yet cleared) waited on `cpu` from its wake-up to now while other
// tasks ran there: each is charged the time it ran in the wait (from the CPU's switch log), and
// the step from `last` is named after the one that ran longest, as cutHandovers' waitedBehind
// does.
__noinline int waited_behind(__u32 slot, __u32 cpu, __u32 prev_pid, __u64 last, __u64 now)
{
    struct ctxscope_task_state* t = state_at((int)slot);
    struct ctxscope_cpu_state* c = cpu_at(cpu);
    if (!t || !c)
        return 0;
    const __u64 waking = t->waking_ns;
    // `last` is the wake-up, or the IPI (or the wake-up without one) after it.
    const __u32 from_event = last == waking ? CTXSCOPE_FROM_WAKING : t->ipi_from;
    t->wait_longest = 0;
    t->wait_longest_ns = 0;
    t->wait_behind_others = 0;
    // This switch ends prev's turn, which began at the CPU's last switch; each logged switch
    // (its time, the task it switched out) ends the turn that began at the one before it.
    __u64 to = now;
    __u32 pid = prev_pid;
    __u64 start = c->last_switch_ns;
    __u32 n = c->log_next; // the newest logged switch is n - 1, at c->last_switch_ns
    int complete = 0;
    for (int i = 0; i < CTXSCOPE_SWITCH_LOG; ++i) {
        const __u64 from = start > waking ? start : waking;
        if (to > from)
            wait_turn(slot, cpu, pid, to - from);
        if (start <= waking) {
            complete = 1;
            break;
        }
        // The turn before needs the two switches around it, both still in the log.
        if (n < 2 || i >= CTXSCOPE_SWITCH_LOG - 2)
            break;
        to = start;
        pid = c->log_pid[(n - 1) & (CTXSCOPE_SWITCH_LOG - 1)];
        start = c->log_ns[(n - 2) & (CTXSCOPE_SWITCH_LOG - 1)];
        --n;
    }
    if (!complete)
        ++t->waits_cut;
    ++t->waiting;
    if (t->wait_behind_others)
        ++t->waiting_behind_others;
    if (t->wait_longest == 0)
        take(slot, CTXSCOPE_STEP_X_IN_AFTER_WAKING + from_event, last, now);
    else
        take_busy(t->wait_longest, CTXSCOPE_BUSY_WAITING, from_event, last, now);
    return 0;
}

// A switch on `cpu` into measured task `slot` woken on another CPU: the wake call, the IPI (or
// the wake-up without one), then by the CPU's state at the wake-up: idle (the idle exit, then the
// switch-in), a task the wake-up preempted, or tasks the wakee waited behind.
__noinline int cross_arrival(__u32 slot, __u32 cpu, __u32 prev_pid, __u32 prev_runnable, __u64 now)
{
    struct ctxscope_task_state* t = state_at((int)slot);
    struct ctxscope_cpu_state* c = cpu_at(cpu);
    if (!t || !c)
        return 0;
    const __u64 waking = t->waking_ns;
    if (t->wake_call_ns)
        take(slot, CTXSCOPE_STEP_X_WAKE_CALL, t->wake_call_ns, waking);
    __u64 last = waking;
    __u32 from_event = CTXSCOPE_FROM_WAKING;
    if (t->ipi_ns && t->ipi_cpu == cpu && t->ipi_ns <= now) {
        take(slot, t->ipi_from == CTXSCOPE_FROM_IPI ? CTXSCOPE_STEP_X_IPI_SENT : CTXSCOPE_STEP_X_NO_IPI, waking,
            t->ipi_ns);
        last = t->ipi_ns;
        from_event = t->ipi_from == CTXSCOPE_FROM_IPI ? CTXSCOPE_FROM_IPI : CTXSCOPE_FROM_NO_IPI;
    }
    if (c->last_switch_ns > waking)
        return waited_behind(slot, cpu, prev_pid, last, now);
    if (prev_pid == 0) {
        ++t->idle;
        // The first idle exit after the wake-up (of those the CPU keeps), if after `last`.
        __u64 exit = 0;
        __u32 state = CTXSCOPE_IDLE_UNKNOWN;
        for (int i = 0; i < CTXSCOPE_IDLE_RING; ++i) {
            if (c->exit_ns[i] > waking && c->exit_ns[i] <= now && (exit == 0 || c->exit_ns[i] < exit)) {
                exit = c->exit_ns[i];
                state = c->exit_state[i];
            }
        }
        if (exit > last) {
            take(slot, CTXSCOPE_STEP_X_IDLE_EXIT, last, exit);
            take_idle(state, last, exit);
            last = exit;
            from_event = CTXSCOPE_FROM_IDLE_EXIT;
        }
        take(slot, CTXSCOPE_STEP_X_IN_AFTER_WAKING + from_event, last, now);
        return 0;
    }
    if (prev_runnable && now - waking <= CTXSCOPE_WAKE_PREEMPT_NS) {
        ++t->preempting;
        struct ctxscope_busy* b = busy_of(prev_pid, cpu);
        if (b)
            __sync_fetch_and_add(&b->preempted, 1);
        take_busy(prev_pid, CTXSCOPE_BUSY_PREEMPTING, from_event, last, now);
        return 0;
    }
    return waited_behind(slot, cpu, prev_pid, last, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ctxscope_ho_switch, bool preempt, struct task_struct* prev, struct task_struct* next)
{
    if (!enabled)
        return 0;
    const __u32 cpu = bpf_get_smp_processor_id();
    const __u32 prev_pid = (__u32)prev->pid;
    const __u32 next_pid = (__u32)next->pid;
    const int p = slot_of(prev_pid);
    const int n = slot_of(next_pid);
    const __u64 now = bpf_ktime_get_ns();
    struct ctxscope_cpu_state* c = cpu_at(cpu);
    __u64 since = 0;
    if (c) {
        since = c->last_switch_ns;
        if (p < 0)
            charge(cpu, prev_pid, since, now);
    }
    struct ctxscope_task_state* out = state_at(p);
    struct ctxscope_task_state* t = n == p ? 0 : state_at(n);
    if (out) { // the event is counted once, in the task that leaves, else in the one that comes
        ++out->events;
        ++out->switch_outs;
        out->out_ns = now;
        out->out_cpu = cpu;
    } else if (t) {
        ++t->events;
    }
    int found = 0;
    int cross = 0;
    if (t && t->waking_ns && t->waking_ns > t->out_ns) {
        // Woken since it last left: the waker's call, then the steps to the switch.
        const __u64 waking = t->waking_ns;
        if (t->out_ns && t->out_cpu != cpu)
            ++t->migrated;
        if (t->waking_cpu != cpu && one_cpu) {
            ++t->cross;
        } else if (t->waking_cpu != cpu) {
            if (c) {
                const __u32 runnable = preempt || (prev->__state & CTXSCOPE_TASK_REPORT) == 0;
                cross_arrival(n, cpu, prev_pid, runnable, now);
                found = 1;
                cross = 1;
            }
        } else {
            ++t->waker_cpu;
            if (t->wake_call_ns)
                take(t->slot, CTXSCOPE_STEP_WAKE_CALL, t->wake_call_ns, waking);
            take(t->slot, CTXSCOPE_STEP_WAKER_RUNS_ON, waking, now);
            found = 1;
        }
        t->waking_ns = 0;
    } else if (t && out && out->call_ns) {
        // No wake-up since it left: the measured task switching out hands the CPU over by its
        // own call, a yield or a wait it sleeps in.
        take(
            t->slot, out->call_nr == yield_nr ? CTXSCOPE_STEP_YIELD_CALL : CTXSCOPE_STEP_SLEEP_CALL, out->call_ns, now);
        found = 1;
    }
    if (c && !one_cpu) {
        // Logged after the switch-in's look back, which ends at the switch before this one (on
        // one CPU no wakee waits behind another task: nothing looks back).
        const __u32 e = c->log_next & (CTXSCOPE_SWITCH_LOG - 1);
        c->log_ns[e] = now;
        c->log_pid[e] = prev_pid;
        c->log_next = c->log_next + 1;
    }
    if (c)
        c->last_switch_ns = now;
    if (!found)
        return 0;
    ++t->handovers;
    // Its first sys_exit after this is its return to user (an open "in user space" stays open:
    // cutHandovers, too, takes the next sys_enter after the exit).
    t->in_ns = now;
    t->in_cpu = cpu;
    t->in_cross = cross;
    return 0;
}
