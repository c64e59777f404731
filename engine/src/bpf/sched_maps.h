/* SPDX-License-Identifier: MIT */
/* What the BPF programs (sched_watch.bpf.c) keep per watched thread and what ctxscope reads
 * back (bpf_sched_watch.cpp): one layout, compiled for both. Running totals since the
 * programs were attached; the reader takes differences. */
#ifndef CTXSCOPE_BPF_SCHED_MAPS_H
#define CTXSCOPE_BPF_SCHED_MAPS_H

#include <linux/types.h>

/* runqlat's bins: [i] counts waits of 2^i ns up to 2^(i+1) ns; the last also holds longer. */
#define CTXSCOPE_LOG2_BINS 36
/* Map sizes at their largest: a program of 10,000 threads with a few peers each. ctxscope sizes
 * each map for the watched program when it loads them (bpfMapSizes). A full map's update fails
 * and is counted in `lost`, never silently dropped. */
#define CTXSCOPE_MAX_THREADS 16384
#define CTXSCOPE_MAX_PEERS 65536
#define CTXSCOPE_MAX_MOVES 32768

/* Peers that a thread's own value holds: its first wakers, preemptors and moves, kept for the
 * watch's life. A program's steady peers are read with its threads, from memory, without a
 * map entry each; more go to the maps of peers and moves, emptied at every read. */
#define CTXSCOPE_INLINE_PEERS 4

/* flags */
#define CTXSCOPE_RUNNING 1u /* seen switched in, not yet out */
#define CTXSCOPE_LEFT_WOKEN 2u /* woken while it still ran, then left to sleep (see ready_ns) */
#define CTXSCOPE_SNAPSHOT 4u /* seen_* hold the kernel's totals at its last switch-out */
#define CTXSCOPE_EVER_RAN 8u /* a switch-out seen: its state is known */

struct ctxscope_inline_peer {
    __u32 peer; /* 0: an interrupt (wakers) or the idle task */
    __u32 used; /* 1 once claimed: its peer never changes after */
    __u64 count; /* running total */
    char comm[16];
};

struct ctxscope_inline_move {
    __u16 from;
    __u16 to;
    __u32 used;
    __u64 count;
};

/* One slot of the threads array (memory-mapped: ctxscope reads it without a system call). A
 * slot is zero until a thread takes it, and zeroed again when ctxscope gives it back. */
struct ctxscope_thread {
    __u64 voluntary; /* switched out to sleep */
    __u64 involuntary; /* switched out still runnable (preempted) */
    __u64 switch_ins; /* runs: recorded, recovered and unrecorded */
    __u64 run_ns;
    __u64 wait_ns; /* runnable to running, every run's */
    __u64 waits; /* waits in the histogram */
    __u64 wait_sum_ns; /* their sum: the exact mean */
    __u64 wait_max_ns;
    __u64 migrations; /* runs on another CPU than the run before */
    __u64 recovered; /* switch-ins sched_switch did not report, rebuilt from sched_info */
    __u64 unrecorded; /* switch-ins neither reported nor recoverable: their waits are unknown */
    __u64 running_since; /* CLOCK_MONOTONIC ns of its switch-in, when CTXSCOPE_RUNNING */
    __u64 ready_ns; /* runnable since (woken or preempted), 0: not waiting */
    __u64 queued_ns; /* enqueued since (sched_wakeup, or preempted), 0: not yet or not waiting */
    __u64 seen_pcount; /* task_struct.sched_info.pcount at its last switch-out */
    __u64 seen_run_delay; /* sched_info.run_delay then */
    __u64 seen_exec_ns; /* se.sum_exec_runtime then */
    __u32 last_cpu; /* plus one; 0: not seen on a CPU */
    __u32 state; /* prev_state | exit_state of its last switch-out; 0 with preempt */
    __u32 flags;
    /* The CPUs it may run on, as its last switch-out saw them, folded into a word (the first 64
     * CPUs' bits and their count): the reader reads the affinity again only when this changes.
     * 0: not seen. */
    __u32 affinity_key;
    __u32 tid; /* the thread in this slot; 0: a free slot */
    __u32 reserved;
    /* The address of its task_struct, only ever compared: tells a thread from a later one given
     * its TID again (the slot cache finds a slot by TID). */
    __u64 task;
    __u64 hist[CTXSCOPE_LOG2_BINS];
    /* The same waits from the enqueue (sched_wakeup: runqlat's start), not from sched_waking:
     * the difference is the wake-up's way to the wakee's CPU (an IPI, an idle exit). Binned as
     * runqlat bins them: [i] waits of 2^i to 2^(i+1) whole µs. */
    __u64 queued_sum_ns;
    __u64 queued_hist[CTXSCOPE_LOG2_BINS];
    struct ctxscope_inline_peer wakers[CTXSCOPE_INLINE_PEERS];
    struct ctxscope_inline_peer preemptors[CTXSCOPE_INLINE_PEERS];
    struct ctxscope_inline_move moves[CTXSCOPE_INLINE_PEERS];
};

struct ctxscope_peer_key {
    __u32 tid;
    __u32 peer; /* 0: an interrupt (wakers) or the idle task */
};

struct ctxscope_peer {
    __u64 count;
    char comm[16];
};

struct ctxscope_move_key {
    __u32 tid;
    __u16 from;
    __u16 to;
};

#endif
