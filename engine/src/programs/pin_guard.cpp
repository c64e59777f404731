// SPDX-License-Identifier: MIT
#include "programs/pin_guard.h"

#include "ctxscope/placement.h"

#include <string>

namespace ctxscope {

namespace {

std::string cpuWords(const std::vector<int>& cpus)
{
    return (cpus.size() == 1 ? "CPU " : "CPUs ") + formatCpuList(cpus);
}

} // namespace

PinGuard pinGuard(long pid, bool kernelThread, std::string_view name)
{
    // kthreadd is the one kernel thread of that name (the kernel names it so when it starts it).
    if (kernelThread)
        return name == "kthreadd" ? PinGuard::Kthreadd : PinGuard::KernelThread;
    return pid == 1 ? PinGuard::Init : PinGuard::None;
}

std::string pinGuardConsequence(PinGuard guard, long tid, std::string_view name, const std::vector<int>& cpus)
{
    const std::string who = "thread " + std::to_string(tid) + " (" + std::string(name) + ")";
    const std::string where = cpuWords(cpus);
    const std::string waits = cpus.size() == 1 ? "whenever it is busy" : "whenever they are busy";
    // Not "every kernel thread inherits kthreadd's CPUs": since Linux 2.6 a new kernel thread
    // resets its affinity as it starts (kernel/kthread.c); what stays on `cpus` is the creating.
    switch (guard) {
    case PinGuard::Kthreadd:
        return who + " creates every kernel thread: the kernel could then start new ones only from " + where
            + ", waiting " + waits;
    case PinGuard::KernelThread:
        return who + " is a kernel thread: the kernel's own work it does would then run only on " + where + ", waiting "
            + waits;
    case PinGuard::Init:
        return who + " belongs to PID 1, the init process: every program it starts from then on would inherit " + where
            + " only";
    case PinGuard::None:
        break;
    }
    return {};
}

namespace programs {

bool isKernelThread(const os::TaskStat& t, bool emptyCmdline, std::string_view parentComm)
{
    return t.kernelThread() || (emptyCmdline && parentComm == "kthreadd");
}

bool isKernelThread(const os::TaskStat& t)
{
    if (t.kernelThread())
        return true;
    std::string cmdline;
    const std::string path = "/proc/" + std::to_string(t.tid) + "/cmdline";
    if (!os::readProcText(path.c_str(), cmdline) || !cmdline.empty() || t.ppid <= 0)
        return false;
    const auto parent = os::readTaskStat(t.ppid, t.ppid);
    return parent && isKernelThread(t, true, parent->comm);
}

Status checkMovable(const os::TaskStat& t, PinGuard guard, const std::vector<int>& cpus, KernelThreads kernelThreads)
{
    if (t.affinityFixed())
        return makeError("thread " + std::to_string(t.tid) + " (" + t.comm
            + ") is a per-CPU kernel thread: the kernel does not let anyone change its affinity (PF_NO_SETAFFINITY)");
    if (guard == PinGuard::None || kernelThreads == KernelThreads::Move)
        return {};
    return makeError(pinGuardConsequence(guard, t.tid, t.comm, cpus) + "; add --kernel-threads to move it anyway");
}

PinGuard readPinGuard(const os::TaskStat& t, long pid) { return pinGuard(pid, isKernelThread(t), t.comm); }

} // namespace programs

} // namespace ctxscope
