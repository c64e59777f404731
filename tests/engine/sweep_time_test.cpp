// SPDX-License-Identifier: MIT
// The default sweep's time limit: the next point's estimate from the points before it, and
// where a default grid stops with a cost per point given by the test (no timing here).
#include "ctxscope/sweep.h"
#include "sizes.h"

#include <gtest/gtest.h>

#include <functional>

using namespace ctxscope;

namespace {

using test::kMiB;

SweepPlan defaultPlan()
{
    // A VM's claim of a 512 MB L3 gives a default grid to 2 GB.
    SweepPlan plan;
    plan.sizes = { 0 };
    for (std::uint64_t w = 4096; w <= 2048 * kMiB; w *= 2)
        plan.sizes.push_back(w);
    plan.timeLimitSeconds = kDefaultSweepSeconds;
    return plan;
}

struct Stopped {
    std::vector<PointTime> done;
    double seconds = 0;
    std::string why;
};

// What runSweep does between points, with each point's time given by `cost`.
Stopped runWith(const SweepPlan& plan, const std::function<double(std::uint64_t)>& cost)
{
    Stopped out;
    for (const std::uint64_t w : plan.sizes) {
        out.why = timeLimitStop(plan, out.done, out.seconds, w);
        if (!out.why.empty())
            break;
        out.done.push_back(PointTime { w, cost(w) });
        out.seconds += out.done.back().seconds;
    }
    return out;
}

} // namespace

TEST(SweepTime, TheNextPointIsTheLastOneGrownAtTheSlopeOfTheLastTwo)
{
    EXPECT_EQ(estimatePointSeconds({}, 4096), 0);
    const std::vector<PointTime> one { { 0, 0.7 } };
    EXPECT_DOUBLE_EQ(estimatePointSeconds(one, 4096), 0.7);
    const std::vector<PointTime> linear { { 0, 0.7 }, { 64 * kMiB, 1.0 }, { 128 * kMiB, 1.5 } };
    EXPECT_DOUBLE_EQ(estimatePointSeconds(linear, 256 * kMiB), 2.5);
    // A small point that happened to take longer than the next one: no negative growth.
    const std::vector<PointTime> noisy { { 4096, 0.9 }, { 8192, 0.7 } };
    EXPECT_DOUBLE_EQ(estimatePointSeconds(noisy, 16384), 0.7);
}

TEST(SweepTime, ADefaultGridStopsBeforeThePointThatWouldEndPastTheLimitAndSaysWhere)
{
    const SweepPlan plan = defaultPlan();
    // 0.7 s per point of minimum times and 20 ns per byte of W (touched by two tasks over
    // repetitions, faulted in, touched alone): 1 GiB would take 22 s.
    const auto cost = [](std::uint64_t w) { return 0.7 + 20e-9 * static_cast<double>(w); };
    const Stopped run = runWith(plan, cost);
    ASSERT_FALSE(run.why.empty());
    EXPECT_LE(run.seconds, kDefaultSweepSeconds);
    ASSERT_LT(run.done.size(), plan.sizes.size());
    const std::uint64_t next = plan.sizes[run.done.size()];
    EXPECT_GT(run.seconds + cost(next), kDefaultSweepSeconds) << "stopped while the next point still fitted";
    EXPECT_NE(run.why.find("stopped after W = 512 MiB"), std::string::npos) << run.why;
    EXPECT_NE(run.why.find("next point, W = 1 GiB"), std::string::npos) << run.why;
    EXPECT_NE(run.why.find("--ws 0..2G"), std::string::npos) << run.why;
}

TEST(SweepTime, CheapPointsRunTheWholeGridAndAGivenEndIsNeverCut)
{
    SweepPlan plan = defaultPlan();
    const auto cheap = [](std::uint64_t w) { return 0.1 + 1e-10 * static_cast<double>(w); };
    EXPECT_EQ(runWith(plan, cheap).done.size(), plan.sizes.size());

    plan.timeLimitSeconds.reset(); // --ws 0..2G: the user's choice
    const auto slow = [](std::uint64_t w) { return 5 + 1e-8 * static_cast<double>(w); };
    const Stopped run = runWith(plan, slow);
    EXPECT_EQ(run.done.size(), plan.sizes.size());
    EXPECT_TRUE(run.why.empty());
}

TEST(SweepTime, OnlyADefaultRangeIsTimed)
{
    auto topology = Topology::loadSynthetic("pack:1 l3:1 core:2 pu:1");
    ASSERT_TRUE(topology.ok());
    SweepSpec spec;
    spec.base.bench = "futex";
    spec.availableBytes = std::uint64_t { 64 } << 30;
    auto byDefault = planSweep(spec, *topology);
    ASSERT_TRUE(byDefault.ok()) << byDefault.error().message;
    EXPECT_EQ(byDefault->timeLimitSeconds, kDefaultSweepSeconds);
    spec.toBytes = 64 * kMiB;
    auto given = planSweep(spec, *topology);
    ASSERT_TRUE(given.ok()) << given.error().message;
    EXPECT_FALSE(given->timeLimitSeconds.has_value());
}
