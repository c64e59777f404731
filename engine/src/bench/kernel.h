// SPDX-License-Identifier: MIT
// The interface every benchmark kernel implements. A kernel only does ops: no timing, no
// pinning, no statistics (the runner owns those), and nothing but the op in its loop.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/result.h"

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace ctxscope::bench {

enum class OpStatus : int {
    Ok,
    Stopped, // interrupt() was called, or a peer forwarded the stop
    PeerGone, // a pipe or peer vanished (EOF, EPIPE): the runner reports which task died
};

// What a kernel is built for.
struct KernelParams {
    int tasks = 1;
    BenchMode mode = BenchMode::Thread;
    std::uint64_t wsBytes = 0; // see BenchSpec::wsBytes
    std::uint64_t spinNs = kDefaultSpinNs; // see BenchSpec::spinNs
};

// Where a kernel's shared cache line lives (spin), as the tasks and the kernel saw it: node
// values are pageNode()'s (a node, or -errno); firstTask -1 when no task touched it yet.
struct LinePlacement {
    int firstTask = -1;
    int firstCpu = -1;
    int nodeAtTouch = -ENOENT; // asked by the first task right after its touch
    int node = -ENOENT; // asked when linePlacement() is called
    const void* page = nullptr; // the start of the line's page (its mapping)
};

class Kernel {
public:
    virtual ~Kernel() = default;
    // Task `task` takes part in `ops` ops; task 0 starts each op and the runner times it.
    // Runs in a measured thread or a forked child: must not allocate, lock or throw.
    virtual OpStatus run(int task, std::uint64_t ops) noexcept = 0;
    // Runs once in each task, pinned and with its policy, before the start barrier: no task has
    // run an op yet. Where a kernel first-touches what a measuring task should place.
    virtual void setUpTask(int task) noexcept { (void)task; }
    // Makes every task blocked inside run() return Stopped soon. Called from any thread of
    // the parent, possibly more than once.
    virtual void interrupt() noexcept { }
    // Hand-overs counted by the tasks since the kernel was made (spin-then-sleep kernels);
    // read by the runner between phases, while no task runs an op.
    virtual std::optional<HandoffCount> handoffs() const noexcept { return std::nullopt; }
    // Where the kernel's shared line lives (spin kernels), read by the runner after the run.
    virtual std::optional<LinePlacement> linePlacement() const noexcept { return std::nullopt; }
    // The descriptors task `task` uses; a process-mode child closes all others. Returns how
    // many were written to out.
    virtual std::size_t fdsOf(int task, std::span<int> out) const noexcept
    {
        (void)task;
        (void)out;
        return 0;
    }
};

using KernelFactory = Expected<std::unique_ptr<Kernel>> (*)(const KernelParams& params);

// The factory of a benchmark listed by benchmarks(), or nullptr.
KernelFactory factoryFor(std::string_view name);

Expected<std::unique_ptr<Kernel>> makeSyscallKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeVdsoKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeFutexKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makePipeKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeYieldKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeRingKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeCoroCxx20Kernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeCoroFcontextKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeCoroUcontextKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeTouchKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeSpinKernel(const KernelParams& params);
Expected<std::unique_ptr<Kernel>> makeSpinFutexKernel(const KernelParams& params);

} // namespace ctxscope::bench
