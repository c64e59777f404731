// SPDX-License-Identifier: MIT
// The run conditions (BenchSpec::keepAwakeCpus, pmQosUs): the keep-awake threads run SCHED_IDLE
// on their CPUs for the run, their time is reported and never counted as other tasks', they end
// on every way out of the run (a stop request included), bad input is refused before anything
// runs, and the result carries its condition through JSON; the A/B weighs it as lessons do.
#include "ctxscope/lesson.h"
#include "ctxscope/results_file.h"
#include "ctxscope/runner.h"
#include "ctxscope/value_json.h"

#include "background_run.h"
#include "proc_helpers.h"
#include "sample_result.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fstream>
#include <sched.h>
#include <string>

using namespace ctxscope;
using namespace std::chrono_literals;

namespace {

// This process's threads named as the keep-awake threads are.
int keepAwakeThreads()
{
    int n = 0;
    DIR* d = ::opendir("/proc/self/task");
    if (d == nullptr)
        return -1;
    while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/comm");
        std::string comm;
        std::getline(in, comm);
        n += comm == "ctxscope-awake";
    }
    ::closedir(d);
    return n;
}

BenchSpec futexAcross()
{
    const auto pus = test::liveTopology().allowedPus();
    BenchSpec s;
    s.bench = "futex";
    s.cpus = { pus.front(), pus.back() };
    s.iterations = 2000;
    s.repetitions = 2;
    s.keepAwakeCpus = { pus.back() };
    return s;
}

} // namespace

TEST(Conditions, KeepAwakeThreadsRunForTheRunAndAreReportedNotCountedAsInterference)
{
    const BenchSpec spec = futexAcross();
    auto r = runBenchmark(spec, test::liveTopology());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->keepAwakeTasks.size(), 1U);
    EXPECT_GT(r->keepAwakeCpuNs, 0); // it polled whenever the CPU had nothing else to run
    EXPECT_EQ(r->spec.keepAwakeCpus, spec.keepAwakeCpus);
    EXPECT_EQ(keepAwakeThreads(), 0); // gone with the run
    if (r->interference)
        for (const auto& t : r->interference->topTasks) {
            EXPECT_NE(t.comm, "ctxscope-awake") << "the keep-awake thread counted as another task";
            EXPECT_NE(t.tid, r->keepAwakeTasks.front());
        }
    // The condition goes into the result's JSON and comes back.
    const auto back = resultFromJson(resultToJson(*r, false));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->spec.keepAwakeCpus, spec.keepAwakeCpus);
    EXPECT_EQ(back->keepAwakeTasks, r->keepAwakeTasks);
    EXPECT_EQ(conditionText(back->spec), "keep-awake " + std::to_string(spec.keepAwakeCpus.front()));
    EXPECT_NE(resultToJson(*r, false).dump().find("keep_awake:"), std::string::npos); // in its name too
}

TEST(Conditions, AStopRequestMidRunLeavesNoKeepAwakeThread)
{
    BenchSpec spec = test::longRun("futex", BenchMode::Thread);
    spec.keepAwakeCpus = { test::liveTopology().allowedPus().back() };
    test::BackgroundRun run(spec);
    ASSERT_TRUE(run.waitUntilMeasuring(10s));
    EXPECT_EQ(keepAwakeThreads(), 1);
    run.stop();
    EXPECT_EQ(keepAwakeThreads(), 0);
}

TEST(Conditions, BadConditionsAreRefusedBeforeAnythingRuns)
{
    BenchSpec spec = futexAcross();
    spec.keepAwakeCpus = { 4096 };
    auto r = checkSpec(spec, test::liveTopology());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("--keep-awake CPU 4096 is not one this process may run on"), std::string::npos)
        << r.error().message;
    spec.keepAwakeCpus = { spec.cpus[0], spec.cpus[0] };
    EXPECT_FALSE(checkSpec(spec, test::liveTopology()).ok());
    spec.keepAwakeCpus.clear();
    spec.pmQosUs = -1;
    r = checkSpec(spec, test::liveTopology());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("--pm-qos-us takes 0 to"), std::string::npos) << r.error().message;
    EXPECT_EQ(keepAwakeThreads(), 0);
}

// The A/B of a condition is the lessons' comparison: a clear difference matters, with its interval.
TEST(Conditions, TheAbWeighsTheConditionAsTheLessonsDo)
{
    RunResult asIs = test::sampleResult();
    RunResult awake = test::sampleResult();
    awake.spec.keepAwakeCpus = { 1 };
    for (double& v : awake.samples)
        v *= 0.4;
    for (double& v : awake.repetitionMedians)
        v *= 0.4;
    awake.stats.p50 *= 0.4;
    const ConditionAb ab = compareCondition(asIs, awake);
    EXPECT_EQ(ab.condition, "keep-awake 1");
    EXPECT_NEAR(ab.ratio, 0.4, 0.01);
    EXPECT_LE(ab.low, ab.ratio);
    EXPECT_GE(ab.high, ab.ratio);
    EXPECT_EQ(ab.verdict, "matters");
    EXPECT_NE(ab.sentence.find("With keep-awake 1, the"), std::string::npos) << ab.sentence;
    EXPECT_NE(ab.sentence.find(" as long: it matters. With it "), std::string::npos) << ab.sentence;
    EXPECT_NE(ab.sentence.find(" median ("), std::string::npos) << ab.sentence;
    // One level of parentheses: each median's runs, never a median inside another's.
    int depth = 0;
    for (const char ch : ab.sentence) {
        depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
        EXPECT_LE(depth, 1) << ab.sentence;
    }
    EXPECT_EQ(depth, 0) << ab.sentence;
    const ConditionAb same = compareCondition(asIs, asIs);
    EXPECT_EQ(same.verdict, "the same") << same.sentence;
}
