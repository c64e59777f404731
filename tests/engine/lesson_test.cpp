// SPDX-License-Identifier: MIT
#include "ctxscope/lesson.h"

#include <gtest/gtest.h>

using namespace ctxscope;

namespace {

RunResult measured(
    std::string bench, BenchMode mode, std::vector<int> cpus, Relation rel, double p50, std::vector<double> reps)
{
    RunResult r;
    r.bench = std::move(bench);
    r.mode = mode;
    r.placement.cpus = std::move(cpus);
    r.placement.tasks = static_cast<int>(r.placement.cpus.size());
    r.placement.relation = rel;
    r.stats.p50 = p50;
    r.repetitionMedians = std::move(reps);
    return r;
}

bool anyContains(const std::vector<std::string>& sentences, std::string_view needle)
{
    for (const auto& s : sentences)
        if (s.find(needle) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST(Lessons, EveryLessonOfTheDesignIsListed)
{
    for (const char* id : { "mode-switch", "pinning", "threads-vs-processes", "cache-pollution", "pipe-placement",
             "coroutines", "run-queue" })
        EXPECT_NE(findLesson(id), nullptr) << id;
    EXPECT_EQ(findLesson("astrology"), nullptr);
}

TEST(Lessons, ModeSwitchConclusionIsComputedFromTheNumbers)
{
    RunResult sys = measured("syscall", BenchMode::Thread, { 0 }, Relation::SamePu, 200, { 199, 201 });
    RunResult futex = measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 10'000, { 9'900, 10'100 });
    futex.observed.voluntaryPerOp = 1.98;
    const auto c = concludeLesson("mode-switch", { sys, futex });
    EXPECT_TRUE(anyContains(c, "200 ns")) << c.front();
    EXPECT_TRUE(anyContains(c, "10 µs"));
    EXPECT_TRUE(anyContains(c, "50 times dearer"));
    EXPECT_TRUE(anyContains(c, "observed 1.98"));

    // When the finding does not hold, the lesson says so.
    futex.stats.p50 = 150;
    EXPECT_TRUE(anyContains(concludeLesson("mode-switch", { sys, futex }), "does not hold"));
}

TEST(Lessons, ThreadsVsProcessesSaysWhenTheDifferenceIsNoise)
{
    const auto noisy = concludeLesson("threads-vs-processes",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 1000, { 900, 1100 }),
            measured("futex", BenchMode::Process, { 0, 0 }, Relation::SamePu, 1050, { 1000, 1150 }) });
    EXPECT_TRUE(anyContains(noisy, "within the noise"));
    const auto clear = concludeLesson("threads-vs-processes",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 1000, { 990, 1010 }),
            measured("futex", BenchMode::Process, { 0, 0 }, Relation::SamePu, 1300, { 1290, 1310 }) });
    EXPECT_TRUE(anyContains(clear, "processes are dearer"));
    EXPECT_TRUE(anyContains(clear, "+30%"));
}

TEST(Lessons, PinningRanksPlacementsByMedian)
{
    const auto c = concludeLesson("pinning",
        { measured("futex", BenchMode::Thread, { 0, 16 }, Relation::CrossPackage, 9000, { 8900, 9100 }),
            measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 3000, { 2990, 3010 }) });
    EXPECT_TRUE(anyContains(c, "1. CPUs 0,0 (same-pu): 3 µs; 2. CPUs 0,16 (cross-package): 9 µs"));
    EXPECT_TRUE(anyContains(c, "3.0 times the fastest"));
}

TEST(Lessons, PinningSaysWhereTheUnpinnedThreadsRanInPlainWords)
{
    RunResult unpinned = measured("futex", BenchMode::Thread, {}, Relation::Unpinned, 3100, { 3000, 3200 });
    unpinned.observed.cpusSeen = { 0 };
    unpinned.observed.migrations = 1;
    const auto alone = concludeLesson("pinning",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 3000, { 2990, 3010 }), unpinned });
    EXPECT_TRUE(anyContains(alone, "unpinned (ran on CPU 0)"));
    EXPECT_TRUE(anyContains(alone, "the two threads ran on CPU 0 with 1 migration."));
    unpinned.observed.cpusSeen = { 0, 1 };
    unpinned.observed.migrations = 12;
    const auto spread = concludeLesson("pinning", { unpinned });
    EXPECT_TRUE(anyContains(spread, "unpinned (ran on CPUs 0-1)"));
    EXPECT_TRUE(anyContains(spread, "ran on CPUs 0-1 with 12 migrations."));
}

TEST(Lessons, PlanRefusesTopologiesThatAreNotThisMachine)
{
    auto synth = Topology::loadSynthetic("pack:1 core:2 pu:1");
    ASSERT_TRUE(synth.ok());
    EXPECT_FALSE(planLesson("pinning", *synth, {}).ok());
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    auto plan = planLesson("run-queue", *live, {});
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_GE(plan->size(), 4U); // N = 2, 4, 8, 16 on one PU at least
    EXPECT_FALSE(planLesson("astrology", *live, {}).ok());
}

TEST(Lessons, ModeSwitchRunsOnThisMachineAndConcludes)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    auto r = runLesson("mode-switch", *live, RunBudget { 0.01, 2 });
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->results.size(), 3U);
    EXPECT_TRUE(r->failures.empty());
    EXPECT_TRUE(anyContains(r->conclusion, "A system call cost"));
    EXPECT_TRUE(anyContains(r->conclusion, "times dearer"));
}

TEST(Lessons, CachePollutionTakesTheTouchesOutAndFindsTheKnee)
{
    auto at = [](std::string bench, std::uint64_t ws, double p50) {
        RunResult r = measured(std::move(bench), BenchMode::Thread, { 0, 0 }, Relation::SamePu, p50, { p50 });
        r.spec.wsBytes = ws;
        return r;
    };
    // cost(W) = (round trip - 2 touch) / 2: 1 us at 0, 1.5 us at 32 KiB, 10 us at 1 MiB.
    const auto c = concludeLesson("cache-pollution",
        { at("futex", 0, 2000), at("futex", 32768, 3200), at("touch", 32768, 100), at("futex", 1 << 20, 22000),
            at("touch", 1 << 20, 1000) });
    EXPECT_TRUE(anyContains(c, "W=0 B: 1 µs; W=32 KiB: 1.5 µs; W=1 MiB: 10 µs")) << c.front();
    EXPECT_TRUE(anyContains(c, "rose most, 6.7 times, between W=32 KiB and W=1 MiB"));
    EXPECT_TRUE(anyContains(c, "10.0 times as much"));
    // A cost at or below 0 is flagged, never printed negative.
    const auto flagged = concludeLesson("cache-pollution", { at("futex", 4096, 100), at("touch", 4096, 80) });
    EXPECT_TRUE(anyContains(flagged, "at or below 0 (flagged)"));
}

TEST(Lessons, CoroutineLadderIsSortedAndComparedWithTheKernel)
{
    const auto c = concludeLesson("coroutines",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 6000, { 6000 }),
            measured("coro-fcontext", BenchMode::Thread, { 0 }, Relation::SamePu, 12, { 12 }),
            measured("coro-cxx20", BenchMode::Thread, { 0 }, Relation::SamePu, 10, { 10 }) });
    EXPECT_TRUE(anyContains(c, "coro-cxx20 10 ns < coro-fcontext 12 ns < futex 6 µs"));
    EXPECT_TRUE(anyContains(c, "600 times cheaper than letting the kernel switch threads (6 µs)"));
}
