// SPDX-License-Identifier: MIT
// The spin-or-sleep lesson's conclusion, from results made here (no measuring).
#include "lesson_synthetic.h"

#include "ctxscope/lesson.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ctxscope;
using test::anyContains;

namespace {

// A thread result of `bench` on cpus, with a round trip of p50 ns (repetitions p50 ± 1%),
// both tasks together burning cpuNs of CPU time per op.
RunResult handOver(std::string bench, std::vector<int> cpus, Relation rel, double p50, double cpuNs)
{
    RunResult r;
    r.bench = std::move(bench);
    r.placement.cpus = std::move(cpus);
    r.placement.tasks = 2;
    r.placement.relation = rel;
    r.stats.p50 = p50;
    r.stats.mean = p50;
    r.repetitionMedians = { p50 * 0.99, p50 * 1.01 };
    r.handoffsPerOp = 2;
    r.perHandoffNs = p50 / 2;
    r.observed.cpuNsPerOp = cpuNs;
    return r;
}

} // namespace

TEST(SpinOrSleepLesson, SaysWhatTheSpinSavesWhatItBurnsAndWhereItLoses)
{
    ASSERT_NE(findLesson("spin-or-sleep"), nullptr);
    RunResult adaptiveOne = handOver("spin-futex", { 0, 0 }, Relation::SamePu, 12'000, 12'000);
    adaptiveOne.handoffs = HandoffCount { 1000, 900 };
    RunResult adaptive = handOver("spin-futex", { 0, 1 }, Relation::SharedL3, 420, 800);
    adaptive.handoffs = HandoffCount { 1000, 0 };
    const auto c = concludeLesson("spin-or-sleep",
        { handOver("spin", { 0, 1 }, Relation::SharedL3, 400, 800), adaptive,
            handOver("futex", { 0, 1 }, Relation::SharedL3, 10'000, 4'000), adaptiveOne,
            handOver("futex", { 0, 0 }, Relation::SamePu, 8'000, 8'000) });
    EXPECT_TRUE(anyContains(c, "one hand-over costs 5 µs when the waiter sleeps")) << c.front();
    EXPECT_TRUE(anyContains(c, "200 ns when it spins"));
    EXPECT_TRUE(anyContains(c, "0% of its hand-overs slept"));
    // The lessons' shared verdict: the ratio with its 95% interval over the repetitions.
    EXPECT_TRUE(anyContains(c, "spinning is 25 times (95% interval ")) << c[1];
    EXPECT_TRUE(anyContains(c, ") faster than sleeping: it saves 9.6 µs per round trip"));
    // Both spinning tasks are busy the whole round trip; the futex ones a fifth of it.
    EXPECT_TRUE(anyContains(c, "burns 800 ns of CPU per round trip (100% of both tasks' time)"));
    EXPECT_TRUE(anyContains(c, "against 4 µs of CPU per round trip (20% of both tasks' time)"));
    EXPECT_TRUE(anyContains(c, "spin-then-sleep took 12 µs per round trip (90% of its hand-overs slept), futex 8 µs"));
    EXPECT_TRUE(anyContains(c, "spinning first is 1.50 times (95% interval 1.4"));
    EXPECT_TRUE(anyContains(c, ") slower than sleeping at once"));
}

TEST(SpinOrSleepLesson, SaysSoWhenSpinningSavesNothingMeasurable)
{
    const auto c = concludeLesson("spin-or-sleep",
        { handOver("spin", { 0, 1 }, Relation::SharedL3, 1000, 2000),
            handOver("futex", { 0, 1 }, Relation::SharedL3, 1005, 1000) });
    EXPECT_TRUE(anyContains(c, "costs within 10% of sleeping: it saves nothing measurable")) << c[1];
}
