// SPDX-License-Identifier: MIT
// The in-kernel half of the BPF backend (bpf_sched_watch.cpp): per thread of one process, its
// switches, run and wait times, wake-up latency bins, wakers, preemptors and moves, kept in maps
// that ctxscope reads once an interval. Each program first compares the task's tgid with the
// watched one and returns: a switch of another process costs two loads and a compare.
// Programs are named ctxscope_*: `bpftool prog show` finds them (none once ctxscope exits, as
// nothing is pinned).
#include "bpf_log2.h"
#include "kernel_types.h"
#include "sched_maps.h"

#include <linux/bpf.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 target_tgid = 0;

// The slot cache's size minus one (a power of two): a TID's entry is at tid & tid_cache_mask.
const volatile __u32 tid_cache_mask = 0;

// Updates that failed (a map full): the reader reports them as lost events.
__u64 lost = 0;

// Slots taken from free_slots so far (at most the array's size while none was given back):
// the reader scans the array up to this many slots.
__u64 pops = 0;

// Per CPU: how deep in interrupts it is (hard, soft, a timer's callback). A wake-up inside one
// has no waker task: whatever ran was only interrupted. (The kernel's own preempt count says
// this, but on these kernels it is not a symbol BPF can reach.)
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __s32);
} irq_depth SEC(".maps");

static __always_inline int irq_step(int by)
{
    __u32 zero = 0;
    __s32* depth = bpf_map_lookup_elem(&irq_depth, &zero);
    if (depth) {
        __s32 d = *depth + by;
        *depth = d < 0 ? 0 : d; // an exit whose entry came before the programs were attached (exits attach first)
    }
    return 0;
}

SEC("tp_btf/irq_handler_entry")
int ctxscope_irq_in(void* ctx) { return irq_step(1); }
SEC("tp_btf/irq_handler_exit")
int ctxscope_irq_out(void* ctx) { return irq_step(-1); }
SEC("tp_btf/softirq_entry")
int ctxscope_sirq_in(void* ctx) { return irq_step(1); }
SEC("tp_btf/softirq_exit")
int ctxscope_sirq_out(void* ctx) { return irq_step(-1); }
// The local timer interrupt has no irq handler event: its callbacks (hrtimer_wakeup of a
// sleeping thread) are bracketed by these.
SEC("tp_btf/hrtimer_expire_entry")
int ctxscope_tmr_in(void* ctx) { return irq_step(1); }
SEC("tp_btf/hrtimer_expire_exit")
int ctxscope_tmr_out(void* ctx) { return irq_step(-1); }

// Each thread's value, in a slot of an array that ctxscope maps into its memory and reads
// without a system call; the thread's own task-local storage holds its slot. ctxscope fills
// free_slots with every slot in order before the programs attach, and gives a slot back (zeroed)
// one reading after its thread ended. A queue hands out slots first in, first out: every slot is
// taken once before a given-back one is taken again, so the slots in use are the first `pops`.
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, CTXSCOPE_MAX_THREADS);
    __type(key, __u32);
    __type(value, struct ctxscope_thread);
} threads SEC(".maps");

// A thread's slot plus one (0: none yet), kept in its task_struct: found from the task an event
// passes, where a hash from thread id to slot cost a hash lookup at each of a thread's events.
// The kernel frees it with the task, and the map with ctxscope's process.
struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, __u64); // 64 bits: the width a BPF compare-and-swap takes here
} slot_of SEC(".maps");

// A cache in front of slot_of: at a TID's entry, the TID and its slot plus one (TID << 32 | slot
// + 1). An array's lookup is a few instructions where the task storage's is a helper call into
// the task's list of storages; by the kernel's own count it makes each wake-up's programs cheaper,
// the more so for a thread not seen for a while (docs/performance.md). A program's threads mostly
// take TIDs in a row, so that with as many entries as slots they seldom share one; an entry shared
// or stale only sends a lookup on to slot_of, as the slot it names must hold the same TID and task.
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, CTXSCOPE_MAX_THREADS);
    __type(key, __u32);
    __type(value, __u64);
} slot_cache SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_QUEUE);
    __uint(max_entries, CTXSCOPE_MAX_THREADS);
    __type(value, __u32);
} free_slots SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_MAX_PEERS);
    __type(key, struct ctxscope_peer_key);
    __type(value, struct ctxscope_peer);
} wakers SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_MAX_PEERS);
    __type(key, struct ctxscope_peer_key);
    __type(value, struct ctxscope_peer);
} preemptors SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, CTXSCOPE_MAX_MOVES);
    __type(key, struct ctxscope_move_key);
    __type(value, __u64);
} moves SEC(".maps");

