// SPDX-License-Identifier: MIT
// The survey's plan (ctxscope/survey.h) on synthetic machines: one pair per relation class
// however large the machine, the suite's order, the budget shortening the runs and then
// leaving runs out (each named with its reason), and the parts this version does not run.
#include "ctxscope/survey.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace ctxscope;

namespace {

Topology synthetic(const char* description)
{
    auto t = Topology::loadSynthetic(description);
    EXPECT_TRUE(t) << t.error().message;
    return *t;
}

int countOf(const SurveyPlan& p, const std::string& bench)
{
    return static_cast<int>(
        std::count_if(p.steps.begin(), p.steps.end(), [&](const SurveyStep& s) { return s.spec.bench == bench; }));
}

} // namespace

TEST(SurveyPlan, ALargeMachineGetsOnePairPerClassNotAllPairs)
{
    // 2 NUMA packages x 2 L3 x 8 cores x 2 PUs: 64 PUs, 2080 pairs; classes same-pu, smt,
    // shared-l3, same-package, cross-numa.
    const auto plan = planSurvey(synthetic("pack:2 [numa] l3:2 core:8 pu:2"));
    ASSERT_TRUE(plan) << plan.error().message;
    std::set<Relation> classes;
    for (const PuPair& p : plan->pairs)
        EXPECT_TRUE(classes.insert(p.relation).second) << "two pairs of " << toString(p.relation);
    EXPECT_EQ(plan->pairs.size(), 5U);
    EXPECT_TRUE(classes.contains(Relation::CrossNuma));
    const int crossClasses = static_cast<int>(plan->pairs.size()) - 1;
    const auto cross = static_cast<std::size_t>(crossClasses);
    // futex and pipe, thread and process: on one PU, per class, unpinned; spin per class.
    EXPECT_EQ(countOf(*plan, "futex"), 2 * (1 + crossClasses + 1));
    EXPECT_EQ(countOf(*plan, "pipe"), 2 * (1 + crossClasses + 1));
    EXPECT_EQ(countOf(*plan, "spin"), crossClasses);
    EXPECT_EQ(plan->steps.size(), 3U + 4U * (2U + cross) + cross);
    EXPECT_LE(plan->estimateSeconds, plan->budgetSeconds);
    EXPECT_DOUBLE_EQ(plan->budgetSeconds, kSurveySeconds);
}

TEST(SurveyPlan, RunsInTheDocumentedOrder)
{
    const auto plan = planSurvey(synthetic("pack:1 l3:1 core:2 pu:2"));
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
    EXPECT_EQ(plan->steps.back().spec.bench, "spin");
    const auto unpinned = std::find_if(
        plan->steps.begin(), plan->steps.end(), [](const SurveyStep& s) { return s.relation == Relation::Unpinned; });
    ASSERT_NE(unpinned, plan->steps.end());
    EXPECT_TRUE(unpinned->spec.cpus.empty());
    EXPECT_EQ(unpinned->spec.relation, Relation::Unpinned);
}

TEST(SurveyPlan, AShortBudgetShortensRunsThenLeavesTheLastOut)
{
    const Topology t = synthetic("pack:2 [numa] l3:2 core:8 pu:2");
    const auto roomy = planSurvey(t, 3000);
    ASSERT_TRUE(roomy);
    EXPECT_DOUBLE_EQ(roomy->minTimeSeconds, kSurveyMinTimeSeconds);
    const auto tight = planSurvey(t, 5);
    ASSERT_TRUE(tight);
    EXPECT_DOUBLE_EQ(tight->minTimeSeconds, kSurveyFloorMinTimeSeconds);
    EXPECT_LE(tight->estimateSeconds, 5.0);
    EXPECT_LT(tight->steps.size(), roomy->steps.size());
    // The first runs stay; what is left out is named, with the budget as the reason.
    EXPECT_EQ(tight->steps.front().spec.bench, "syscall");
    const std::size_t over = static_cast<std::size_t>(std::count_if(tight->skipped.begin(), tight->skipped.end(),
        [](const SurveySkip& s) { return s.why.starts_with("over the budget of 5 s"); }));
    EXPECT_EQ(over, roomy->steps.size() - tight->steps.size());
}

TEST(SurveyPlan, NamesWhatThisVersionDoesNotRun)
{
    const auto plan = planSurvey(synthetic("pack:1 core:2 pu:1"));
    ASSERT_TRUE(plan);
    int notInVersion = 0;
    for (const SurveySkip& s : plan->skipped)
        notInVersion += s.why.starts_with("not in this suite version") ? 1 : 0;
    EXPECT_EQ(notInVersion, 3);
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
