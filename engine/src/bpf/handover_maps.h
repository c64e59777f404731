/* SPDX-License-Identifier: MIT */
/* What the traced-run programs (handover.bpf.c) count in the kernel and ctxscope reads back
 * (bpf_handover.cpp): one layout, compiled for both. A hand-over between measured tasks on one
 * CPU is cut into the steps cutHandovers (trace/handover.cpp) cuts from ftrace's events, at the
 * same events; each step's durations go into log2+linear bins, so only totals leave the kernel. */
#ifndef CTXSCOPE_BPF_HANDOVER_MAPS_H
#define CTXSCOPE_BPF_HANDOVER_MAPS_H

#include <linux/types.h>

/* The measured tasks a traced run can have (a ring of up to this many on one CPU). */
#define CTXSCOPE_HANDOVER_TASKS 16
/* Bins: below 2^CTXSCOPE_SUB_BITS ns one per ns; above, each power of two is cut into
 * 2^CTXSCOPE_SUB_BITS equal bins (within 1/16 of a power of two: 6%). 2^40 ns (18 min) and
 * longer share the last bin. */
#define CTXSCOPE_SUB_BITS 4
#define CTXSCOPE_SUB_BINS (1 << CTXSCOPE_SUB_BITS)
#define CTXSCOPE_STEP_TOP 40
#define CTXSCOPE_STEP_BINS ((CTXSCOPE_STEP_TOP - CTXSCOPE_SUB_BITS + 2) * CTXSCOPE_SUB_BINS)
/* Other tasks that ran on the traced CPU, named by their time there (the busiest few are shown). */
#define CTXSCOPE_HANDOVER_OTHERS 256

/* The steps of a hand-over on one CPU, in cutHandovers' names (bpf_handover.cpp names them). */
enum ctxscope_step {
    CTXSCOPE_STEP_WAKE_CALL, /* the waker's system call -> sched_waking */
    CTXSCOPE_STEP_WAKER_RUNS_ON, /* sched_waking -> the switch into the wakee */
    CTXSCOPE_STEP_YIELD_CALL, /* sched_yield entered -> the switch away (no wake-up) */
    CTXSCOPE_STEP_SLEEP_CALL, /* another call entered -> the switch away (no wake-up) */
    CTXSCOPE_STEP_RETURN_TO_USER, /* the switch-in -> the wakee's sys_exit */
    CTXSCOPE_STEP_IN_USER_SPACE, /* that sys_exit -> its next sys_enter */
    CTXSCOPE_STEPS
};
/* The steps' bins are kept in this many slots (a power of two, at least CTXSCOPE_STEPS). */
#define CTXSCOPE_STEP_SLOTS 8

struct ctxscope_step_bins {
    __u64 sum_ns; /* the count is the bins' sum */
    __u64 bins[CTXSCOPE_STEP_BINS];
};

struct ctxscope_other {
    __u64 ns; /* time on the traced CPU */
    char comm[16];
};

/* One measured task's open steps (CLOCK_MONOTONIC ns; 0: none open). */
struct ctxscope_task_state {
    __u64 call_ns; /* its open system call's sys_enter */
    __u64 call_nr;
    __u64 waking_ns; /* its last sched_waking */
    __u64 wake_call_ns; /* the waker's open call at that waking */
    __u64 out_ns; /* its last switch out */
    __u64 in_ns; /* its switch-in by a hand-over, until its sys_exit */
    __u64 exit_ns; /* that sys_exit, until its next sys_enter */
    __u32 waking_cpu;
    __u32 out_cpu;
    __u32 in_cpu;
    __u32 slot; /* its index among the states (ctxscope sets it) */
    /* What happened to this task, counted in its own state: every writer runs in the task's own
     * context, or with interrupts off in the switch into or out of it, or wakes it while it
     * sleeps, so plain adds lose nothing and no locked add is paid. */
    __u64 events; /* its events the programs took */
    __u64 switch_outs;
    __u64 handovers; /* switched in by a hand-over (as the wakee) */
    __u64 waker_cpu; /* of those, woken on the CPU it was switched in on */
    __u64 migrated; /* woken and switched in on another CPU than it last left */
    __u64 cross; /* woken on another CPU than it was switched in on: not cut (none in a run on one CPU but the runner's)
                  */
};

#endif
