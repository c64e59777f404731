/* SPDX-License-Identifier: MIT */
/* What the traced-run programs (handover.bpf.c) count in the kernel and ctxscope reads back
 * (bpf_handover.cpp): one layout, compiled for both. A hand-over between measured tasks on one
 * CPU or across CPUs is cut into the steps cutHandovers (trace/handover.cpp) cuts from ftrace's
 * events, at the same events; each step's durations go into log2+linear bins, so only totals leave the kernel. */
#ifndef CTXSCOPE_BPF_HANDOVER_MAPS_H
#define CTXSCOPE_BPF_HANDOVER_MAPS_H

#include <linux/types.h>

/* The measured tasks a traced run can have (a ring of up to this many). */
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

/* The steps of a hand-over, in cutHandovers' names (bpf_handover.cpp names them): on one CPU,
 * then across CPUs (the wakee woken on another CPU than it is switched in on). */
enum ctxscope_step {
    CTXSCOPE_STEP_WAKE_CALL, /* the waker's system call -> sched_waking */
    CTXSCOPE_STEP_WAKER_RUNS_ON, /* sched_waking -> the switch into the wakee */
    CTXSCOPE_STEP_YIELD_CALL, /* sched_yield entered -> the switch away (no wake-up) */
    CTXSCOPE_STEP_SLEEP_CALL, /* another call entered -> the switch away (no wake-up) */
    CTXSCOPE_STEP_RETURN_TO_USER, /* the switch-in -> the wakee's sys_exit */
    CTXSCOPE_STEP_IN_USER_SPACE, /* that sys_exit -> its next sys_enter */
    CTXSCOPE_STEP_X_WAKE_CALL, /* across CPUs: the waker's system call -> sched_waking */
    CTXSCOPE_STEP_X_IPI_SENT, /* sched_waking -> ipi_send_cpu to the wakee's CPU */
    CTXSCOPE_STEP_X_NO_IPI, /* sched_waking -> sched_wake_idle_without_ipi for that CPU */
    CTXSCOPE_STEP_X_IDLE_EXIT, /* the IPI (or sched_waking) -> cpu_idle exit there */
    CTXSCOPE_STEP_X_IN_AFTER_WAKING, /* switch-in, idle at the wake-up: from sched_waking */
    CTXSCOPE_STEP_X_IN_AFTER_IPI, /* ... from ipi_send_cpu */
    CTXSCOPE_STEP_X_IN_AFTER_NO_IPI, /* ... from sched_wake_idle_without_ipi */
    CTXSCOPE_STEP_X_IN_AFTER_IDLE, /* ... from the cpu_idle exit */
    CTXSCOPE_STEP_X_RETURN_TO_USER, /* the switch-in -> the wakee's sys_exit */
    CTXSCOPE_STEP_X_IN_USER_SPACE, /* that sys_exit -> its next sys_enter */
    CTXSCOPE_STEPS
};
/* The steps' bins are kept in this many slots (a power of two, at least CTXSCOPE_STEPS). */
#define CTXSCOPE_STEP_SLOTS 16

/* Where a cross-CPU step into the switch-in starts: the last event the wake-up reached. */
enum ctxscope_step_from {
    CTXSCOPE_FROM_WAKING,
    CTXSCOPE_FROM_IPI,
    CTXSCOPE_FROM_NO_IPI,
    CTXSCOPE_FROM_IDLE_EXIT,
};

/* The CPUs a traced run's per-CPU state covers (CPU numbers below it; a power of two). */
#define CTXSCOPE_HANDOVER_CPUS 512
/* Idle states told apart by their number (power:cpu_idle's); the last bin holds higher ones and
 * exits with no entry traced before them. */
#define CTXSCOPE_IDLE_STATES 8
#define CTXSCOPE_IDLE_UNKNOWN CTXSCOPE_IDLE_STATES
/* A traced CPU's last idle exits and last switches kept to look back from a switch-in. */
#define CTXSCOPE_IDLE_RING 4
#define CTXSCOPE_SWITCH_LOG 8
/* Within this of the wake-up, a still runnable task switched out straight to the wakee was
 * preempted by the wake-up (kWakePreemptNs, handover.h). */
#define CTXSCOPE_WAKE_PREEMPT_NS 1000000ULL
/* The task state bits sched_switch reports (the kernel's TASK_REPORT): none set, the task
 * switched out was still runnable. */
