// SPDX-License-Identifier: MIT
#pragma once

#include "os/task_stat.h"

#include "ctxscope/pin.h"

#include <string_view>
#include <vector>

// Which threads `pin` moves only when asked (ctxscope/pin.h, PinGuard): the rule as pure
// functions of what /proc says, so recorded texts test it, and the reads that feed it.
namespace ctxscope::programs {

// No address space: PF_KTHREAD in its stat, or, should the flag not be there, an empty command
// line with kthreadd as its parent (how `ps` tells kernel threads on kernels that predate the
// flag). A zombie has an empty command line too, but its parent is never kthreadd.
bool isKernelThread(const os::TaskStat& t, bool emptyCmdline, std::string_view parentComm);
// The same, reading the thread's command line and its parent's name from /proc when the flag
// does not settle it.
bool isKernelThread(const os::TaskStat& t);

// Whether thread `t` may be moved to `cpus`: a per-CPU kernel thread never (PF_NO_SETAFFINITY),
// a guarded one only with KernelThreads::Move; the refusal names it and the consequence.
Status checkMovable(const os::TaskStat& t, PinGuard guard, const std::vector<int>& cpus, KernelThreads kernelThreads);

// The guard of thread `t` of process `pid`, read from /proc.
PinGuard readPinGuard(const os::TaskStat& t, long pid);

} // namespace ctxscope::programs