// The thread's value in slot `own` - 1, NULL for none: a slot given back after its thread
// ended (zeroed, or another thread's since) is no longer the task's.
static __always_inline struct ctxscope_thread* slot_value(__u64 own, __u32 tid, struct task_struct* task)
{
    if (own == 0)
        return 0;
    __u32 slot = (__u32)(own - 1);
    struct ctxscope_thread* t = bpf_map_lookup_elem(&threads, &slot);
    return t && t->tid == tid && t->task == (__u64)task ? t : 0;
}

// The thread's value by its entry in the slot cache, NULL where the entry is another's; `entry`
// is set to the entry, for remember().
static __always_inline struct ctxscope_thread* cached_thread(struct task_struct* task, __u32 tid, __u64** entry)
{
    __u32 key = tid & tid_cache_mask;
    __u64* c = bpf_map_lookup_elem(&slot_cache, &key);
    *entry = c;
    if (!c)
        return 0;
    const __u64 e = *c;
    return (__u32)(e >> 32) == tid ? slot_value(e & 0xffffffffull, tid, task) : 0;
}

static __always_inline void remember(__u64* entry, __u32 tid, __u64 own)
{
    if (entry)
        *entry = ((__u64)tid << 32) | own;
}

// A thread's value, NULL when it has none yet.
static __always_inline struct ctxscope_thread* known_thread(struct task_struct* task)
{
    const __u32 tid = task->pid;
    __u64* entry = 0;
    struct ctxscope_thread* t = cached_thread(task, tid, &entry);
    if (t)
        return t;
    __u64* own = bpf_task_storage_get(&slot_of, task, 0, 0);
    if (!own)
        return 0;
    const __u64 was = *own;
    t = slot_value(was, tid, task);
    if (t)
        remember(entry, tid, was);
    return t;
}

// A thread's value, a free slot taken for it on its first event.
static __always_inline struct ctxscope_thread* thread_of(struct task_struct* task)
{
    const __u32 tid = task->pid;
    __u64* entry = 0;
    struct ctxscope_thread* t = cached_thread(task, tid, &entry);
    if (t)
        return t;
    __u64* own = bpf_task_storage_get(&slot_of, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!own) { // no memory for it, or the storage busy on this CPU (an event inside another's)
        __sync_fetch_and_add(&lost, 1);
        return 0;
    }
    const __u64 was = *own;
    t = slot_value(was, tid, task);
    if (t) {
        remember(entry, tid, was);
        return t;
    }
    __u32 slot = 0;
    if (bpf_map_pop_elem(&free_slots, &slot) != 0) {
        __sync_fetch_and_add(&lost, 1); // every slot taken
        return 0;
    }
    __sync_fetch_and_add(&pops, 1);
    t = bpf_map_lookup_elem(&threads, &slot);
    if (!t) { // not within the array: not a slot the queue hands out
        bpf_map_push_elem(&free_slots, &slot, 0);
        return 0;
    }
    t->tid = tid; // before the slot is published: a reader of the storage finds it named
    t->task = (__u64)task;
    // Another CPU may be giving the same task a slot at once (its wake-up and its own switch):
    // the first to store its slot keeps it, the other gives its own back unnamed.
    if (__sync_val_compare_and_swap(own, was, (__u64)slot + 1) != was) {
        t->tid = 0;
        t->task = 0;
        bpf_map_push_elem(&free_slots, &slot, 0);
        return slot_value(*own, tid, task);
    }
    remember(entry, tid, (__u64)slot + 1);
    return t;
}

