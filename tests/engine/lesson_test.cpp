// SPDX-License-Identifier: MIT
#include "lesson_synthetic.h"

#include "ctxscope/lesson.h"
#include "ctxscope/stats.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace ctxscope;
using test::anyContains;

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

} // namespace

TEST(Lessons, EveryLessonOfTheDesignIsListed)
{
    for (const char* id : { "mode-switch", "pinning", "threads-vs-processes", "cache-pollution", "pipe-placement",
             "coroutines", "spin-or-sleep", "run-queue" })
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
    EXPECT_TRUE(anyContains(noisy, "vary too much to say whether the difference reaches 10%"));
    const auto clear = concludeLesson("threads-vs-processes",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 1000, { 990, 1010 }),
            measured("futex", BenchMode::Process, { 0, 0 }, Relation::SamePu, 1300, { 1290, 1310 }) });
    EXPECT_TRUE(anyContains(clear, "processes are dearer"));
    EXPECT_TRUE(anyContains(clear, "processes cost 1.30 times (95% interval"));
    const auto same = concludeLesson("threads-vs-processes",
        { measured("pipe", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 1000, { 990, 1010 }),
            measured("pipe", BenchMode::Process, { 0, 0 }, Relation::SamePu, 1010, { 1000, 1020 }) });
    EXPECT_TRUE(anyContains(same, "within 10% either way"));
}

TEST(Lessons, PinningRanksPlacementsByMedian)
{
    const auto c = concludeLesson("pinning",
        { measured("futex", BenchMode::Thread, { 0, 16 }, Relation::CrossPackage, 9000, { 8900, 9100 }),
            measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 3000, { 2990, 3010 }) });
    EXPECT_TRUE(anyContains(c,
        "1. CPUs 0,0 (same-pu): 3 µs median (2 runs: 2.99–3.01 µs); 2. CPUs 0,16 (cross-package): 9 µs median (2 runs: "
        "8.9–9.1 µs"));
    EXPECT_TRUE(anyContains(c, "Placement matters here"));
    EXPECT_TRUE(anyContains(c, "cost 3.00 times (95% interval"));
}

// The verdict card's line: the slowest pinned placement against the fastest, the ratio the
// conclusion quotes, and the interval it quotes it with.
TEST(Lessons, PinningsHeadlineIsTheSlowestAgainstTheFastestInOneLine)
{
    const std::vector<RunResult> results { measured("futex", BenchMode::Thread, { 0, 16 }, Relation::CrossPackage, 9000,
                                               { 8900, 9100 }),
        measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 3000, { 2990, 3010 }) };
    const auto h = lessonHeadline("pinning", results);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->text, "Across packages: 3.00× slower than on one PU");
    EXPECT_EQ(h->kind, LessonHeadline::Kind::Differs);
    EXPECT_LT(h->low, 3.0);
    EXPECT_GT(h->high, 3.0);
    EXPECT_FALSE(lessonHeadline("pinning", { results[1] })) << "one placement: nothing to compare";
    EXPECT_FALSE(lessonHeadline("mode-switch", results)) << "a lesson read whole has no headline";
}

TEST(Lessons, PinningSaysWhereTheUnpinnedThreadsRanInPlainWords)
{
    RunResult unpinned = measured("futex", BenchMode::Thread, {}, Relation::Unpinned, 3100, { 3000, 3200 });
    unpinned.observed.cpusSeen = { 0 };
    unpinned.observed.migrations = 1;
    const auto alone = concludeLesson("pinning",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 3000, { 2990, 3010 }), unpinned });
    EXPECT_TRUE(anyContains(alone, "the two threads ran on CPU 0 with 1 migration: 3.1 µs median (2 runs: 3–3.2 µs)"));
    EXPECT_TRUE(anyContains(alone, "2 of 2 runs looked like same-pu (3 µs)"));
    EXPECT_TRUE(anyContains(alone, "Fewer than two pinned placements"));
    unpinned.observed.cpusSeen = { 0, 1 };
    unpinned.observed.migrations = 12;
    const auto spread = concludeLesson("pinning", { unpinned });
    EXPECT_TRUE(anyContains(spread, "ran on CPUs 0-1 with 12 migrations"));
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

