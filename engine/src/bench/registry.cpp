// SPDX-License-Identifier: MIT
// The list of benchmarks: what one op is, how many switches it holds, and its kernel.
#include "bench/kernel.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace ctxscope {

namespace {

double none(int, bool) { return 0; }
double roundTrip(int, bool) { return 2; }
double yieldSwitches(int, bool onePu) { return onePu ? 2 : 0; }
double lap(int tasks, bool) { return tasks; }
double userSpaceRoundTrip(int, bool) { return 2; }

struct Entry {
    BenchInfo info;
    bench::KernelFactory factory;
};

const std::vector<Entry>& entries()
{
    static const std::vector<Entry> all {
        { { "syscall", "one raw syscall(SYS_getppid)", "a mode switch into the kernel and back, not a context switch",
              1, 1, 1, false, &none, false, 1 },
            &bench::makeSyscallKernel },
        { { "vdso", "one clock_gettime(CLOCK_MONOTONIC) through the vDSO",
              "no kernel entry at all: the floor under syscall", 1, 1, 1, false, &none, false, 0 },
            &bench::makeVdsoKernel },
        { { "futex", "round trip A->B->A through two futex words (FUTEX_WAIT/FUTEX_WAKE)",
              "private futexes for threads, a shared anonymous mapping for processes", 2, 2, 2, true, &roundTrip, false,
              -1, true },
            &bench::makeFutexKernel },
        { { "pipe", "round trip A->B->A through two pipes, 1 byte each way",
              "what UnixBench context1, lmbench lat_ctx and perf bench sched pipe do", 2, 2, 2, true, &roundTrip, false,
              -1, true },
            &bench::makePipeKernel },
        { { "yield", "one sched_yield() by each of two tasks",
              "a switch only when both tasks share one PU; on two PUs sched_yield returns at once", 2, 2, 2, true,
              &yieldSwitches },
            &bench::makeYieldKernel },
        { { "ring", "one lap of a 1-byte token around N tasks through N pipes (lmbench lat_ctx)",
              "N switches per lap; N tasks on one PU also wait in its run queue", 2, kMaxRingTasks, 2, true, &lap,
              false, -1, true },
            &bench::makeRingKernel },
        { { "coro-cxx20", "driver -> worker -> driver between two C++20 coroutines by symmetric transfer",
              "stackless (frames on the heap), no kernel entry", 1, 1, 1, false, &userSpaceRoundTrip, true, 0 },
            &bench::makeCoroCxx20Kernel },
        { { "coro-fcontext", "a jump into a Boost.Context fiber and back (boost::context::fiber::resume)",
              "stackful: only callee-saved registers and the stack pointer change, no kernel entry", 1, 1, 1, false,
              &userSpaceRoundTrip, true, 0 },
            &bench::makeCoroFcontextKernel },
        { { "coro-ucontext", "swapcontext into a makecontext context and back",
              "stackful; each swapcontext also saves and restores the signal mask with an rt_sigprocmask "
              "system call, so the op enters the kernel twice (the syscall self-check counts them)",
              1, 1, 1, false, &userSpaceRoundTrip, true, 2 },
            &bench::makeCoroUcontextKernel },
        { { "touch", "one pass over a W-byte working set: a write per 64-byte line, pages in a fixed random order",
              "the hot baseline of the working-set curves: one task, no switch; needs --ws", 1, 1, 1, false, &none,
              false, -1, true },
            &bench::makeTouchKernel },
    };
    return all;
}

constexpr std::array<std::pair<BenchMode, std::string_view>, 2> kModes { {
    { BenchMode::Thread, "thread" },
    { BenchMode::Process, "process" },
} };
constexpr std::array<std::pair<SchedPolicy, std::string_view>, 2> kPolicies { {
    { SchedPolicy::Other, "other" },
    { SchedPolicy::Fifo, "fifo" },
} };

template <typename E, std::size_t N>
std::string_view nameOf(const std::array<std::pair<E, std::string_view>, N>& t, E e)
{
    for (const auto& [v, name] : t)
        if (v == e)
            return name;
    return "?";
}
template <typename E, std::size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, std::string_view>, N>& t, std::string_view text)
{
    for (const auto& [v, name] : t)
        if (name == text)
            return v;
    return std::nullopt;
}

} // namespace

std::string_view toString(BenchMode mode) { return nameOf(kModes, mode); }
std::optional<BenchMode> benchModeFromString(std::string_view text) { return valueOf(kModes, text); }
std::string_view toString(SchedPolicy policy) { return nameOf(kPolicies, policy); }
std::optional<SchedPolicy> schedPolicyFromString(std::string_view text) { return valueOf(kPolicies, text); }

const std::vector<BenchInfo>& benchmarks()
{
    static const std::vector<BenchInfo> all = [] {
        std::vector<BenchInfo> v;
        for (const auto& e : entries())
            v.push_back(e.info);
        return v;
    }();
    return all;
}

const BenchInfo* findBenchmark(std::string_view name)
{
    const auto& all = benchmarks();
    const auto it = std::find_if(all.begin(), all.end(), [&](const BenchInfo& b) { return b.name == name; });
    return it == all.end() ? nullptr : &*it;
}

std::string benchmarkNameList(bool workingSetOnly)
{
    std::vector<std::string_view> names;
    for (const BenchInfo& b : benchmarks())
        if (!workingSetOnly || b.workingSet)
            names.push_back(b.name);
    return fmt::format("{}", fmt::join(names, ", "));
}

namespace bench {
KernelFactory factoryFor(std::string_view name)
{
    for (const auto& e : entries())
        if (e.info.name == name)
            return e.factory;
    return nullptr;
}
} // namespace bench

} // namespace ctxscope
