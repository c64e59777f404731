// SPDX-License-Identifier: MIT
// The survey's working-set knee (surveyKnee) from made-up runs: the first W whose switch cost is
// clearly above the smallest W's, noisy points passed over, flat curves without a knee, and a
// round trip without its touch run left out; the summary line of segments that share a name.
#include "ctxscope/survey.h"
#include "sizes.h"

#include <gtest/gtest.h>

using namespace ctxscope;

namespace {

using test::kKiB;

// A run whose samples sit within 1% of ns: tight quartiles.
RunResult runOf(const std::string& bench, std::uint64_t ws, double ns)
{
    RunResult r;
    r.bench = bench;
    r.mode = BenchMode::Thread;
    r.spec.bench = bench;
    r.spec.wsBytes = ws;
    const bool pair = bench == "futex";
    r.placement.tasks = pair ? 2 : 1;
    r.placement.cpus = pair ? std::vector<int> { 0, 0 } : std::vector<int> { 0 };
    r.placement.relation = Relation::SamePu;
    r.switchesPerOp = pair ? 2 : 0;
    r.repetitions = 3;
    r.repetitionMedians = { ns, ns, ns };
    r.stats.p50 = ns;
    r.samples = { ns * 0.99, ns * 0.995, ns, ns * 1.005, ns * 1.01 };
    return r;
}

// Round trip and touch per W, so that the switch cost (rt - 2 touch) / 2 is `cost`.
void addPoint(std::vector<RunResult>& runs, std::uint64_t ws, double cost, double touch = 100)
{
    runs.push_back(runOf("futex", ws, 2 * cost + 2 * touch));
    runs.push_back(runOf("touch", ws, touch));
}

} // namespace

TEST(SurveyKnee, IsTheFirstSizeClearlyAboveTheSmallest)
{
    std::vector<RunResult> runs { runOf("syscall", 0, 60), runOf("futex", 0, 5000) };
    addPoint(runs, 4 * kKiB, 2400);
    addPoint(runs, 16 * kKiB, 2500);
    addPoint(runs, 64 * kKiB, 2700); // 1.1x: not clear
    addPoint(runs, 256 * kKiB, 5000); // 2.1x: the knee
    addPoint(runs, 1024 * kKiB, 11000);
    const SurveyKnee knee = surveyKnee(runs);
    ASSERT_EQ(knee.points.size(), 5U);
    EXPECT_EQ(knee.points.front().wsBytes, 4 * kKiB);
    ASSERT_TRUE(knee.kneeBytes);
    EXPECT_EQ(*knee.kneeBytes, 256 * kKiB);
    EXPECT_NE(knee.sentence.find("W = 256 KiB"), std::string::npos) << knee.sentence;
    EXPECT_NE(knee.sentence.find("2.1 times"), std::string::npos) << knee.sentence;
}

TEST(SurveyKnee, PassesOverNoisyPoints)
{
    std::vector<RunResult> runs;
    addPoint(runs, 4 * kKiB, 2400);
    addPoint(runs, 256 * kKiB, 5000);
    runs[2].repetitionCv = 0.2; // the 256 KiB round trip varied by 20% between repetitions
    addPoint(runs, 1024 * kKiB, 11000);
    const SurveyKnee knee = surveyKnee(runs);
    ASSERT_EQ(knee.clear.size(), 3U);
    EXPECT_FALSE(knee.clear[1]);
    ASSERT_TRUE(knee.kneeBytes);
    EXPECT_EQ(*knee.kneeBytes, 1024 * kKiB);
}

TEST(SurveyKnee, AFlatCurveHasNone)
{
    std::vector<RunResult> runs;
    for (std::uint64_t w = 4 * kKiB; w <= 4096 * kKiB; w *= 4)
        addPoint(runs, w, 2400 + static_cast<double>(w / kKiB) / 100);
    const SurveyKnee knee = surveyKnee(runs);
    EXPECT_FALSE(knee.kneeBytes);
    EXPECT_NE(knee.sentence.find("no knee within these sizes"), std::string::npos) << knee.sentence;
    EXPECT_NE(knee.sentence.find("up to W = 4 MiB"), std::string::npos) << knee.sentence;
}

TEST(SurveyKnee, LeavesOutARoundTripWithoutItsTouchRun)
{
    std::vector<RunResult> runs;
    addPoint(runs, 4 * kKiB, 2400);
    runs.push_back(runOf("futex", 64 * kKiB, 20000)); // its touch run was skipped
    const SurveyKnee knee = surveyKnee(runs);
    ASSERT_EQ(knee.points.size(), 1U);
    EXPECT_FALSE(knee.kneeBytes);
    EXPECT_NE(knee.sentence.find("too few to tell a knee"), std::string::npos) << knee.sentence;
    EXPECT_NE(surveyKnee({}).sentence.find("No working-set run finished"), std::string::npos);
}

TEST(SurveySummary, SegmentsSharingANameSayTheirEvents)
{
    // A cross-CPU hand-over has several "switch-in" steps (from idle, from another task): the
    // summary told them apart by nothing but their figures.
    SurveyResult survey;
    SurveyTrace trace;
    trace.relation = Relation::SharedL3;
    trace.cpus = { 0, 1 };
    trace.summary.handovers = 100;
    trace.summary.segments = { { "wake call", "sys_enter", "sched_waking", false, 500, 600, 520, 100 },
        { "switch-in", "cpu_idle_exit", "sched_switch", true, 9000, 9500, 9100, 60 },
        { "switch-in", "sched_waking", "sched_switch", true, 4000, 4500, 4100, 40 } };
    survey.traces.push_back(trace);
    const std::vector<std::string> lines = surveyFigureLines(survey);
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_NE(lines[0].find("wake call 500 ns; switch-in (cpu_idle_exit -> sched_switch) 9 µs; switch-in "
                            "(sched_waking -> sched_switch) 4 µs."),
        std::string::npos)
        << lines[0];
}
