// SPDX-License-Identifier: MIT
// The survey's plan (ctxscope/survey.h) on synthetic machines: one pair per relation class
// however large the machine, the suite's order, the budget shortening the runs and then
// leaving runs out (each named with its reason, the largest working sets first), the knee's
// sizes capped by the last-level cache and the memory, and tracing planned or refused.
#include "ctxscope/survey.h"
#include "ctxscope/units.h"
#include "sizes.h"
#include "topology_test_support.h"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>

using namespace ctxscope;

namespace {

using test::synthetic;

// Runs of a benchmark with no working set (the knee's runs and the traced runs apart).
int countOf(const SurveyPlan& p, const std::string& bench)
{
    return static_cast<int>(std::count_if(p.steps.begin(), p.steps.end(), [&](const SurveyStep& s) {
        return s.spec.bench == bench && s.kind == SurveyStepKind::Run && s.spec.wsBytes == 0;
    }));
}

int tracedCount(const SurveyPlan& p)
{
    return static_cast<int>(std::count_if(
        p.steps.begin(), p.steps.end(), [](const SurveyStep& s) { return s.kind == SurveyStepKind::Traced; }));
}

// A machine that may trace and has 64 GiB available.
SurveyConditions roomy() { return { "", std::uint64_t { 64 } << 30 }; }

using test::kKiB;
using test::kMiB;

} // namespace

TEST(SurveyPlan, ALargeMachineGetsOnePairPerClassNotAllPairs)
{
    // 2 NUMA packages x 2 L3 x 8 cores x 2 PUs: 64 PUs, 2080 pairs; classes same-pu, smt,
    // shared-l3, same-package, cross-numa.
    const auto plan = planSurvey(synthetic("pack:2 [numa] l3:2 core:8 pu:2"), kSurveySeconds, roomy());
    ASSERT_TRUE(plan) << plan.error().message;
    std::set<Relation> classes;
    for (const PuPair& p : plan->pairs)
        EXPECT_TRUE(classes.insert(p.relation).second) << "two pairs of " << toString(p.relation);
    EXPECT_EQ(plan->pairs.size(), 5U);
    EXPECT_TRUE(classes.contains(Relation::CrossNuma));
    const int crossClasses = static_cast<int>(plan->pairs.size()) - 1;
    const auto cross = static_cast<std::size_t>(crossClasses);
    // futex and pipe, thread and process: on one PU, per class, unpinned; futex thread on the
    // farthest class kept awake; spin per class.
    EXPECT_EQ(countOf(*plan, "futex"), 2 * (1 + crossClasses + 1) + 1);
    EXPECT_EQ(countOf(*plan, "pipe"), 2 * (1 + crossClasses + 1));
    EXPECT_EQ(countOf(*plan, "spin"), crossClasses);
    // One traced futex run per class, one PU included, each on its class's pair; and the farthest
    // class's kept awake.
    EXPECT_EQ(tracedCount(*plan), crossClasses + 1 + 1);
    for (const SurveyStep& s : plan->steps)
        if (s.kind == SurveyStepKind::Traced) {
            const auto pair = std::find_if(
                plan->pairs.begin(), plan->pairs.end(), [&](const PuPair& p) { return p.relation == s.relation; });
            ASSERT_NE(pair, plan->pairs.end());
            EXPECT_EQ(s.spec.cpus, (std::vector<int> { pair->a, pair->b }));
            EXPECT_EQ(s.spec.bench, "futex");
        }
    // The knee: a round trip and a touch run per working set, all on the one PU.
    const std::size_t knee = 2 * plan->wsSizes.size();
    EXPECT_GT(plan->wsSizes.size(), 0U);
    EXPECT_EQ(plan->steps.size(), 3U + 4U * (2U + cross) + 1U + cross + (cross + 1 + 1) + knee);
    EXPECT_LE(plan->estimateSeconds, plan->budgetSeconds);
    EXPECT_DOUBLE_EQ(plan->budgetSeconds, kSurveySeconds);
}