// A new peer's name, read only when it is first counted: `comm` is a task's (in the kernel),
// or NULL for the current task's; none for peer 0.
static __always_inline void name_peer(char* dst, __u32 peer, const char* comm)
{
    if (peer == 0)
        return;
    if (comm)
        bpf_probe_read_kernel_str(dst, 16, comm);
    else
        bpf_get_current_comm(dst, 16);
}

// A peer counted in the thread's own slot when it is one of its first, else in `map`. A
// thread's switch-outs run on its CPU and its wake-ups hold its pi_lock, but for a task waking
// itself, which takes no lock: counts are added atomically, and a claim of a free entry is left
// unlocked (two wake-ups claiming the same entry at once would share one peer's count).
static __always_inline void count_peer(
    struct ctxscope_inline_peer* own, void* map, __u32 tid, __u32 peer, const char* comm)
{
#pragma unroll
    for (int i = 0; i < CTXSCOPE_INLINE_PEERS; ++i) {
        if (own[i].used && own[i].peer == peer) {
            __sync_fetch_and_add(&own[i].count, 1);
            return;
        }
        if (!own[i].used) {
            own[i].peer = peer;
            name_peer(own[i].comm, peer, comm);
            own[i].count = 1;
            own[i].used = 1;
            return;
        }
    }
    struct ctxscope_peer_key key = { .tid = tid, .peer = peer };
    struct ctxscope_peer* p = bpf_map_lookup_elem(map, &key);
    if (p) {
        __sync_fetch_and_add(&p->count, 1);
        return;
    }
    struct ctxscope_peer fresh = { .count = 1 };
    name_peer(fresh.comm, peer, comm);
    long err = bpf_map_update_elem(map, &key, &fresh, BPF_NOEXIST);
    if (err == -17) {
        p = bpf_map_lookup_elem(map, &key);
        if (p)
            __sync_fetch_and_add(&p->count, 1);
    } else if (err != 0) {
        __sync_fetch_and_add(&lost, 1);
    }
}

// log2, as runqlat's log2l() but in ns, the last bin also holding longer waits.
static __always_inline __u32 log2_bin(__u64 v)
{
    const __u32 bin = ctxscope_log2(v);
    return bin >= CTXSCOPE_LOG2_BINS ? CTXSCOPE_LOG2_BINS - 1 : bin;
}

static __always_inline void count_wait(struct ctxscope_thread* t, __u64 wait)
{
    __sync_fetch_and_add(&t->hist[log2_bin(wait)], 1);
    t->waits++;
    t->wait_sum_ns += wait;
    if (wait > t->wait_max_ns)
        t->wait_max_ns = wait;
}

// The same wait from its enqueue, in runqlat's bins (log2 of whole µs): bin for bin its figures.
static __always_inline void count_queued(struct ctxscope_thread* t, __u64 wait)
{
    __sync_fetch_and_add(&t->queued_hist[log2_bin(wait / 1000)], 1);
    t->queued_sum_ns += wait;
}

static __always_inline void moved(struct ctxscope_thread* t, __u32 tid, __u32 cpu)
{
    if (t->last_cpu != 0 && t->last_cpu != cpu + 1) {
        t->migrations++;
        const __u16 from = (__u16)(t->last_cpu - 1);
        const __u16 to = (__u16)cpu;
#pragma unroll
        for (int i = 0; i < CTXSCOPE_INLINE_PEERS; ++i) {
            struct ctxscope_inline_move* m = &t->moves[i];
            if (m->used && m->from == from && m->to == to) {
                m->count++;
                t->last_cpu = cpu + 1;
                return;
            }
            if (!m->used) {
                m->from = from;
                m->to = to;
                m->count = 1;
                m->used = 1;
                t->last_cpu = cpu + 1;
                return;
            }
        }
        struct ctxscope_move_key key = { .tid = tid, .from = from, .to = to };
        __u64* n = bpf_map_lookup_elem(&moves, &key);
        if (n) {
            __sync_fetch_and_add(n, 1);
        } else {
            __u64 one = 1;
            long err = bpf_map_update_elem(&moves, &key, &one, BPF_NOEXIST);
            if (err != 0 && err != -17)
                __sync_fetch_and_add(&lost, 1);
        }
    }
    t->last_cpu = cpu + 1;
}

