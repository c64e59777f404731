// SPDX-License-Identifier: MIT
// Working-set sweeps: the grid (log2 steps, 4x the last-level cache, capped by memory) on
// synthetic topologies, and short live sweeps for the series, progress and cancellation.
#include "ctxscope/sweep.h"
#include "live_topology_test.h"
#include "topology_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

using namespace ctxscope;

namespace {

using test::synthetic;

SweepSpec futexSweep()
{
    SweepSpec s;
    s.base.bench = "futex";
    s.availableBytes = std::uint64_t { 64 } << 30;
    return s;
}

bool strictlyIncreasing(const std::vector<std::uint64_t>& v)
{
    return std::adjacent_find(v.begin(), v.end(), std::greater_equal<>()) == v.end();
}

} // namespace

TEST(SweepPlan, DefaultGridGoesFromZeroToFourTimesTheLastLevelCache)
{
    const Topology topo = synthetic("pack:1 l3:1 l2:2 core:1 pu:2");
    const std::uint64_t llc = topo.cacheSize(topo.lastCacheLevel());
    ASSERT_GT(llc, 0U);
    auto plan = planSweep(futexSweep(), topo);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->lastLevelCache, llc);
    EXPECT_FALSE(plan->capped);
    EXPECT_TRUE(plan->note.empty());
    ASSERT_GE(plan->sizes.size(), 3U);
    EXPECT_EQ(plan->sizes[0], 0U);
    EXPECT_EQ(plan->sizes[1], kFirstNonZeroWs);
    EXPECT_GE(plan->sizes.back(), 4 * llc);
    EXPECT_TRUE(strictlyIncreasing(plan->sizes));
    for (std::size_t i = 2; i < plan->sizes.size(); ++i)
        EXPECT_EQ(plan->sizes[i], 2 * plan->sizes[i - 1]) << "one point per octave";
}

TEST(SweepPlan, PointsPerOctaveAndAnExplicitRange)
{
    const Topology topo = synthetic("pack:1 l3:1 core:2 pu:1");
    SweepSpec s = futexSweep();
    s.fromBytes = 1024;
    s.toBytes = 64 * 1024;
    s.pointsPerOctave = 4;
    auto plan = planSweep(s, topo);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->sizes.front(), 1024U);
    EXPECT_EQ(plan->sizes.back(), 64U * 1024);
    EXPECT_EQ(plan->sizes.size(), 6U * 4 + 1);
    EXPECT_TRUE(strictlyIncreasing(plan->sizes));
    for (std::uint64_t w : plan->sizes)
        EXPECT_EQ(w % 64, 0U) << w << " is not a whole number of cache lines";
}

TEST(SweepPlan, ASmallMemoryBudgetCapsTheGridAndSaysSo)
{
    const Topology topo = synthetic("pack:1 l3:1 core:2 pu:1");
    SweepSpec s = futexSweep();
    s.availableBytes = std::uint64_t { 8 } << 20; // a quarter is 2 MiB: 1 MiB per task for two tasks
    auto plan = planSweep(s, topo);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_TRUE(plan->capped);
    EXPECT_EQ(plan->budget, std::uint64_t { 2 } << 20);
    EXPECT_EQ(plan->sizes.back(), std::uint64_t { 1 } << 20);
    EXPECT_LT(plan->sizes.back(), plan->requestedTo);
    EXPECT_NE(plan->note.find("stops at 1 MiB instead of"), std::string::npos) << plan->note;
    EXPECT_NE(plan->note.find("quarter"), std::string::npos) << plan->note;

    s.availableBytes = 100; // not even one line per task
    s.fromBytes = 4096;
    auto none = planSweep(s, topo);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message.find("not even the first working set fits"), std::string::npos);
}