TEST(SurveyPlan, RunsInTheDocumentedOrder)
{
    const auto plan = planSurvey(synthetic("pack:1 l3:1(size=8MiB) core:2 pu:2"), kSurveySeconds, roomy());
    ASSERT_TRUE(plan);
    std::vector<std::string> labels;
    for (const SurveyStep& s : plan->steps)
        labels.push_back(s.label);
    ASSERT_GE(labels.size(), 7U);
    EXPECT_EQ(labels[0], "syscall, one PU (CPU 0)");
    EXPECT_EQ(labels[1], "vdso, one PU (CPU 0)");
    EXPECT_EQ(labels[2], "coro-fcontext, one PU (CPU 0)");
    EXPECT_EQ(labels[3], "futex thread, one PU (CPU 0)");
    EXPECT_EQ(plan->steps[3].spec.cpus, (std::vector<int> { 0, 0 }));
    // Then spin per class, the traced runs per class, and the knee's pairs of runs, smallest W first.
    const auto firstTraced = std::find_if(
        plan->steps.begin(), plan->steps.end(), [](const SurveyStep& s) { return s.kind == SurveyStepKind::Traced; });
    ASSERT_NE(firstTraced, plan->steps.end());
    EXPECT_EQ(std::prev(firstTraced)->spec.bench, "spin");
    EXPECT_EQ(firstTraced->label, "futex thread traced, one PU (CPU 0)");
    const auto firstKnee
        = std::find_if(plan->steps.begin(), plan->steps.end(), [](const SurveyStep& s) { return s.spec.wsBytes > 0; });
    ASSERT_NE(firstKnee, plan->steps.end());
    EXPECT_EQ(std::prev(firstKnee)->kind, SurveyStepKind::Traced);
    EXPECT_EQ(firstKnee->label, "futex thread, one PU (CPU 0), W = 4 KiB per task");
    EXPECT_EQ(firstKnee->spec.cpus, (std::vector<int> { 0, 0 }));
    EXPECT_EQ(std::next(firstKnee)->label, "touch, one PU (CPU 0), W = 4 KiB");
    EXPECT_EQ(std::next(firstKnee)->spec.cpus, (std::vector<int> { 0 }));
    EXPECT_EQ(plan->steps.back().spec.bench, "touch");
    EXPECT_EQ(plan->steps.back().spec.wsBytes, 16 * kMiB);
    const auto unpinned = std::find_if(
        plan->steps.begin(), plan->steps.end(), [](const SurveyStep& s) { return s.relation == Relation::Unpinned; });
    ASSERT_NE(unpinned, plan->steps.end());
    EXPECT_TRUE(unpinned->spec.cpus.empty());
    EXPECT_EQ(unpinned->spec.relation, Relation::Unpinned);
}

TEST(SurveyPlan, AShortBudgetShortensRunsThenLeavesTheLastOut)
{
    const Topology t = synthetic("pack:2 [numa] l3:2 core:8 pu:2");
    const auto wide = planSurvey(t, 3000, roomy());
    ASSERT_TRUE(wide);
    EXPECT_DOUBLE_EQ(wide->minTimeSeconds, kSurveyMinTimeSeconds);
    const auto tight = planSurvey(t, 5, roomy());
    ASSERT_TRUE(tight);
    EXPECT_DOUBLE_EQ(tight->minTimeSeconds, kSurveyFloorMinTimeSeconds);
    EXPECT_LE(tight->estimateSeconds, 5.0);
    EXPECT_LT(tight->steps.size(), wide->steps.size());
    // The first runs stay; what is left out is named, with the budget as the reason.
    EXPECT_EQ(tight->steps.front().spec.bench, "syscall");
    const std::size_t over
        = static_cast<std::size_t>(std::count_if(tight->skipped.begin(), tight->skipped.end(), [](const SurveySkip& s) {
              return s.why.starts_with("over the budget of 5 s")
                  || s.why == "a smaller working set was already over the budget";
          }));
    EXPECT_EQ(over, wide->steps.size() - tight->steps.size());
}

