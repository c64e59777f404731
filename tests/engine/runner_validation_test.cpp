// SPDX-License-Identifier: MIT
// Bad specs are refused before anything runs, each with its own message.
#include "ctxscope/runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sched.h>
#include <thread>

using namespace ctxscope;

namespace {

BenchSpec futexOn(std::vector<int> cpus)
{
    BenchSpec s;
    s.bench = "futex";
    s.cpus = std::move(cpus);
    s.iterations = 100;
    return s;
}

std::string errorOf(const BenchSpec& spec, const Topology& topology)
{
    auto r = runBenchmark(spec, topology);
    EXPECT_FALSE(r.ok());
    auto checked = checkSpec(spec, topology);
    EXPECT_FALSE(checked.ok());
    if (r.ok() || checked.ok())
        return {};
    EXPECT_EQ(r.error().message, checked.error().message);
    return r.error().message;
}

Topology live()
{
    auto t = Topology::loadLive();
    EXPECT_TRUE(t.ok());
    return std::move(*t);
}

} // namespace

TEST(RunnerValidation, EachBadInputHasItsOwnMessage)
{
    const Topology topo = live();
    const int cpu = topo.allowedPus().front();

    BenchSpec s = futexOn({ cpu, cpu });
    s.bench = "nope";
    EXPECT_EQ(errorOf(s, topo),
        "unknown benchmark 'nope' (known: syscall, vdso, spin, spin-futex, futex, pipe, yield, ring, coro-cxx20, "
        "coro-fcontext, coro-ucontext, touch)");

    s = futexOn({ cpu, cpu });
    s.iterations = 0;
    EXPECT_EQ(errorOf(s, topo), "iterations must be at least 1, got 0");

    s.iterations = kMaxIterations + 1;
    EXPECT_NE(errorOf(s, topo).find("iterations is absurd"), std::string::npos);

    s.iterations.reset();
    for (double bad : { 0.0, -1.0, std::numeric_limits<double>::quiet_NaN() }) {
        s.minTimeSeconds = bad;
        EXPECT_NE(errorOf(s, topo).find("the minimum time must be a positive number of seconds"), std::string::npos);
    }
    s.minTimeSeconds = 1e6;
    EXPECT_NE(errorOf(s, topo).find("more than the 3600 s allowed"), std::string::npos);

    s = futexOn({ cpu, cpu });
    s.repetitions = 0;
    EXPECT_EQ(errorOf(s, topo), "repetitions must be from 1 to 1000, got 0");

    s = futexOn({ cpu });
    s.bench = "ring";
    s.tasks = 1;
    EXPECT_EQ(errorOf(s, topo), "a ring needs at least 2 tasks, got 1");
    s.tasks = kMaxRingTasks + 1;
    EXPECT_EQ(errorOf(s, topo), "a ring of 4097 tasks is more than the 4096 allowed");

    s = futexOn({ cpu });
    EXPECT_NE(errorOf(s, topo).find("futex runs 2 tasks and needs 2 CPUs (e.g. 0,0 for both on CPU 0), got 1"),
        std::string::npos);
    // Issue 44: one CPU per task as given, not "got 3 (1)".
    EXPECT_EQ(errorOf(futexOn({ cpu, cpu, cpu }), topo),
        "futex runs 2 tasks and needs 2 CPUs (e.g. 0,0 for both on CPU 0), got 3: " + std::to_string(cpu) + ","
            + std::to_string(cpu) + "," + std::to_string(cpu));

    s = futexOn({ cpu, cpu });
    s.tasks = 3;
    EXPECT_EQ(errorOf(s, topo), "futex always runs 2 tasks; a task count (3) only applies to ring");

    s = futexOn({ cpu });
    s.bench = "syscall";
    s.mode = BenchMode::Process;
    EXPECT_EQ(errorOf(s, topo), "syscall runs in one task; process mode needs a benchmark with two or more tasks");

    s = futexOn({ 100000, 100000 });
    EXPECT_NE(errorOf(s, topo).find("CPU 100000 does not exist"), std::string::npos);

    s = futexOn({});
    s.relation = Relation::CrossNuma;
    if (topo.numaNodes().size() < 2) {
        EXPECT_NE(errorOf(s, topo).find("has no two allowed CPUs in class cross-numa"), std::string::npos);
    }
}

TEST(RunnerValidation, ACpuOutsideTheAffinityGetsThePlacementMessage)
{
    const Topology whole = live();
    const auto allowed = whole.allowedPus();
    if (allowed.size() < 2)
        GTEST_SKIP() << "needs two allowed CPUs";
    // A topology loaded by a thread that taskset-like narrowed itself to the first CPU.
    std::optional<Topology> narrow;
    std::thread([&] {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(static_cast<std::size_t>(allowed[0]), &set);
        ASSERT_EQ(sched_setaffinity(0, sizeof set, &set), 0);
        auto t = Topology::loadLive();
        ASSERT_TRUE(t.ok());
        narrow.emplace(std::move(*t));
    }).join();
    ASSERT_TRUE(narrow.has_value());
    const BenchSpec s = futexOn({ allowed[0], allowed[1] });
    // The placement layer's sentence, then which set excludes the CPU.
    const std::string expected
        = "CPU " + std::to_string(allowed[1]) + " is outside the allowed set " + std::to_string(allowed[0]) + " (";
    EXPECT_EQ(errorOf(s, *narrow).rfind(expected, 0), 0U) << errorOf(s, *narrow);
}

TEST(RunnerValidation, SyntheticTopologiesCannotBeMeasured)
{
    auto topo = Topology::loadSynthetic("pack:1 core:2 pu:1");
    ASSERT_TRUE(topo.ok());
    EXPECT_NE(errorOf(futexOn({ 0, 1 }), *topo).find("live topology"), std::string::npos);
    // Counting errors come first, from the spec alone.
    EXPECT_NE(errorOf(futexOn({ 0 }), *topo).find("needs 2 CPUs"), std::string::npos);
}

TEST(RunnerValidation, CpusAndRelationMustAgree)
{
    auto topo = Topology::loadSynthetic("pack:1 core:2 pu:2");
    ASSERT_TRUE(topo.ok());
    BenchSpec s = futexOn({ 0, 1 });
    s.relation = Relation::SamePu;
    EXPECT_EQ(errorOf(s, *topo), "CPUs 0-1 are smt, not same-pu");
    s.relation = Relation::Unpinned;
    EXPECT_EQ(errorOf(s, *topo), "CPUs were given and the placement is also 'unpinned': choose one");
}

TEST(RunnerValidation, RelationsResolveToRepresentativeCpus)
{
    auto topo = Topology::loadSynthetic("pack:2 core:2 pu:2");
    ASSERT_TRUE(topo.ok());
    // The placement is resolved before the live check, so check it through a live-only error.
    BenchSpec s = futexOn({});
    s.relation = Relation::SharedL3;
    EXPECT_NE(errorOf(s, *topo).find("no two allowed CPUs in class shared-l3"), std::string::npos);
}
