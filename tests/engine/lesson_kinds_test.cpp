// SPDX-License-Identifier: MIT
// The pinning lesson on hybrid machines: its plan holds the kind pairs of the Alder-Lake-like
// fixture, and its conclusion says whether the kind of core matters, from synthetic results
// only (lesson_synthetic.h): E-cores clearly slower, the same, too noisy, one PU of each kind
// only, and a machine with one kind (no sentence about kinds at all).
#include "lesson/kinds.h"
#include "lesson_synthetic.h"
#include "topology_test_support.h"

#include "ctxscope/lesson.h"
#include "ctxscope/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace ctxscope;
using namespace ctxscope::lesson;
using test::anyContains;
using test::synthRun;

namespace {

const std::string kSep(kKindPairSeparator);

RunResult futexOn(
    std::vector<int> cpus, Relation relation, std::string kinds, std::vector<double> reps, double jitter = 0.01)
{
    RunResult r = synthRun("futex", BenchMode::Thread, std::move(cpus), relation, std::move(reps), jitter);
    r.placement.kinds = std::move(kinds);
    return r;
}

// Alder-Lake-like runs: the E-cores' shared-l3 pair costs eScale times the P-cores', its
// repetitions `spread` apart either way (its samples as far).
std::vector<RunResult> hybridResults(double eScale, double spread = 0)
{
    return { futexOn({ 0, 0 }, Relation::SamePu, "P", { 2000, 2010, 2020 }),
        futexOn({ 12, 12 }, Relation::SamePu, "E", { 2600, 2610, 2620 }),
        futexOn({ 0, 1 }, Relation::Smt, "P" + kSep + "P", { 3000, 3010, 3020 }),
        futexOn({ 12, 13 }, Relation::SharedL2, "E" + kSep + "E", { 4000, 4010, 4020 }),
        futexOn({ 0, 2 }, Relation::SharedL3, "P" + kSep + "P", { 5000, 5010, 5020 }),
        futexOn({ 0, 12 }, Relation::SharedL3, "P" + kSep + "E", { 6000, 6010, 6020 }),
        futexOn({ 12, 16 }, Relation::SharedL3, "E" + kSep + "E",
            { 5000 * eScale * (1 - spread), 5010 * eScale, 5020 * eScale * (1 + spread) }, std::max(0.01, spread)),
        synthRun("futex", BenchMode::Thread, {}, Relation::Unpinned, { 5000, 5100, 6000 }) };
}

} // namespace

TEST(LessonKinds, PinningPlansTheKindPairsOfAHybridMachine)
{
    auto machine = Topology::loadXmlFile(test::fixture("good/hybrid-alder-lake-6p8e.xml"));
    ASSERT_TRUE(machine) << machine.error().message;
    auto plan = planLesson("pinning", *machine, {}, PlanTopology::WorkersHello);
    ASSERT_TRUE(plan) << plan.error().message;
    std::set<std::string> labels;
    for (const LessonStep& s : *plan)
        labels.insert(s.label.substr(0, s.label.find(" (")));
    for (const std::string& want : std::vector<std::string> { "futex threads, same-pu, P", "futex threads, same-pu, E",
             "futex threads, smt, P" + kSep + "P", "futex threads, shared-l2, E" + kSep + "E",
             "futex threads, shared-l3, P" + kSep + "P", "futex threads, shared-l3, P" + kSep + "E",
             "futex threads, shared-l3, E" + kSep + "E", "futex threads, unpinned" })
        EXPECT_TRUE(labels.contains(want)) << want;
    EXPECT_EQ(plan->size(), 8U);
}

TEST(LessonKinds, EcoresClearlySlowerIsSaidWithItsRatio)
{
    const auto results = hybridResults(1.5);
    const auto f = kindFinding(results);
    ASSERT_TRUE(f);
    // The closest class across two cores with both kinds: shared-l3 (smt and shared-l2 have one).
    EXPECT_EQ(f->base->placement.relation, Relation::SharedL3);
    EXPECT_EQ(f->baseKind, "P");
    EXPECT_EQ(f->otherKind, "E");
    EXPECT_EQ(f->comparison.verdict, Verdict::Differs);
    EXPECT_NEAR(f->comparison.ratio, 1.5, 0.02);
    const auto sentences = concludeLesson("pinning", results);
    EXPECT_TRUE(anyContains(sentences,
        "The kind of core matters here: a futex hand-over between two E-cores (CPUs 12,16 (shared-l3, E" + kSep
            + "E)) costs " + formatComparison(f->comparison) + " one between two P-cores (CPUs 0,2 (shared-l3, P" + kSep
            + "P))."))
        << ::testing::PrintToString(sentences);
    // The ranking names each placement with its kinds.
    EXPECT_TRUE(anyContains(sentences, "CPUs 0,12 (shared-l3, P" + kSep + "E): "));
}

TEST(LessonKinds, TheSameCostOnBothKindsIsSaid)
{
    const auto sentences = concludeLesson("pinning", hybridResults(1.02));
    EXPECT_TRUE(anyContains(sentences, "The kind of core does not matter here")) << ::testing::PrintToString(sentences);
}

TEST(LessonKinds, NoisyRunsConcludeNothingAboutKinds)
{
    const auto sentences = concludeLesson("pinning", hybridResults(1.1, 0.15));
    EXPECT_TRUE(anyContains(sentences, "The runs vary too much to say whether the kind of core matters"))
        << ::testing::PrintToString(sentences);
    EXPECT_FALSE(anyContains(sentences, "The kind of core matters"));
}

TEST(LessonKinds, OnePuOfEachKindWhenNoClassHasBoth)
{
    // big.LITTLE-like: E↔E and P↔P live in different classes (each cluster its L2): shared-l2.
    std::vector<RunResult> results { futexOn({ 4, 4 }, Relation::SamePu, "P", { 2000, 2010, 2020 }),
        futexOn({ 0, 0 }, Relation::SamePu, "E", { 3000, 3010, 3020 }),
        futexOn({ 0, 4 }, Relation::SamePackage, "P" + kSep + "E", { 9000, 9010, 9020 }) };
    auto f = kindFinding(results);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->base->placement.relation, Relation::SamePu);
    EXPECT_NE(kindSentence(*f).find("a futex hand-over on one E-core (CPUs 0,0 (same-pu, E)) costs"), std::string::npos)
        << kindSentence(*f);
    // A mixed pair alone says nothing about kinds.
    EXPECT_FALSE(kindFinding({ results[2] }));
}

TEST(LessonKinds, OneKindChangesNothing)
{
    // The same runs without kinds (a machine with one kind): no finding, no sentence about kinds.
    auto results = hybridResults(1.5);
    for (RunResult& r : results)
        r.placement.kinds.clear();
    EXPECT_FALSE(kindFinding(results));
    for (const std::string& s : concludeLesson("pinning", results))
        EXPECT_EQ(s.find("kind of core"), std::string::npos) << s;
}