TEST(SurveyPlan, TheBudgetLeavesOutTheLargestWorkingSetsFirst)
{
    // 2 PUs under a 32 MiB L3: the knee's sizes run to 64 MiB, 8 of them.
    const Topology t = synthetic("pack:1 l3:1(size=32MiB) core:2 pu:1");
    const auto all = surveyWorkingSets(t, std::uint64_t { 64 } << 30);
    ASSERT_EQ(all.size(), 8U);
    std::size_t before = 0;
    bool cutPartly = false;
    for (double budget : { 10.0, 12.0, 14.0, 16.0, 20.0, 40.0 }) {
        const auto plan = planSurvey(t, budget, roomy());
        ASSERT_TRUE(plan);
        EXPECT_LE(plan->estimateSeconds, budget);
        // A prefix of the sizes: the smallest stay, the largest go, each named.
        ASSERT_LE(plan->wsSizes.size(), all.size());
        EXPECT_TRUE(std::equal(plan->wsSizes.begin(), plan->wsSizes.end(), all.begin())) << budget;
        for (std::size_t i = plan->wsSizes.size(); i < all.size(); ++i) {
            const std::string label = "touch, one PU (CPU 0), W = " + formatBytes(all[i]);
            EXPECT_TRUE(std::any_of(
                plan->skipped.begin(), plan->skipped.end(), [&](const SurveySkip& s) { return s.what == label; }))
                << label << " is not listed as skipped with a budget of " << budget;
        }
        EXPECT_GE(plan->wsSizes.size(), before) << "a larger budget ran fewer working sets";
        before = plan->wsSizes.size();
        cutPartly = cutPartly || (!plan->wsSizes.empty() && plan->wsSizes.size() < all.size());
        // The runs before the knee come first: spin on the one cross pair is there.
        EXPECT_EQ(countOf(*plan, "spin"), 1) << budget;
    }
    EXPECT_TRUE(cutPartly) << "no budget kept some working sets and left out larger ones";
    EXPECT_EQ(before, all.size()) << "40 s does not run every working set";
}

TEST(SurveyPlan, KneeSizesRunToTwiceTheLastLevelCache)
{
    const std::uint64_t plenty = std::uint64_t { 64 } << 30;
    std::string note;
    // 8 MiB: 4 KiB x4 up to 16 MiB exactly.
    EXPECT_EQ(surveyWorkingSets(synthetic("pack:1 l3:1(size=8MiB) l2:2(size=1MiB) core:1 pu:2"), plenty, &note),
        (std::vector<std::uint64_t> { 4 * kKiB, 16 * kKiB, 64 * kKiB, 256 * kKiB, kMiB, 4 * kMiB, 16 * kMiB }));
    EXPECT_EQ(note, "");
    // 12 MiB: the powers of 4 below 24 MiB, then 24 MiB itself.
    const auto twelve = surveyWorkingSets(synthetic("pack:1 l3:1(size=12MiB) core:2 pu:1"), plenty);
    ASSERT_FALSE(twelve.empty());
    EXPECT_EQ(twelve.back(), 24 * kMiB);
    EXPECT_EQ(twelve[twelve.size() - 2], 16 * kMiB);
    // A VM's 508 MB "per vCPU" is not plausible: the sizes end at kSurveyMaxWsBytes, said so.
    const auto vm = surveyWorkingSets(
        synthetic("pack:1 l3:2(size=532676608) l2:1(size=2097152) l1d:1(size=49152) core:1 pu:1"), plenty, &note);
    EXPECT_EQ(vm.back(), kSurveyMaxWsBytes);
    EXPECT_NE(note.find("not plausible"), std::string::npos) << note;
    // Little memory: two tasks' buffers within a quarter of it (64 MiB: 8 MiB per task).
    const auto small = surveyWorkingSets(synthetic("pack:1 l3:1(size=32MiB) core:2 pu:1"), 64 * kMiB, &note);
    EXPECT_EQ(small.back(), 8 * kMiB);
    EXPECT_NE(note.find("a quarter of the 64 MiB"), std::string::npos) << note;
    // The plan runs them all when the budget allows.
    const auto plan = planSurvey(synthetic("pack:1 l3:1(size=8MiB) core:2 pu:1"), 3000, roomy());
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->wsSizes.size(), 7U);
    EXPECT_EQ(plan->lastLevelCache, 8 * kMiB);
}

TEST(SurveyPlan, TracingRefusedIsSkippedWithTheEnginesSentence)
{
    const Topology t = synthetic("pack:1 l3:1 core:2 pu:2");
    const std::string refusal = "tracing needs root, or a tracefs mounted with a group this user is in";
    const auto plan = planSurvey(t, kSurveySeconds, SurveyConditions { refusal, std::uint64_t { 1 } << 30 });
    ASSERT_TRUE(plan);
    EXPECT_EQ(tracedCount(*plan), 0);
    const auto skip = std::find_if(plan->skipped.begin(), plan->skipped.end(),
        [](const SurveySkip& s) { return s.what == "the hand-over's traced segments per class"; });
    ASSERT_NE(skip, plan->skipped.end());
    EXPECT_EQ(skip->why, refusal);
    // Allowed: one traced run per class (same-pu, smt, shared-l3 here), and the farthest kept awake.
    const auto allowed = planSurvey(t, kSurveySeconds, roomy());
    ASSERT_TRUE(allowed);
    EXPECT_EQ(tracedCount(*allowed), static_cast<int>(allowed->pairs.size()) + 1);
    EXPECT_TRUE(std::none_of(allowed->skipped.begin(), allowed->skipped.end(),
        [](const SurveySkip& s) { return s.what == "the hand-over's traced segments per class"; }));
}

