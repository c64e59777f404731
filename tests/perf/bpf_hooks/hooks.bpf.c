// SPDX-License-Identifier: MIT
// The hooks a BPF observer of a traced run (issue 40, item 3) would need, doing the least each
// can: bpf_hook_cost.sh loads a chosen set of them into the futex benchmark's process and
// measures what they cost its round trip. Each program compares the task's tgid with the
// measured one and returns; with `record` set it also writes a 32-byte record of the event
// into a ring buffer (no wake-up of the reader: it polls), the least that hands the events to
// user space. fentry and kprobe are here only to ask whether this kernel allows them.
#include "kernel_types.h"

#include <linux/bpf.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 target_tgid = 0;
const volatile __u32 record = 0;

// Events of the measured process that were recorded, and records the full ring refused.
__u64 recorded = 0;
__u64 refused = 0;

struct hook_record {
    __u64 ns;
    __u32 kind;
    __u32 tid;
    __u32 other;
    __u32 cpu;
    __u64 arg;
};

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 64 << 20);
} records SEC(".maps");

static __always_inline int hit(__u32 kind, __u32 other, __u64 arg)
{
    const __u64 id = bpf_get_current_pid_tgid();
    if ((id >> 32) != target_tgid || !record)
        return 0;
    struct hook_record* r = bpf_ringbuf_reserve(&records, sizeof *r, 0);
    if (!r) {
        __sync_fetch_and_add(&refused, 1);
        return 0;
    }
    r->ns = bpf_ktime_get_ns();
    r->kind = kind;
    r->tid = (__u32)id;
    r->other = other;
    r->cpu = bpf_get_smp_processor_id();
    r->arg = arg;
    bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
    __sync_fetch_and_add(&recorded, 1);
    return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hook_sched_switch, bool preempt, struct task_struct* prev, struct task_struct* next)
{
    return hit(1, BPF_CORE_READ(next, pid), preempt);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(hook_sched_waking, struct task_struct* p) { return hit(2, BPF_CORE_READ(p, pid), 0); }

SEC("tp_btf/sched_wakeup")
int BPF_PROG(hook_sched_wakeup, struct task_struct* p) { return hit(3, BPF_CORE_READ(p, pid), 0); }

SEC("tp_btf/sys_enter")
int BPF_PROG(hook_sys_enter, struct pt_regs* regs, long id) { return hit(4, 0, (__u64)id); }

SEC("tp_btf/sys_exit")
int BPF_PROG(hook_sys_exit, struct pt_regs* regs, long ret) { return hit(5, 0, (__u64)ret); }

SEC("fentry/__x64_sys_futex")
int BPF_PROG(hook_fentry_futex, struct pt_regs* regs) { return hit(6, 0, 0); }

SEC("kprobe/__x64_sys_futex")
int BPF_KPROBE(hook_kprobe_futex) { return hit(7, 0, 0); }