static __always_inline void switched_in(struct task_struct* next, __u64 now, __u32 cpu)
{
    __u32 tid = next->pid;
    struct ctxscope_thread* t = thread_of(next);
    if (!t)
        return;
    t->switch_ins++;
    t->running_since = now;
    t->flags = (t->flags | CTXSCOPE_RUNNING) & ~CTXSCOPE_LEFT_WOKEN;
    if (t->ready_ns != 0) {
        __u64 wait = now > t->ready_ns ? now - t->ready_ns : 0;
        t->wait_ns += wait;
        count_wait(t, wait);
        // Enqueued before it ran; its sched_wakeup unseen only when the programs were attached
        // between its sched_waking and its sched_wakeup: then counted from sched_waking, so that
        // both histograms hold the same waits.
        const __u64 queued = t->queued_ns != 0 ? t->queued_ns : t->ready_ns;
        count_queued(t, now > queued ? now - queued : 0);
        t->ready_ns = 0;
    }
    t->queued_ns = 0;
    moved(t, tid, cpu);
}

// A switch-out of a thread not seen switched in: sched_switch did not report its switch-in (seen
// on KVM guests for a switch from a CPU's idle task). The kernel's own per-task totals, which
// the switch itself updates, give that run back: one run since the last switch-out (pcount),
// its wait (run_delay: from its enqueue, a little after sched_waking) and its run time.
static __always_inline void recover(struct ctxscope_thread* t, struct task_struct* prev, __u32 tid, __u32 cpu)
{
    __u64 pcount = prev->sched_info.pcount;
    __u64 delay = prev->sched_info.run_delay;
    __u64 exec = prev->se.sum_exec_runtime;
    if (!(t->flags & CTXSCOPE_SNAPSHOT)) {
        if (t->ready_ns != 0) { // it waited, then ran: when, the kernel did not say
            t->switch_ins++;
            t->unrecorded++;
        }
        return;
    }
    __u64 runs = pcount - t->seen_pcount;
    if (runs == 0 || pcount < t->seen_pcount)
        return;
    __u64 waited = delay >= t->seen_run_delay ? delay - t->seen_run_delay : 0;
    t->switch_ins += runs;
    t->run_ns += exec >= t->seen_exec_ns ? exec - t->seen_exec_ns : 0;
    t->wait_ns += waited;
    if (runs == 1) {
        t->recovered++;
        if (t->ready_ns != 0) {
            count_wait(t, waited);
            count_queued(t, waited); // run_delay starts at the enqueue: the same wait
        }
        moved(t, tid, cpu);
    } else {
        t->unrecorded += runs; // several runs, one total wait: no wait of one run is known
        t->last_cpu = cpu + 1;
    }
}