TEST(SurveyPlan, TheFarthestClassIsAlsoMeasuredKeptAwakeUntracedAndTraced)
{
    // 2 packages x 2 cores x 2 PUs: the farthest class is cross-package.
    const auto plan = planSurvey(synthetic("pack:2 core:2 pu:2"), kSurveySeconds, roomy());
    ASSERT_TRUE(plan);
    const PuPair farthest = plan->pairs.back();
    ASSERT_NE(farthest.relation, Relation::SamePu);
    std::vector<const SurveyStep*> kept;
    for (const SurveyStep& s : plan->steps)
        if (!s.spec.keepAwakeCpus.empty())
            kept.push_back(&s);
    ASSERT_EQ(kept.size(), 2U);
    for (const SurveyStep* s : kept) {
        EXPECT_EQ(s->spec.bench, "futex");
        EXPECT_EQ(s->spec.mode, BenchMode::Thread);
        EXPECT_EQ(s->relation, farthest.relation);
        EXPECT_EQ(s->spec.cpus, (std::vector<int> { farthest.a, farthest.b }));
        EXPECT_EQ(s->spec.keepAwakeCpus, s->spec.cpus);
        EXPECT_EQ(s->spec.wsBytes, 0U);
    }
    EXPECT_EQ(kept[0]->kind, SurveyStepKind::Run);
    EXPECT_EQ(kept[1]->kind, SurveyStepKind::Traced);
    EXPECT_EQ(kept[0]->label,
        fmt::format(
            "futex thread kept awake, {} pair (CPUs {},{})", toString(farthest.relation), farthest.a, farthest.b));
    EXPECT_EQ(kept[1]->label,
        fmt::format("futex thread traced kept awake, {} pair (CPUs {},{})", toString(farthest.relation), farthest.a,
            farthest.b));
    // The kept-awake run comes after the pair's run as is, which its A/B is against.
    const auto asIs = std::find_if(plan->steps.begin(), plan->steps.end(), [&](const SurveyStep& s) {
        return s.spec.bench == "futex" && s.spec.mode == BenchMode::Thread && s.spec.cpus == kept[0]->spec.cpus
            && s.spec.keepAwakeCpus.empty() && s.kind == SurveyStepKind::Run;
    });
    ASSERT_NE(asIs, plan->steps.end());
    EXPECT_LT(&*asIs, kept[0]);
    // Without tracing, only the untraced one; with one PU, neither.
    const auto untraced = planSurvey(synthetic("pack:2 core:2 pu:2"), kSurveySeconds,
        SurveyConditions { "tracing is not allowed here", std::uint64_t { 64 } << 30 });
    ASSERT_TRUE(untraced);
    EXPECT_EQ(std::count_if(untraced->steps.begin(), untraced->steps.end(),
                  [](const SurveyStep& s) { return !s.spec.keepAwakeCpus.empty(); }),
        1);
    const auto single = planSurvey(synthetic("pack:1 core:1 pu:1"), kSurveySeconds, roomy());
    ASSERT_TRUE(single);
    EXPECT_TRUE(std::none_of(
        single->steps.begin(), single->steps.end(), [](const SurveyStep& s) { return !s.spec.keepAwakeCpus.empty(); }));
}

TEST(SurveyPlan, VersionTwoLeavesNothingOutOnARoomyMachine)
{
    const auto plan = planSurvey(synthetic("pack:1 l3:1(size=8MiB) core:2 pu:2"), 3000, roomy());
    ASSERT_TRUE(plan);
    EXPECT_TRUE(plan->skipped.empty()) << plan->skipped.front().what << ": " << plan->skipped.front().why;
    EXPECT_EQ(kSurveyVersion, 2);
    EXPECT_FALSE(planSurvey(synthetic("pack:1 core:2 pu:1"), 0.5));
    EXPECT_FALSE(planSurvey(synthetic("pack:1 core:2 pu:1"), 1e9));
}

TEST(SurveyPlan, RefusesToRunOnATopologyThatIsNotThisMachine)
{
    const Topology t = synthetic("pack:1 core:2 pu:1");
    const auto plan = planSurvey(t, 5);
    ASSERT_TRUE(plan);
    const auto ran = runSurvey(*plan, t);
    ASSERT_FALSE(ran);
    EXPECT_NE(ran.error().message.find("this machine's own topology"), std::string::npos);
}
