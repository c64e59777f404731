// SPDX-License-Identifier: MIT
// Parts of a survey run on this machine: spin's line reports its NUMA node and its first
// toucher (threads, and processes whose page the runner reads back), the traced segments per
// class where this process may trace (CI runs as root), and the plan's refusal where it may not.
#include "ctxscope/machine_compare.h"
#include "ctxscope/results_file.h"
#include "ctxscope/runner.h"
#include "ctxscope/survey.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/units.h"

#include "live_topology_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace ctxscope;

namespace {

class SurveyLive : public test::LiveTopologyTest {
protected:
    // The live plan cut down to the steps `keep` takes, with short repetitions.
    static SurveyPlan planWith(const std::function<bool(const SurveyStep&)>& keep)
    {
        auto plan = planSurvey(*s_topology, kSurveySeconds);
        EXPECT_TRUE(plan) << plan.error().message;
        std::vector<SurveyStep> steps;
        for (SurveyStep s : plan->steps)
            if (keep(s)) {
                s.spec.minTimeSeconds = 0.02;
                steps.push_back(std::move(s));
            }
        plan->steps = std::move(steps);
        plan->skipped.clear();
        plan->minTimeSeconds = 0.02;
        return *plan;
    }
};

// The NUMA node hwloc gives a CPU; -1 when unknown.
int nodeOf(const Topology& t, int cpu)
{
    const PuInfo* pu = t.findPu(cpu);
    return pu ? pu->numaNode : -1;
}

void expectLine(const RunResult& r, const Topology& t)
{
    ASSERT_TRUE(r.line) << r.bench << " on " << r.placement.cpus.size() << " CPUs has no line";
    EXPECT_EQ(r.line->firstTask, 0);
    ASSERT_FALSE(r.placement.cpus.empty());
    EXPECT_EQ(r.line->firstCpu, r.placement.cpus[0]);
    if (!r.line->node && r.line->nodeError.find("no NUMA support") != std::string::npos)
        GTEST_SKIP() << r.line->nodeError;
    ASSERT_TRUE(r.line->node) << r.line->nodeError;
    // First-touch placement: the page is on the node of the CPU that touched it.
    if (const int node = nodeOf(t, r.line->firstCpu); node >= 0) {
        EXPECT_EQ(*r.line->node, node);
    }
    if (r.line->nodeAtTouch) { // none where move_pages is refused (numa_maps told the node)
        EXPECT_EQ(r.line->nodeAtTouch, r.line->node);
    }
    ASSERT_EQ(r.line->taskNodes.size(), r.placement.cpus.size());
}

} // namespace

TEST_F(SurveyLive, SpinLinesReportANodeAndTheFirstToucher)
{
    const SurveyPlan plan = planWith([](const SurveyStep& s) { return s.spec.bench == "spin"; });
    if (plan.steps.empty())
        GTEST_SKIP() << "one allowed PU: the survey runs no spin";
    const auto survey = runSurvey(plan, *s_topology);
    ASSERT_TRUE(survey) << survey.error().message;
    ASSERT_EQ(survey->results.size(), plan.steps.size())
        << (survey->skipped.empty() ? std::string() : survey->skipped.front().why);
    for (const RunResult& r : survey->results)
        expectLine(r, *s_topology);
    const auto lines = surveyFigureLines(*survey);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
        return l.find("first touched by task 0 on CPU " + std::to_string(survey->results[0].placement.cpus[0]))
            != std::string::npos
            && l.find("line on node") != std::string::npos;
    })) << (lines.empty() ? std::string("no lines") : lines.front());
}

