// SPDX-License-Identifier: MIT
// The in-kernel half of a traced run on one CPU (bpf_handover.cpp): the hand-overs between the
// measured tasks cut into steps at the same events cutHandovers (trace/handover.cpp) cuts
// ftrace's at, each step's durations binned here. No event leaves the kernel: ctxscope reads the
// bins once, after the run. The programs are attached for the traced run only and do nothing
// until ctxscope sets `enabled` (at the first measured op) and nothing after it clears it (after
// the last); each first compares the task with the few measured ones. Named ctxscope_ho_*;
// nothing is pinned, and the kernel frees them with ctxscope's process.
#include "bpf_log2.h"
#include "handover_maps.h"
#include "kernel_types.h"

#include <linux/bpf.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 traced_cpu = 0;
const volatile __u64 yield_nr = 0; // this machine's SYS_sched_yield

// Set by ctxscope through the mapped .bss: the measured tasks, then `enabled`.
__u32 tids[CTXSCOPE_HANDOVER_TASKS] = {};
__u32 ntids = 0;
__u32 enabled = 0;
// The traced CPU's last switch (ctxscope sets it to the start): who ran since is charged to it.
__u64 last_switch_ns = 0;

// Other tasks the full map refused, and time the traced CPU gave to tasks neither measured nor
// idle (the measured tasks' own counts are in their states).
__u64 others_lost = 0;
__u64 other_ns = 0;

// Per measured task and step: each (task, step) has one writer at a time (the task's own
// sys_enter or sys_exit, or the switch into it, interrupts off), so plain adds lose nothing
// and no locked add is paid; ctxscope adds the tasks' bins up.
struct ctxscope_step_bins steps[CTXSCOPE_HANDOVER_TASKS][CTXSCOPE_STEP_SLOTS] = {};

struct ctxscope_task_state states[CTXSCOPE_HANDOVER_TASKS] = {};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_HANDOVER_OTHERS);
    __type(key, __u32);
    __type(value, struct ctxscope_other);
} others SEC(".maps");

static __always_inline int slot_of(__u32 tid)
{
    __u32 n = ntids;
    for (int i = 0; i < CTXSCOPE_HANDOVER_TASKS; ++i) {
        if ((__u32)i >= n)
            break;
        if (tids[i] == tid)
            return i;
    }
    return -1;
}

// A measured task's state by its slot, NULL for none (-1); masked as take() masks its step.
static __always_inline struct ctxscope_task_state* state_at(int i)
{
    if (i < 0 || i >= CTXSCOPE_HANDOVER_TASKS)
        return 0;
    asm volatile("" : "+r"(i));
    return &states[i & (CTXSCOPE_HANDOVER_TASKS - 1)];
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
        take(t->slot, CTXSCOPE_STEP_IN_USER_SPACE, t->exit_ns, now);
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
            take(t->slot, CTXSCOPE_STEP_RETURN_TO_USER, t->in_ns, now);
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
    struct ctxscope_task_state* t = state_at(slot_of((__u32)p->pid));
    if (!t)
        return 0;
    ++t->events;
    t->waking_ns = bpf_ktime_get_ns();
    t->waking_cpu = bpf_get_smp_processor_id();
    // The waker's open call now is its wake call (a waker that is not measured has none).
    const struct ctxscope_task_state* waker = state_at(slot_of((__u32)bpf_get_current_pid_tgid()));
    t->wake_call_ns = waker ? waker->call_ns : 0;
    return 0;
}

// The time the traced CPU gave `prev` since its last switch, when prev is neither measured nor idle.
static __always_inline void charge(struct task_struct* prev, __u32 prev_pid, int p, __u64 now)
{
    const __u64 since = last_switch_ns;
    last_switch_ns = now;
    if (prev_pid == 0 || p >= 0 || since == 0 || now < since)
        return;
    const __u64 ns = now - since;
    __sync_fetch_and_add(&other_ns, ns);
    struct ctxscope_other* o = bpf_map_lookup_elem(&others, &prev_pid);
    if (o) {
        __sync_fetch_and_add(&o->ns, ns);
        return;
    }
    struct ctxscope_other fresh = { .ns = ns };
    bpf_probe_read_kernel_str(fresh.comm, sizeof fresh.comm, prev->comm);
    if (bpf_map_update_elem(&others, &prev_pid, &fresh, BPF_NOEXIST) != 0)
        __sync_fetch_and_add(&others_lost, 1);
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
    if (cpu == traced_cpu)
        charge(prev, prev_pid, p, now);
    struct ctxscope_task_state* out = state_at(p);
    struct ctxscope_task_state* t = n == p ? 0 : state_at(n);
    if (!out && !t)
        return 0;
    if (out) { // the event is counted once, in the task that leaves, else in the one that comes
        ++out->events;
        ++out->switch_outs;
        out->out_ns = now;
        out->out_cpu = cpu;
    } else if (t) {
        ++t->events;
    }
    if (!t)
        return 0;
    int found = 0;
    if (t->waking_ns && t->waking_ns > t->out_ns) {
        // Woken since it last left: the waker's call, then the waker runs on to the switch.
        const __u64 waking = t->waking_ns;
        t->waking_ns = 0;
        if (t->out_ns && t->out_cpu != cpu)
            ++t->migrated;
        if (t->waking_cpu != cpu) {
            ++t->cross;
            return 0;
        }
        ++t->waker_cpu;
        if (t->wake_call_ns)
            take(t->slot, CTXSCOPE_STEP_WAKE_CALL, t->wake_call_ns, waking);
        take(t->slot, CTXSCOPE_STEP_WAKER_RUNS_ON, waking, now);
        found = 1;
    } else if (out && out->call_ns) {
        // No wake-up since it left: the measured task switching out hands the CPU over by its
        // own call, a yield or a wait it sleeps in.
        take(
            t->slot, out->call_nr == yield_nr ? CTXSCOPE_STEP_YIELD_CALL : CTXSCOPE_STEP_SLEEP_CALL, out->call_ns, now);
        found = 1;
    }
    if (!found)
        return 0;
    ++t->handovers;
    // Its first sys_exit after this is its return to user (an open "in user space" stays open:
    // cutHandovers, too, takes the next sys_enter after the exit).
    t->in_ns = now;
    t->in_cpu = cpu;
    return 0;
}