TEST(SweepPlan, BadSpecsAreRefused)
{
    const Topology topo = synthetic("pack:1 l3:1 core:2 pu:1");
    SweepSpec s = futexSweep();
    s.base.bench = "syscall";
    EXPECT_FALSE(planSweep(s, topo).ok());
    s.base.bench = "touch";
    EXPECT_FALSE(planSweep(s, topo).ok());
    s = futexSweep();
    s.pointsPerOctave = 0;
    auto bad = planSweep(s, topo);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("points per octave"), std::string::npos);
    s = futexSweep();
    s.fromBytes = 8192;
    s.toBytes = 4096;
    EXPECT_FALSE(planSweep(s, topo).ok());
}

namespace {

class LiveSweep : public test::LiveTopologyTest {
protected:
    static SweepSpec small()
    {
        SweepSpec s;
        s.base.bench = "futex";
        const int cpu = s_topology->allowedPus().front();
        s.base.cpus = { cpu, cpu };
        s.base.minTimeSeconds = 0.01;
        s.base.repetitions = 2;
        s.fromBytes = 0;
        s.toBytes = 16 * 1024;
        return s;
    }
};

} // namespace

TEST_F(LiveSweep, ASmallGridHasThreeSeriesPerPointAndTheCaches)
{
    std::vector<double> fractions;
    int finished = 0;
    auto r = runSweep(small(), *s_topology, [&](const SweepProgress& p) {
        fractions.push_back(p.fraction);
        if (p.finished) {
            ++finished;
            EXPECT_EQ(p.finished->wsBytes, p.wsBytes);
        }
    });
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->points.size(), r->plan.sizes.size());
    EXPECT_EQ(finished, static_cast<int>(r->points.size()));
    std::vector<std::uint64_t> ws;
    for (const WorkingSetPoint& p : r->points) {
        SCOPED_TRACE(p.wsBytes);
        ws.push_back(p.wsBytes);
        EXPECT_GT(p.roundTrip.p50, 0);
        EXPECT_LE(p.roundTrip.p25, p.roundTrip.p50);
        EXPECT_LE(p.roundTrip.p50, p.roundTrip.p75);
        EXPECT_EQ(p.touchRun.has_value(), p.wsBytes > 0);
        if (p.wsBytes > 0) {
            EXPECT_GT(p.touch.p50, 0);
        }
        EXPECT_NE(p.switchCostNs.has_value(), p.costNotPositive);
        EXPECT_EQ(p.roundTripRun.placement.cpus, r->placement.cpus);
    }
    EXPECT_EQ(ws, (std::vector<std::uint64_t> { 0, 4096, 8192, 16384 }));
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_GE(fractions.front(), 0);
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
    // The caches travel with the result, exactly as the topology reports them.
    const auto& caches = s_topology->caches();
    ASSERT_EQ(r->caches.size(), caches.size());
    for (std::size_t i = 0; i < caches.size(); ++i) {
        EXPECT_EQ(r->caches[i].level, caches[i].level);
        EXPECT_EQ(r->caches[i].size, caches[i].size);
        EXPECT_EQ(r->caches[i].pus, caches[i].pus);
    }
}

TEST_F(LiveSweep, CancelsBetweenPoints)
{
    std::stop_source stop;
    int finished = 0;
    auto r = runSweep(
        small(), *s_topology,
        [&](const SweepProgress& p) {
            if (p.finished && ++finished == 1)
                stop.request_stop();
        },
        stop.get_token());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "the sweep was cancelled");
    EXPECT_EQ(finished, 1);
}

TEST_F(LiveSweep, CancelsWithinAPoint)
{
    SweepSpec s = small();
    s.base.minTimeSeconds = 5; // one point alone would take 2 x 2 x 5 s
    s.fromBytes = 4096;
    s.toBytes = 4096;
    std::stop_source stop;
    std::jthread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop.request_stop();
    });
    const auto started = std::chrono::steady_clock::now();
    auto r = runSweep(s, *s_topology, {}, stop.get_token());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "the sweep was cancelled");
    EXPECT_LT(seconds, 5.0) << "the stop request was not answered within the point";
}