TEST_F(SurveyLive, ASpinLineTouchedByAForkedTaskIsReadBackByTheRunner)
{
    const auto pairs = representativePairs(*s_topology, 1);
    const auto cross
        = std::find_if(pairs.begin(), pairs.end(), [](const PuPair& p) { return p.relation != Relation::SamePu; });
    if (cross == pairs.end())
        GTEST_SKIP() << "one allowed PU";
    BenchSpec spec;
    spec.bench = "spin";
    spec.mode = BenchMode::Process;
    spec.cpus = { cross->b, cross->a }; // task 0 on the pair's second CPU
    spec.iterations = 20000;
    spec.repetitions = 1;
    auto r = runBenchmark(spec, *s_topology);
    ASSERT_TRUE(r) << r.error().message;
    expectLine(*r, *s_topology);
    // The line survives the results file.
    auto back = resultFromJson(resultToJson(*r));
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_TRUE(back->line);
    EXPECT_EQ(back->line->firstCpu, cross->b);
    EXPECT_EQ(back->line->node, r->line->node);
    EXPECT_EQ(back->line->taskNodes, r->line->taskNodes);
}

TEST_F(SurveyLive, TracedSegmentsPerClassWhereTracingIsAllowed)
{
    if (Status allowed = tracingAllowed(); !allowed)
        GTEST_SKIP() << allowed.error().message;
    // The futex thread run on one PU, and its traced run.
    const SurveyPlan plan = planWith([](const SurveyStep& s) {
        return s.spec.bench == "futex" && s.spec.mode == BenchMode::Thread && s.relation == Relation::SamePu
            && s.spec.wsBytes == 0;
    });
    ASSERT_EQ(plan.steps.size(), 2U);
    ASSERT_EQ(plan.steps[1].kind, SurveyStepKind::Traced);
    const auto survey = runSurvey(plan, *s_topology);
    ASSERT_TRUE(survey) << survey.error().message;
    ASSERT_EQ(survey->traces.size(), 1U) << (survey->skipped.empty() ? "" : survey->skipped.front().why);
    const SurveyTrace& t = survey->traces.front();
    EXPECT_EQ(t.relation, Relation::SamePu);
    EXPECT_GT(t.summary.handovers, 0U);
    ASSERT_FALSE(t.summary.segments.empty());
    EXPECT_EQ(survey->results.size(), 1U); // the traced run adds segments, not a row
    const auto lines = surveyFigureLines(*survey);
    EXPECT_TRUE(std::any_of(
        lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("hand-over segments, same-pu"); }));
    // In a card, and compared: the segments by class, the same on both sides.
    nlohmann::json doc
        = makeReport(makeContext(readSysInfo(), *s_topology, measurementClock()), survey->results, false);
    doc["survey"] = surveyToJson(*survey);
    EXPECT_EQ(doc["survey"]["traced"][0]["relation"], "same-pu");
    auto card = machineCardFromText(doc.dump(), "/tmp/here.json");
    ASSERT_TRUE(card) << card.error().message;
    ASSERT_EQ(card->traces.size(), 1U);
    const auto c = compareMachines({ *card, *card }, 0);
    ASSERT_TRUE(c);
    const auto segment = std::find_if(c->figures.begin(), c->figures.end(), [&](const MachineFigure& f) {
        return f.what.starts_with("segment " + t.summary.segments.front().name + " (");
    });
    ASSERT_NE(segment, c->figures.end());
    EXPECT_EQ(segment->relation, Relation::SamePu);
    EXPECT_EQ(segment->values[0], segment->values[1]);
}

