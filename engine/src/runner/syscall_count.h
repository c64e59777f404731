// SPDX-License-Identifier: MIT
// The syscall self-check of single-task benchmarks: how many system calls one op makes,
// counted by the kernel itself on a separate short pass, so "a syscall per swap" is a
// number on the result rather than a claim in a comment.
#pragma once

#include "bench/kernel.h"
#include "ctxscope/result.h"

#include <cstdint>

namespace ctxscope::run {

// Runs `ops` ops of task 0 on a helper thread that has a seccomp filter returning
// SECCOMP_RET_USER_NOTIF for every system call but exit; this thread receives each
// notification, counts it by number between two marker calls around the ops, and lets the
// call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE). No ptrace, no tracefs, no privilege (the
// helper sets no_new_privs for itself only). The filter dies with the helper thread. When
// the kernel refuses the filter, the check says why and holds no count.
SyscallCheck countSyscalls(bench::Kernel& kernel, std::uint64_t ops, double claimedPerOp);

// The name of a system call number on this architecture ("rt_sigprocmask"), or "syscall N".
std::string syscallName(long number);

} // namespace ctxscope::run