#define CTXSCOPE_TASK_REPORT 0x7f
/* The tasks a wakee's CPU ran instead of it (preempted or waited behind), named by pid. */
#define CTXSCOPE_HANDOVER_BUSY 256
#define CTXSCOPE_HANDOVER_BUSY_STEPS 64

struct ctxscope_step_bins {
    __u64 sum_ns; /* the count is the bins' sum */
    __u64 bins[CTXSCOPE_STEP_BINS];
};

struct ctxscope_other {
    __u64 ns; /* time on the traced CPUs */
    char comm[16];
    __u32 cpu; /* the traced CPU it was first seen on */
    __u32 pad;
};

/* A task a cross-CPU wakee's CPU was running: preempted by the wake-up, or waited behind. */
struct ctxscope_busy {
    __u64 preempted; /* hand-overs that preempted it */
    __u64 waited; /* hand-overs that waited while it ran */
    __u64 waited_ns; /* its time on the CPU within those waits */
    __u32 cpu; /* the CPU it was first met on */
    __u32 pad;
    __u64 wait_stamp; /* the wake-up (its sched_waking's time) of the wait it last delayed */
    __u64 wait_ns_now; /* its time in that wait so far */
};
enum ctxscope_busy_way { CTXSCOPE_BUSY_PREEMPTING = 1, CTXSCOPE_BUSY_WAITING = 2 };
/* A step named after the busy task ("preempting X", "waiting behind X") from an event. */
struct ctxscope_busy_key {
    __u32 pid;
    __u16 way; /* enum ctxscope_busy_way */
    __u16 from; /* enum ctxscope_step_from */
};

/* One traced CPU, written only by itself (its switches and idle entries and exits). */
struct ctxscope_cpu_state {
    __u64 last_switch_ns; /* its last sched_switch (ctxscope sets it to the start) */
    __u64 other_ns; /* time given to tasks neither measured, keep-awake nor idle */
    __u64 keep_awake_ns; /* time given to the keep-awake threads */
    __u64 exit_ns[CTXSCOPE_IDLE_RING]; /* its last idle exits */
    __u32 exit_state[CTXSCOPE_IDLE_RING]; /* and the state each left */
    __u64 log_ns[CTXSCOPE_SWITCH_LOG]; /* its last switches */
    __u32 log_pid[CTXSCOPE_SWITCH_LOG]; /* and the task each switched out */
    __u32 exit_next;
    __u32 log_next;
    __u32 idle_state; /* the state its last cpu_idle entry named (CTXSCOPE_IDLE_UNKNOWN: none) */
    __u32 traced; /* ctxscope sets it for the run's CPUs */
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
    __u64 ipi_ns; /* the IPI (or the wake-up without one) its last wake-up sent */
    __u32 ipi_cpu; /* to this CPU */
    __u32 ipi_from; /* CTXSCOPE_FROM_IPI or CTXSCOPE_FROM_NO_IPI */
    __u32 waking_cpu;
    __u32 out_cpu;
    __u32 in_cpu;
    __u32 in_cross; /* the open return to user (then in user space) is of a cross-CPU hand-over */
    __u32 slot; /* its index among the states (ctxscope sets it) */
    __u32 pad;
    /* What happened to this task, counted in its own state: every writer runs in the task's own
     * context, or with interrupts off in the switch into or out of it, or wakes it while it
     * sleeps, so plain adds lose nothing and no locked add is paid. */
    __u64 events; /* its events the programs took */
    __u64 switch_outs;
    __u64 handovers; /* switched in by a hand-over (as the wakee) */
    __u64 waker_cpu; /* of those, woken on the CPU it was switched in on */
    __u64 migrated; /* woken and switched in on another CPU than it last left */
    __u64 cross; /* in a run on one CPU, woken from another CPU (the runner): not cut */
    /* Cross-CPU hand-overs by the wakee's CPU's state at the wake-up (TraceTargetStates). */
    __u64 idle;
    __u64 preempting;
    __u64 waiting;
    __u64 waiting_behind_others; /* behind a task neither measured nor keep-awake */
    __u64 waits_cut; /* waits longer than the switches a CPU keeps: their start is not charged */
    /* The wait being charged (waited_behind): the task that ran longest in it, and how long. */
    __u64 wait_longest_ns;
    __u32 wait_longest;
    __u32 wait_behind_others;
};

#endif
