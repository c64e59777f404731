// SPDX-License-Identifier: MIT
// The breakdown's bar from a traced run's segments: the kind of hand-over most of them took,
// its steps stacked in the order a hand-over takes them, and what a click on the bar hits.
#include "breakdowndata.h"

#include "ctxscope/handover_shares.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

TraceSegment seg(const char* name, bool cross, double p50, double p90, std::uint64_t count)
{
    TraceSegment s;
    s.name = name;
    s.crossCpu = cross;
    s.p50Ns = p50;
    s.p90Ns = p90;
    s.count = count;
    return s;
}

} // namespace

TEST(Breakdown, AcrossCpusTheCrossCpuStepsStackInOrder)
{
    TraceSummary summary;
    summary.segments = { seg("wake call", true, 300, 500, 900), seg("IPI sent", true, 1900, 2500, 900),
        seg("switch-in", true, 20000, 41000, 900), seg("return to user", true, 700, 900, 900),
        // a few hand-overs on one CPU (a task migrated): not this run's kind
        seg("waker runs on", false, 3000, 3100, 12) };
    const BreakdownBar bar = breakdownOf(summary);
    EXPECT_TRUE(bar.crossCpu);
    ASSERT_EQ(bar.steps.size(), 4U);
    EXPECT_EQ(bar.steps[1].name, "IPI sent");
    EXPECT_EQ(bar.steps[1].fromNs, 300);
    EXPECT_EQ(bar.steps[2].fromNs, 2200);
    EXPECT_EQ(bar.steps[2].p90Ns, 41000);
    EXPECT_DOUBLE_EQ(bar.totalNs(), 22900);
    // What a click hits: a step from its start to its end, nothing past the bar.
    EXPECT_EQ(bar.stepAt(0), 0U);
    EXPECT_EQ(bar.stepAt(2199), 1U);
    EXPECT_EQ(bar.stepAt(2200), 2U);
    EXPECT_FALSE(bar.stepAt(22900).has_value());
    EXPECT_FALSE(bar.stepAt(-1).has_value());
}

TEST(Breakdown, OnOnePuTheSameCpuStepsAreTheBar)
{
    TraceSummary summary;
    summary.segments = { seg("IPI sent", true, 1000, 1000, 3), seg("wake call", false, 400, 600, 5000),
        seg("waker runs on", false, 1800, 2000, 5000) };
    const BreakdownBar bar = breakdownOf(summary);
    EXPECT_FALSE(bar.crossCpu);
    ASSERT_EQ(bar.steps.size(), 2U);
    EXPECT_EQ(bar.steps[0].name, "wake call");
    EXPECT_DOUBLE_EQ(bar.totalNs(), 2200);
    EXPECT_TRUE(breakdownOf(TraceSummary {}).steps.empty());
    EXPECT_DOUBLE_EQ(breakdownOf(TraceSummary {}).totalNs(), 0);
}

// Switch-in from the IPI, from the idle exit or straight from sched_waking: one step taken three
// ways, each weighing with the hand-overs that took it; the example a click shows is the way
// most took.
TEST(Breakdown, AStepTakenDifferentWaysWeighsEachWayByItsHandovers)
{
    TraceSummary summary;
    summary.segments = { seg("IPI sent", true, 1700, 1900, 5000), seg("switch-in", true, 12000, 16800, 3400),
        seg("switch-in", true, 860, 1250, 1400), seg("switch-in", true, 29800, 1'740'000, 200),
        seg("return to user", true, 1400, 6300, 5000) };
    const BreakdownBar bar = breakdownOf(summary);
    ASSERT_EQ(bar.steps.size(), 3U);
    EXPECT_EQ(bar.handovers, 5000U);
    EXPECT_EQ(bar.steps[1].name, "switch-in");
    EXPECT_EQ(bar.steps[1].p50Ns, 12000);
    EXPECT_EQ(bar.steps[1].count, 3400U);
    EXPECT_FALSE(bar.steps[1].oneWay);
    EXPECT_TRUE(bar.steps[0].oneWay);
    const double switchIn = (12000.0 * 3400 + 860.0 * 1400 + 29800.0 * 200) / 5000;
    EXPECT_DOUBLE_EQ(bar.steps[1].ns, switchIn);
    EXPECT_DOUBLE_EQ(bar.totalNs(), 1700 + switchIn + 1400);
    // The lessons' figure for the same hand-over is the bar's length.
    const auto shares = handoverShares(summary, true);
    ASSERT_TRUE(shares.has_value());
    EXPECT_DOUBLE_EQ(shares->ns, bar.totalNs());
}

