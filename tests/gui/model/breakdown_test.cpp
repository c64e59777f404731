// SPDX-License-Identifier: MIT
// The breakdown's bar from a traced run's segments: the kind of hand-over most of them took,
// its steps stacked in the order a hand-over takes them, and what a click on the bar hits.
#include "breakdowndata.h"

#include <gtest/gtest.h>

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
// ways, not three steps; the bar takes the way most hand-overs took.
TEST(Breakdown, AStepTakenDifferentWaysIsTheWayMostTook)
{
    TraceSummary summary;
    summary.segments = { seg("IPI sent", true, 1700, 1900, 4800), seg("switch-in", true, 12000, 16800, 3400),
        seg("switch-in", true, 860, 1250, 1400), seg("switch-in", true, 29800, 1'740'000, 185),
        seg("return to user", true, 1400, 6300, 5000) };
    const BreakdownBar bar = breakdownOf(summary);
    ASSERT_EQ(bar.steps.size(), 3U);
    EXPECT_EQ(bar.steps[1].name, "switch-in");
    EXPECT_EQ(bar.steps[1].p50Ns, 12000);
    EXPECT_EQ(bar.steps[1].count, 3400U);
    EXPECT_DOUBLE_EQ(bar.totalNs(), 1700 + 12000 + 1400);
}

// The wakee's CPU busy: "preempting X" and "waiting behind Y" take the switch-in's place, one of
// them per hand-over. The bar is the way most took, and no idle exit where that way found the
// CPU busy (a loaded machine once drew every one of them in a row, 440 µs of "hand-over").
TEST(Breakdown, WhatTookTheSwitchInsPlaceIsOneStep)
{
    TraceSummary summary;
    summary.segments = { seg("wake call", true, 500, 700, 40000), seg("IPI sent", true, 1300, 1900, 40000),
        seg("idle exit", true, 7000, 9000, 40), seg("switch-in", true, 1500, 2000, 40),
        seg("preempting cc1plus", true, 2900, 4000, 39000), seg("preempting gui_tests", true, 3000, 4100, 600),
        seg("waiting behind ctxscope-cli", true, 337000, 400000, 10), seg("return to user", true, 1000, 1500, 40000) };
    const BreakdownBar bar = breakdownOf(summary);
    ASSERT_EQ(bar.steps.size(), 4U);
    EXPECT_EQ(bar.steps[2].name, "preempting cc1plus");
    EXPECT_EQ(bar.steps[2].count, 39000U);
    EXPECT_DOUBLE_EQ(bar.totalNs(), 500 + 1300 + 2900 + 1000);
    // Where most hand-overs woke an idle CPU, its exit and the switch-in are the bar.
    summary.segments = { seg("IPI sent", true, 1300, 1900, 5000), seg("idle exit", true, 7000, 9000, 4900),
        seg("switch-in", true, 1500, 2000, 4900), seg("waiting behind cc1plus", true, 30000, 40000, 100) };
    const BreakdownBar idle = breakdownOf(summary);
    ASSERT_EQ(idle.steps.size(), 3U);
    EXPECT_EQ(idle.steps[1].name, "idle exit");
    EXPECT_EQ(idle.steps[2].name, "switch-in");
}
