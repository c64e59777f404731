// SPDX-License-Identifier: MIT
// sysinfo's activity: busy and steal shares of all CPUs and context switches per second from
// two readings of /proc/stat, on made-up texts with known answers, a kernel without steal,
// garbage, and this machine.
#include "ctxscope/sysinfo.h"

#include <gtest/gtest.h>

using namespace ctxscope;

TEST(SystemActivity, SharesAndSwitchesPerSecondBetweenTwoReadings)
{
    // 200 ticks of the two CPUs' time: 60 user + 20 system + 10 irq busy, 100 idle, 10 steal.
    const auto a = systemActivityBetween("cpu 100 0 50 1000 0 5 5 20 0 0\ncpu0 1 0 0 0\nctxt 1000\n",
        "cpu 160 0 70 1100 0 15 5 30 0 0\ncpu0 1 0 0 0\nctxt 3500\n", 2.0);
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_NEAR(a->busyShare, 90.0 / 200, 1e-9);
    ASSERT_TRUE(a->stealShare.has_value());
    EXPECT_NEAR(*a->stealShare, 10.0 / 200, 1e-9);
    ASSERT_TRUE(a->contextSwitchesPerS.has_value());
    EXPECT_NEAR(*a->contextSwitchesPerS, 1250, 1e-9); // 2500 switches in 2 s, as vmstat's cs
    // A kernel without the steal column and without ctxt: unknown, not 0.
    const auto old = systemActivityBetween("cpu 1 2 3 4\ncpu0 1 2 3 4\n", "cpu 2 2 3 5\ncpu0 2 2 3 5\n", 1.0);
    ASSERT_TRUE(old.ok());
    EXPECT_FALSE(old->stealShare.has_value());
    EXPECT_FALSE(old->contextSwitchesPerS.has_value());
    EXPECT_FALSE(systemActivityBetween("garbage", "cpu 1 2 3 4\ncpu0 1 2 3 4\n", 1.0).ok());
    EXPECT_FALSE(systemActivityBetween("cpu 1 2 3 4\ncpu0 1 2 3 4\n", "cpu 1 2 3 4\ncpu0 1 2 3 4\n", 0).ok());
}

TEST(SystemActivity, ThisMachine)
{
    const auto a = sampleSystemActivity(std::chrono::milliseconds(200));
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_GE(a->seconds, 0.2);
    EXPECT_GE(a->busyShare, 0.0);
    EXPECT_LE(a->busyShare, 1.0);
    ASSERT_TRUE(a->contextSwitchesPerS.has_value()); // every Linux since 2.4 has ctxt
    EXPECT_GT(*a->contextSwitchesPerS, 0); // this test's own sleep switched
}
