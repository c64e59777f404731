// SPDX-License-Identifier: MIT
// Re-pinning a running program's threads (what `taskset -p` does): checked against the
// topology's allowed set, refused with a reason for per-CPU kernel threads and without the
// privilege another user's program needs; kernel threads and PID 1 only when asked for.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

struct PinChange {
    long tid = 0;
    std::string name;
    std::vector<int> before;
    std::vector<int> after; // as the kernel reports it once set
};

// Threads whose move reaches beyond themselves. A kernel thread does the kernel's own work
// (reclaim, RCU, creating the other kernel threads for kthreadd) and PID 1 starts every service
// and login: tuna moves kernel threads off isolated CPUs on purpose, but a slip of a TID or a
// click in the Programs dock must not do it. Per-CPU kernel threads are another matter: the
// kernel refuses to move them at all (PF_NO_SETAFFINITY).
enum class PinGuard { None, KernelThread, Kthreadd, Init };

// Whether moving such a thread was asked for: `ctxscope-cli pin --kernel-threads`, the worker's
// "kernel_threads": true, or "yes" to the app's question.
enum class KernelThreads { Refuse, Move };

// The guard of a thread of process `pid` named `name`; `kernelThread`: it has no address space
// (PF_KTHREAD, or an empty command line with kthreadd as its parent).
PinGuard pinGuard(long pid, bool kernelThread, std::string_view name);
// What moving thread `tid` to `cpus` would do, naming it: "thread 2 (kthreadd) creates every
// kernel thread: ...". Empty for PinGuard::None.
std::string pinGuardConsequence(PinGuard guard, long tid, std::string_view name, const std::vector<int>& cpus);

// Sets one thread's affinity to `cpus` (OS indices). Every CPU must be usable in `topology`
// (checkPuUsable's sentence otherwise), which must be this machine. A kernel thread or a thread
// of PID 1 is refused, with its consequence, unless `kernelThreads` is Move.
Expected<PinChange> pinThread(const Topology& topology, long tid, const std::vector<int>& cpus,
    KernelThreads kernelThreads = KernelThreads::Refuse);
// Every thread of a process; a thread that ends meanwhile is left out. A kernel thread or PID 1
// is refused as a whole, before any thread moves, unless `kernelThreads` is Move.
Expected<std::vector<PinChange>> pinProcess(const Topology& topology, long pid, const std::vector<int>& cpus,
    KernelThreads kernelThreads = KernelThreads::Refuse);

} // namespace ctxscope
