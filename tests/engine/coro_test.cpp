// SPDX-License-Identifier: MIT
// The coroutine benchmarks on this machine, through the same runner as the kernel ones: the
// ladder (user-space switches cost less than a system call, and far less than a kernel
// context switch) and the syscall self-check that shows where ucontext's time goes.
#include "ctxscope/runner.h"
#include "live_topology_test.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace ctxscope;

namespace {

class Coro : public test::LiveTopologyTest {
protected:
    static RunResult run(const std::string& bench, int tasks = 1)
    {
        BenchSpec s;
        s.bench = bench;
        const int cpu = s_topology->allowedPus().front();
        s.cpus = std::vector<int>(static_cast<std::size_t>(tasks), cpu);
        s.minTimeSeconds = 0.05;
        s.repetitions = 3;
        auto r = runBenchmark(s, *s_topology);
        EXPECT_TRUE(r.ok()) << bench << ": " << (r.ok() ? "" : r.error().message);
        if (!r.ok())
            return {};
        std::printf("%-14s %10.1f ns per op, %g%s switches per op, K = %llu\n", bench.c_str(), r->stats.p50,
            r->switchesPerOp, r->userSpaceSwitches ? " user-space" : "",
            static_cast<unsigned long long>(r->opsPerSample));
        return std::move(*r);
    }
};

} // namespace

TEST_F(Coro, CoroutineSwitchesAreUserSpaceAndCheaperThanASyscall)
{
    const RunResult syscall = run("syscall");
    for (const char* bench : { "coro-cxx20", "coro-fcontext" }) {
        SCOPED_TRACE(bench);
        const RunResult r = run(bench);
        EXPECT_EQ(r.switchesPerOp, 2);
        EXPECT_TRUE(r.userSpaceSwitches);
        ASSERT_TRUE(r.perSwitchNs.has_value());
        // The kernel saw no context switch: these switches never leave user space.
        EXPECT_LT(r.observed.voluntaryPerOp, 0.001);
        // A whole op (two switches) costs less than one trip into the kernel.
        EXPECT_LT(r.stats.p50, syscall.stats.p50) << bench << " vs syscall";
    }
}

// ucontext's switches are user-space too, but each swapcontext enters the kernel once to
// save and restore the signal mask, so an op (two swaps) costs about two syscalls: still far
// less than a kernel context switch round trip on the same PU.
TEST_F(Coro, UcontextSitsBetweenASyscallAndAKernelSwitch)
{
    const RunResult ucontext = run("coro-ucontext");
    const RunResult futex = run("futex", 2);
    EXPECT_EQ(ucontext.switchesPerOp, 2);
    EXPECT_LT(ucontext.observed.voluntaryPerOp, 0.001);
    EXPECT_LT(ucontext.stats.p50, futex.stats.p50);
}

TEST_F(Coro, UcontextMakesASyscallPerSwap)
{
    const RunResult r = run("coro-ucontext");
    ASSERT_TRUE(r.syscalls.has_value());
    std::printf("%s\n", r.syscalls->how.c_str());
    if (!r.syscalls->perOp)
        GTEST_SKIP() << "system calls could not be counted here: " << r.syscalls->how;
    EXPECT_EQ(r.syscalls->claimed, 2);
    // Two swaps per op, at least one system call each, and the call is rt_sigprocmask.
    EXPECT_GE(*r.syscalls->perOp / 2, 1.0);
    ASSERT_FALSE(r.syscalls->calls.empty());
    EXPECT_EQ(r.syscalls->calls.front().name, "rt_sigprocmask");
    EXPECT_GE(r.syscalls->calls.front().perOp, 2.0);
    EXPECT_NE(r.syscalls->how.find("rt_sigprocmask"), std::string::npos);
}

TEST_F(Coro, TheSyscallCheckCountsOnlyWhatTheOpMakes)
{
    // The same counter must see exactly one call per op of `syscall` and none for the
    // coroutines that stay in user space; else the ucontext figure means nothing.
    for (const char* bench : { "syscall", "coro-fcontext", "coro-cxx20", "vdso" }) {
        SCOPED_TRACE(bench);
        const RunResult r = run(bench);
        ASSERT_TRUE(r.syscalls.has_value());
        if (!r.syscalls->perOp)
            GTEST_SKIP() << "system calls could not be counted here: " << r.syscalls->how;
        EXPECT_NEAR(*r.syscalls->perOp, r.syscalls->claimed, 0.01) << r.syscalls->how;
        for (const std::string& w : r.warnings)
            EXPECT_EQ(w.find("system calls per op"), std::string::npos) << w;
    }
}

TEST_F(Coro, KernelBenchmarksWithTasksHaveNoSyscallCheck)
{
    BenchSpec s;
    s.bench = "pipe";
    const int cpu = s_topology->allowedPus().front();
    s.cpus = { cpu, cpu };
    s.iterations = 200;
    s.repetitions = 1;
    auto r = runBenchmark(s, *s_topology);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->syscalls.has_value());
    EXPECT_FALSE(r->userSpaceSwitches);
}