TEST_F(SurveyLive, TheFarthestClassKeptAwakeIsAnABAgainstThePairAsIs)
{
    // The farthest pair's futex thread run as is, kept awake, and (where allowed) traced kept awake.
    const auto full = planSurvey(*s_topology, kSurveySeconds);
    ASSERT_TRUE(full) << full.error().message;
    const auto kept = std::find_if(
        full->steps.begin(), full->steps.end(), [](const SurveyStep& s) { return !s.spec.keepAwakeCpus.empty(); });
    if (kept == full->steps.end())
        GTEST_SKIP() << "one allowed PU: nothing to keep awake";
    const std::vector<int> cpus = kept->spec.cpus;
    const SurveyPlan plan = planWith([&](const SurveyStep& s) {
        return s.spec.bench == "futex" && s.spec.mode == BenchMode::Thread && s.spec.cpus == cpus && s.spec.wsBytes == 0
            && (s.kind == SurveyStepKind::Run || !s.spec.keepAwakeCpus.empty());
    });
    const bool tracing = static_cast<bool>(tracingAllowed());
    ASSERT_EQ(plan.steps.size(), tracing ? 3U : 2U);
    const auto survey = runSurvey(plan, *s_topology);
    ASSERT_TRUE(survey) << survey.error().message;
    ASSERT_EQ(survey->results.size(), 2U) << (survey->skipped.empty() ? "" : survey->skipped.front().why);
    EXPECT_TRUE(survey->results[0].spec.keepAwakeCpus.empty());
    EXPECT_EQ(survey->results[1].spec.keepAwakeCpus, cpus);
    EXPECT_EQ(survey->results[1].keepAwakeTasks.size(), cpus.size());
    // The A/B in the summary: the condition's sentence, both medians.
    const auto lines = surveyFigureLines(*survey);
    const auto ab = std::find_if(lines.begin(), lines.end(),
        [](const std::string& l) { return l.starts_with("futex thread, ") && l.find("With keep-awake ") != l.npos; });
    ASSERT_NE(ab, lines.end()) << (lines.empty() ? std::string("no lines") : lines.front());
    EXPECT_NE(ab->find(formatDuration(survey->results[0].stats.p50)), std::string::npos) << *ab;
    if (!tracing)
        return;
    ASSERT_EQ(survey->traces.size(), 1U) << (survey->skipped.empty() ? "" : survey->skipped.front().why);
    EXPECT_EQ(survey->traces[0].keepAwakeCpus, cpus);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
        return l.starts_with("hand-over segments, ") && l.find(", kept awake (CPUs ") != l.npos;
    }));
    // The card keeps the condition, and compare lists the kept-awake segments apart from as is.
    nlohmann::json doc
        = makeReport(makeContext(readSysInfo(), *s_topology, measurementClock()), survey->results, false);
    doc["survey"] = surveyToJson(*survey);
    EXPECT_EQ(doc["survey"]["traced"][0]["keep_awake_cpus"], cpus);
    auto card = machineCardFromText(doc.dump(), "/tmp/here.json");
    ASSERT_TRUE(card) << card.error().message;
    ASSERT_EQ(card->traces.size(), 1U);
    EXPECT_EQ(card->traces[0].keepAwakeCpus, cpus);
    const auto c = compareMachines({ *card, *card }, 0);
    ASSERT_TRUE(c);
    EXPECT_TRUE(std::any_of(c->figures.begin(), c->figures.end(),
        [](const MachineFigure& f) { return f.what.starts_with("kept awake, segment "); }));
    EXPECT_TRUE(std::none_of(
        c->figures.begin(), c->figures.end(), [](const MachineFigure& f) { return f.what.starts_with("segment "); }));
}

TEST_F(SurveyLive, ThePlanFollowsThisProcesssTracingPrivilege)
{
    const auto plan = planSurvey(*s_topology, kSurveySeconds);
    ASSERT_TRUE(plan) << plan.error().message;
    const bool traced = std::any_of(
        plan->steps.begin(), plan->steps.end(), [](const SurveyStep& s) { return s.kind == SurveyStepKind::Traced; });
    const auto skip = std::find_if(plan->skipped.begin(), plan->skipped.end(),
        [](const SurveySkip& s) { return s.what == "the hand-over's traced segments per class"; });
    if (Status allowed = tracingAllowed(); allowed) {
        EXPECT_TRUE(traced);
        EXPECT_EQ(skip, plan->skipped.end());
    } else {
        EXPECT_FALSE(traced);
        ASSERT_NE(skip, plan->skipped.end());
        EXPECT_EQ(skip->why, allowed.error().message);
    }
}