// A server's topology as its worker's hello gives it (hwloc XML, read here from a fixture of two
// packages): the app plans that machine's lesson from it, and that worker checks each run.
TEST(Lessons, APlanFromAWorkersHelloIsThatMachinesRuns)
{
    std::ifstream in(std::string(ctxscope::test::fixturesDir()) + "/topology/good/two-packages-two-numa.xml");
    const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto server = Topology::loadXmlBuffer(xml);
    ASSERT_TRUE(server.ok()) << server.error().message;
    auto here = planLesson("pinning", *server, {});
    ASSERT_FALSE(here.ok()) << "no machine's own topology here";
    EXPECT_NE(here.error().message.find("is not it"), std::string::npos) << here.error().message;
    auto plan = planLesson("pinning", *server, {}, PlanTopology::WorkersHello);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    // Its classes are the server's, the farthest across its NUMA nodes, and every CPU is one of its own.
    const bool acrossNuma = std::any_of(plan->begin(), plan->end(),
        [](const LessonStep& step) { return step.label.find("cross-numa") != std::string::npos; });
    EXPECT_TRUE(acrossNuma);
    const std::vector<int> pus = server->allowedPus();
    for (const LessonStep& step : *plan)
        for (int cpu : step.spec.cpus)
            EXPECT_TRUE(std::find(pus.begin(), pus.end(), cpu) != pus.end()) << step.label;
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
    EXPECT_TRUE(anyContains(c, "rose most between W=32 KiB (1.5 µs) and W=1 MiB (10 µs), 6.7 times"));
    EXPECT_TRUE(anyContains(c, "10.0 times as much"));
    // A cost at or below 0 is flagged, never printed negative.
    const auto flagged = concludeLesson("cache-pollution", { at("futex", 4096, 100), at("touch", 4096, 80) });
    EXPECT_TRUE(anyContains(flagged, "at or below 0 (flagged: the touches take the whole round trip)"));
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

// The tour's pinning lesson on this VM: the unpinned run flips between one CPU
// and two, so its repetitions cover both pinned costs. It is described, not ranked.
TEST(Lessons, PinningDescribesABimodalUnpinnedRunInsteadOfRankingIt)
{
    RunResult unpinned
        = measured("futex", BenchMode::Thread, {}, Relation::Unpinned, 14'800, { 5'300, 14'800, 15'000 });
    unpinned.observed.cpusSeen = { 0, 1 };
    const auto c = concludeLesson("pinning",
        { measured("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, 5'350, { 5'300, 5'350, 5'410 }),
            measured("futex", BenchMode::Thread, { 0, 1 }, Relation::SamePackage, 14'700, { 14'600, 14'700, 14'900 }),
            unpinned });
    EXPECT_TRUE(anyContains(c, "Placement matters here"));
    EXPECT_FALSE(anyContains(c, "does not matter"));
    EXPECT_TRUE(anyContains(c, "1 of 3 runs looked like same-pu (5.35 µs), 2 like same-package (14.7 µs)"));
    EXPECT_TRUE(anyContains(c, "one draw from a mixture"));
    EXPECT_TRUE(anyContains(c, "5.35 µs median (3 runs: 5.3–5.41 µs)"));
}

TEST(Lessons, CachePollutionSaysNoisyLargeWorkingSetsAndLeavesThemOut)
{
    auto at = [](std::string bench, std::uint64_t ws, double p50, std::vector<double> reps) {
        RunResult r = measured(std::move(bench), BenchMode::Thread, { 0, 0 }, Relation::SamePu, p50, std::move(reps));
        r.repetitions = static_cast<int>(r.repetitionMedians.size());
        r.repetitionCv = summarize(r.repetitionMedians).cv;
        r.spec.wsBytes = ws;
        return r;
    };
    const std::uint64_t big = std::uint64_t { 256 } << 20;
    const auto c = concludeLesson("cache-pollution",
        { at("futex", 0, 2000, { 2000, 2000 }), at("futex", 1 << 20, 22000, { 22000, 22000 }),
            at("touch", 1 << 20, 1000, { 1000, 1000 }), at("futex", big, 9.3e6, { 6e6, 9.3e6, 1.3e7 }),
            at("touch", big, 4.6e6, { 4.6e6, 4.6e6 }) });
    EXPECT_TRUE(anyContains(c, "noisy: its repetition medians vary by")) << c.front();
    EXPECT_TRUE(anyContains(c, "Left out of every comparison as too uncertain: W=256 MiB (noisy)"));
    EXPECT_TRUE(anyContains(c, "with 1 MiB per task it cost 10 µs"));
    EXPECT_FALSE(anyContains(c, "and W=256 MiB")) << "a noisy point is no end of a rise";
}