// The wakee's CPU busy: "preempting X" and "waiting behind Y" take the switch-in's place, one of
// them per hand-over, and the idle exit comes only before a switch-in. Each weighs with the share
// of hand-overs that took it, so a few long waits behind another program do not stand for the
// typical hand-over (a loaded machine once drew every one of them in a row, 440 µs of "hand-over").
TEST(Breakdown, WhatTookTheSwitchInsPlaceWeighsWithItsShare)
{
    TraceSummary summary;
    summary.segments = { seg("wake call", true, 500, 700, 40000), seg("IPI sent", true, 1300, 1900, 40000),
        seg("idle exit", true, 7000, 9000, 400), seg("switch-in", true, 1500, 2000, 400),
        seg("preempting cc1plus", true, 2900, 4000, 39000), seg("preempting gui_tests", true, 3000, 4100, 590),
        seg("waiting behind ctxscope-cli", true, 337000, 400000, 10), seg("return to user", true, 1000, 1500, 40000) };
    const BreakdownBar bar = breakdownOf(summary);
    ASSERT_EQ(bar.steps.size(), 8U);
    EXPECT_EQ(bar.steps[4].name, "preempting cc1plus");
    EXPECT_DOUBLE_EQ(bar.steps[4].ns, 2900.0 * 39000 / 40000);
    EXPECT_DOUBLE_EQ(bar.steps[6].ns, 337000.0 * 10 / 40000);
    EXPECT_DOUBLE_EQ(bar.steps[2].share, 0.01);
    const double total
        = 500 + 1300 + (7000.0 * 400 + 1500.0 * 400 + 2900.0 * 39000 + 3000.0 * 590 + 337000.0 * 10) / 40000 + 1000;
    EXPECT_NEAR(bar.totalNs(), total, 1e-6);
    // The longest step of the typical hand-over is the preemption, not the rare wait.
    const auto longest = std::max_element(
        bar.steps.begin(), bar.steps.end(), [](const BreakdownStep& a, const BreakdownStep& b) { return a.ns < b.ns; });
    EXPECT_EQ(longest->name, "preempting cc1plus");
}

// The benchmark's own loop between two hand-overs is no step of one: not on the bar, so the bar
// on one PU and the lesson's "a hand-over took" are the same figure.
TEST(Breakdown, InUserSpaceIsNoPartOfTheBar)
{
    TraceSummary summary;
    summary.segments = { seg("wake call", false, 190, 209, 24743), seg("sleep call", false, 597, 662, 15257),
        seg("waker runs on", false, 866, 1360, 24745), seg("return to user", false, 374, 1340, 40002),
        seg("in user space", false, 412, 2680, 40002) };
    const BreakdownBar bar = breakdownOf(summary);
    EXPECT_FALSE(bar.crossCpu);
    ASSERT_EQ(bar.steps.size(), 4U);
    EXPECT_TRUE(std::none_of(
        bar.steps.begin(), bar.steps.end(), [](const BreakdownStep& s) { return s.name == "in user space"; }));
    EXPECT_EQ(bar.handovers, 40002U);
    EXPECT_DOUBLE_EQ(bar.totalNs(), handoverShares(summary, false)->ns);
}
