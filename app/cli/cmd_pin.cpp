// SPDX-License-Identifier: MIT
// ctxscope-cli pin TID CPULIST, pin --process PID CPULIST: taskset -p for a running program.
#include "commands.h"

#include "ctxscope/pin.h"

#include <fmt/core.h>

namespace ctxscope::cli {

namespace {

struct PinOptions {
    long id = 0;
    std::string cpus;
    bool process = false;
    bool kernelThreads = false;
};

void print(const PinChange& c)
{
    fmt::print("thread {} ({}): {} -> {}\n", c.tid, c.name, formatCpuList(c.before), formatCpuList(c.after));
}

int run(const PinOptions& o)
{
    auto cpus = parseCpuList(o.cpus);
    if (!cpus)
        return badInput(cpus.error().message);
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    const auto kernelThreads = o.kernelThreads ? KernelThreads::Move : KernelThreads::Refuse;
    if (o.process) {
        auto changes = pinProcess(*topology, o.id, *cpus, kernelThreads);
        if (!changes)
            return badInput(changes.error().message);
        for (const auto& c : *changes)
            print(c);
        return kOk;
    }
    auto change = pinThread(*topology, o.id, *cpus, kernelThreads);
    if (!change)
        return badInput(change.error().message);
    print(*change);
    return kOk;
}

} // namespace

Command addPinCommand(CLI::App& app)
{
    auto c = subcommand<PinOptions>(app, "pin",
        "Set the CPUs a running thread (or with --process every thread of a process) may run on, as taskset -p "
        "does; prints each thread's CPUs before and after");
    c.sub->add_option("ID", c.options->id, "The thread's TID (or the process's PID with --process)")->required();
    c.sub->add_option("CPULIST", c.options->cpus, "CPUs as taskset numbers them: 0,2 or 0-3")->required();
    c.sub->add_flag("--process", c.options->process, "Pin every thread of process ID");
    c.sub->add_flag("--kernel-threads", c.options->kernelThreads,
        "Also move a kernel thread (kthreadd, rcu_preempt, kswapd0...) or PID 1 (init), as tuna does to free "
        "isolated CPUs. Without it they are refused: a kernel thread does the kernel's own work (kthreadd creates "
        "every other) and PID 1 hands its CPUs to every program it starts. Per-CPU kernel threads (ksoftirqd/0) "
        "stay refused: the kernel fixes them. To undo, pin the CPUs printed before the arrow back, with this flag");
    return c.done(run);
}

} // namespace ctxscope::cli