static __always_inline void switched_out(
    struct task_struct* prev, struct task_struct* next, bool preempt, unsigned int prev_state, __u64 now, __u32 cpu)
{
    __u32 tid = prev->pid;
    struct ctxscope_thread* t = thread_of(prev);
    if (!t)
        return;
    if (t->flags & CTXSCOPE_RUNNING) {
        t->run_ns += now > t->running_since ? now - t->running_since : 0;
    } else {
        recover(t, prev, tid, cpu);
    }
    t->ready_ns = t->flags & CTXSCOPE_RUNNING ? t->ready_ns : 0;
    t->queued_ns = 0;
    t->seen_pcount = prev->sched_info.pcount;
    t->seen_run_delay = prev->sched_info.run_delay;
    t->seen_exec_ns = prev->se.sum_exec_runtime;
    const __u64 mask = prev->cpus_ptr->bits[0];
    const __u32 key = ((__u32)mask ^ (__u32)(mask >> 32)) * 2654435761u + (__u32)prev->nr_cpus_allowed;
    t->affinity_key = key != 0 ? key : 1;
    __u32 flags = (t->flags & ~(CTXSCOPE_RUNNING | CTXSCOPE_LEFT_WOKEN)) | CTXSCOPE_SNAPSHOT | CTXSCOPE_EVER_RAN;
    // As __schedule counts nvcsw: a switch it did not preempt, of a task no longer runnable.
    if (preempt || prev_state == 0) {
        t->involuntary++;
        t->state = 0;
        t->ready_ns = now;
        t->queued_ns = now; // still queued: runqlat's start too
        count_peer(t->preemptors, &preemptors, tid, next->pid, next->comm);
    } else {
        t->voluntary++;
        t->state = prev_state | (__u32)prev->exit_state;
        // Woken while it still ran (the wake-up raced its switch-out, or came before it slept
        // again): runnable from here, unless a later wake-up says it slept in between.
        if (t->ready_ns != 0) {
            t->ready_ns = now;
            t->queued_ns = now; // enqueued already (the wake-up found it running): as runqlat
            flags |= CTXSCOPE_LEFT_WOKEN;
        }
    }
    t->flags = flags;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ctxscope_switch, bool preempt, struct task_struct* prev, struct task_struct* next, unsigned int prev_state)
{
    const __u32 tgid = target_tgid;
    const bool out = prev->tgid == tgid && prev->pid != 0;
    const bool in = next->tgid == tgid && next->pid != 0;
    if (!out && !in)
        return 0;
    __u64 now = bpf_ktime_get_ns();
    __u32 cpu = bpf_get_smp_processor_id();
    if (out)
        switched_out(prev, next, preempt, prev_state, now, cpu);
    if (in)
        switched_in(next, now, cpu);
    return 0;
}

static __always_inline int woken(struct task_struct* p)
{
    if (p->tgid != target_tgid || p->pid == 0)
        return 0;
    __u32 tid = p->pid;
    struct ctxscope_thread* t = thread_of(p);
    if (!t)
        return 0;
    // A wake-up of a thread already runnable (preempted) keeps its earlier start.
    if (t->ready_ns == 0 || (t->flags & CTXSCOPE_LEFT_WOKEN)) {
        t->ready_ns = bpf_ktime_get_ns();
        t->queued_ns = 0; // until its sched_wakeup
        t->flags &= ~CTXSCOPE_LEFT_WOKEN;
    }
    // The task on the CPU, unless the CPU is in an interrupt (then peer 0, as in the ftrace
    // backend): an interrupt's wake-up was not the interrupted task's doing.
    __u32 zero = 0;
    __s32* depth = bpf_map_lookup_elem(&irq_depth, &zero);
    __u32 waker = (depth && *depth > 0) ? 0 : (__u32)bpf_get_current_pid_tgid();
    count_peer(t->wakers, &wakers, tid, waker, 0);
    return 0;
}

// sched_waking, not sched_wakeup: it runs in the waker's context (sched_wakeup of a remote
// wake-up runs later, in the target CPU's interrupt), and it is where the ftrace backend and
// perf sched timehist start the wait.
SEC("tp_btf/sched_waking")
int BPF_PROG(ctxscope_waking, struct task_struct* p) { return woken(p); }

// sched_wakeup: the wakee enqueued, on its CPU (for a wake-up of a thread on another CPU, in
// that CPU's interrupt, after its idle exit): where runqlat starts the wait. From sched_waking
// to here is the wake-up's way to the wakee's CPU.
SEC("tp_btf/sched_wakeup")
int BPF_PROG(ctxscope_wakeup, struct task_struct* p)
{
    if (p->tgid != target_tgid || p->pid == 0)
        return 0;
    struct ctxscope_thread* t = known_thread(p);
    if (t && t->ready_ns != 0 && t->queued_ns == 0)
        t->queued_ns = bpf_ktime_get_ns();
    return 0;
}

// A new task is woken and enqueued at once: both starts.
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ctxscope_new, struct task_struct* p)
{
    woken(p);
    if (p->tgid != target_tgid || p->pid == 0)
        return 0;
    struct ctxscope_thread* t = known_thread(p);
    if (t && t->queued_ns == 0)
        t->queued_ns = t->ready_ns;
    return 0;
}
