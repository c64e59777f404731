// SPDX-License-Identifier: MIT
// The live machine as this process may use it. On a machine where every PU is allowed only the
// representative pairs and runs are checked; the reliability tests run this binary inside a
// one-CPU cpuset cgroup and under taskset (tests/reliability/restricted.sh), telling it through
// CTXSCOPE_EXPECT_ALLOWED and CTXSCOPE_EXPECT_LIMITED_BY (cgroup or affinity) what to expect.
#include "ctxscope/placement.h"
#include "ctxscope/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace ctxscope;

namespace {

bool contains(const std::vector<int>& list, int cpu) { return std::find(list.begin(), list.end(), cpu) != list.end(); }

} // namespace

TEST(RestrictedCpus, DisallowedPusShowGreyedAndPinningToThemIsRefused)
{
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const std::vector<int> allowed = topology->allowedPus();
    ASSERT_FALSE(allowed.empty());
    const char* expectAllowed = std::getenv("CTXSCOPE_EXPECT_ALLOWED");
    const std::string limitedBy
        = std::getenv("CTXSCOPE_EXPECT_LIMITED_BY") ? std::getenv("CTXSCOPE_EXPECT_LIMITED_BY") : "";
    if (expectAllowed) {
        EXPECT_EQ(formatCpuList(allowed), expectAllowed);
        EXPECT_GT(topology->pus().size(), allowed.size()) << "the PUs outside the allowed set must still show";
    }
    int refused = 0;
    for (const PuInfo& pu : topology->pus()) {
        if (contains(allowed, pu.osIndex))
            continue;
        SCOPED_TRACE("CPU " + std::to_string(pu.osIndex));
        if (limitedBy == "cgroup") {
            EXPECT_FALSE(pu.allowed);
        }
        if (limitedBy == "affinity") {
            EXPECT_TRUE(pu.allowed);
            EXPECT_FALSE(pu.inAffinity);
        }
        const std::string expected
            = "CPU " + std::to_string(pu.osIndex) + " is outside the allowed set " + formatCpuList(allowed);
        BenchSpec s;
        s.bench = "futex";
        s.cpus = { pu.osIndex, allowed.front() };
        s.iterations = 100;
        auto checked = checkSpec(s, *topology);
        ASSERT_FALSE(checked.ok());
        EXPECT_NE(checked.error().message.find(expected), std::string::npos) << checked.error().message;
        auto ran = runBenchmark(s, *topology);
        ASSERT_FALSE(ran.ok());
        EXPECT_NE(ran.error().message.find(expected), std::string::npos) << ran.error().message;
        Status pinned;
        std::thread([&] { pinned = pinCurrentThread(*topology, pu.osIndex); }).join();
        ASSERT_FALSE(pinned.ok());
        EXPECT_NE(pinned.error().message.find(expected), std::string::npos) << pinned.error().message;
        ++refused;
    }
    if (expectAllowed) {
        EXPECT_GT(refused, 0);
    }
}

TEST(RestrictedCpus, RepresentativePairsAndPlacedRunsUseOnlyAllowedPus)
{
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const std::vector<int> allowed = topology->allowedPus();
    const auto pairs = representativePairs(*topology, 2);
    ASSERT_FALSE(pairs.empty());
    for (const PuPair& p : pairs) {
        EXPECT_TRUE(contains(allowed, p.a)) << p.a;
        EXPECT_TRUE(contains(allowed, p.b)) << p.b;
    }
    // Runs placed by class, and one left to the scheduler: only allowed CPUs, where they ran too.
    std::vector<std::optional<Relation>> relations = { std::nullopt, Relation::Unpinned };
    for (const PuPair& p : representativePairs(*topology, 1))
        relations.push_back(p.relation);
    for (const auto& relation : relations) {
        BenchSpec s;
        s.bench = "futex";
        s.relation = relation;
        s.iterations = 200;
        s.repetitions = 1;
        auto r = runBenchmark(s, *topology);
        ASSERT_TRUE(r.ok()) << r.error().message;
        for (int cpu : r->placement.cpus)
            EXPECT_TRUE(contains(allowed, cpu)) << cpu;
        for (int cpu : r->observed.cpusSeen)
            EXPECT_TRUE(contains(allowed, cpu)) << "a task ran on CPU " << cpu;
    }
}
