/* SPDX-License-Identifier: MIT */
/* The few kernel types the BPF programs read, trimmed from the running kernel's BTF
 * (bpftool btf dump file /sys/kernel/btf/vmlinux format c) to the fields used. Every record
 * is preserve_access_index: libbpf relocates each field access to the offset the running
 * kernel's BTF gives (CO-RE), so the offsets here do not matter and the same object runs on any
 * kernel with BTF whose types have these field names (HACKING.md, "Dependencies"). */
#ifndef CTXSCOPE_BPF_KERNEL_TYPES_H
#define CTXSCOPE_BPF_KERNEL_TYPES_H

#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef int pid_t;
typedef _Bool bool;
#define true 1
#define false 0

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct sched_info {
    unsigned long pcount; /* runs (switch-ins) */
    unsigned long long run_delay; /* ns runnable, waiting for a CPU */
};

struct sched_entity {
    u64 sum_exec_runtime; /* ns on a CPU, up to date when the task leaves one */
};

struct cpumask {
    unsigned long bits[1]; /* the first word: CPUs 0-63 */
};

struct task_struct {
    unsigned int __state;
    int exit_state;
    pid_t pid;
    pid_t tgid;
    char comm[16];
    int nr_cpus_allowed;
    const struct cpumask* cpus_ptr; /* the CPUs it may run on */
    struct sched_entity se;
    struct sched_info sched_info;
};

#pragma clang attribute pop

#endif
