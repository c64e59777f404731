// SPDX-License-Identifier: MIT
// The comparison every lesson makes (lesson/verdict.h) and the unpinned mixture
// (lesson/mixture.h), on values whose answer is known.
#include "lesson/mixture.h"
#include "lesson/verdict.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::lesson;

namespace {

RunResult withMedians(Relation relation, std::vector<double> reps, std::vector<double> samples = {})
{
    RunResult r;
    r.bench = "futex";
    r.placement.relation = relation;
    r.repetitionMedians = std::move(reps);
    r.repetitions = static_cast<int>(r.repetitionMedians.size());
    r.stats.p50 = medianOf(samples.empty() ? r.repetitionMedians : samples);
    r.samples = std::move(samples);
    return r;
}

} // namespace

TEST(Verdict, MedianOfOddAndEvenCounts)
{
    EXPECT_DOUBLE_EQ(medianOf(std::vector<double> { 3, 1, 2 }), 2);
    EXPECT_DOUBLE_EQ(medianOf(std::vector<double> { 4, 1, 3, 2 }), 2.5);
    EXPECT_DOUBLE_EQ(medianOf(std::vector<double> {}), 0);
}

TEST(Verdict, ThresholdIsTenPercentEitherWay)
{
    EXPECT_EQ(verdictOf(1.11, 1.5), Verdict::Differs);
    EXPECT_EQ(verdictOf(0.5, 0.9), Verdict::Differs);
    EXPECT_EQ(verdictOf(0.95, 1.05), Verdict::Same);
    EXPECT_EQ(verdictOf(0.95, 1.2), Verdict::Unclear);
    EXPECT_EQ(verdictOf(1.05, 1.2), Verdict::Unclear);
}

TEST(Verdict, ConstantValuesGiveAPointInterval)
{
    const Comparison c = bootstrapRatio(std::vector<double> { 1, 1, 1 }, std::vector<double> { 2, 2, 2 });
    EXPECT_DOUBLE_EQ(c.ratio, 2);
    EXPECT_DOUBLE_EQ(c.low, 2);
    EXPECT_DOUBLE_EQ(c.high, 2);
    EXPECT_EQ(c.verdict, Verdict::Differs);
}

TEST(Verdict, BootstrapIntervalOfThreeRunsSpansTheirMedians)
{
    // Medians of resampled triples of b range over 100..200 while a is constant at 100.
    const Comparison c = bootstrapRatio(std::vector<double> { 100, 100, 100 }, std::vector<double> { 100, 150, 200 });
    EXPECT_DOUBLE_EQ(c.ratio, 1.5);
    EXPECT_DOUBLE_EQ(c.low, 1.0);
    EXPECT_DOUBLE_EQ(c.high, 2.0);
    EXPECT_EQ(c.verdict, Verdict::Unclear);
}

TEST(Verdict, IsDeterministic)
{
    const std::vector<double> a { 9.9, 10, 10.4, 10.1, 9.7 };
    const std::vector<double> b { 11, 12.5, 10.2, 11.9, 12.1 };
    const Comparison c1 = bootstrapRatio(a, b);
    const Comparison c2 = bootstrapRatio(a, b);
    EXPECT_EQ(c1.low, c2.low);
    EXPECT_EQ(c1.high, c2.high);
    EXPECT_LE(c1.low, c1.ratio);
    EXPECT_GE(c1.high, c1.ratio);
}

TEST(Verdict, TightPinnedRunsThreeTimesApartDiffer)
{
    const RunResult a = withMedians(Relation::SamePu, { 2990, 3000, 3010 });
    const RunResult b = withMedians(Relation::CrossPackage, { 8900, 9000, 9100 });
    const Comparison c = compare(a, b);
    EXPECT_EQ(c.verdict, Verdict::Differs);
    EXPECT_NEAR(c.ratio, 3.0, 1e-9);
    EXPECT_GT(c.low, 2.9);
    EXPECT_LT(c.high, 3.1);
    EXPECT_EQ(formatComparison(c).rfind("3.00 times (95% interval 2.9", 0), 0U) << formatComparison(c);
}

TEST(Verdict, RunsWithinOnePercentAreTheSame)
{
    const Comparison c = compare(
        withMedians(Relation::SamePu, { 5000, 5010, 4990 }), withMedians(Relation::Smt, { 5020, 5030, 5000 }));
    EXPECT_EQ(c.verdict, Verdict::Same);
}

TEST(Verdict, BimodalSamplesAreNotCalledDifferentOrSame)
{
    // Tight repetition medians hide a run whose samples flip between 5 and 15 us.
    std::vector<double> flat;
    std::vector<double> bimodal;
    for (int i = 0; i < 600; ++i) {
        flat.push_back(5000 + i % 7);
        bimodal.push_back(i % 2 ? 15000 + i % 5 : 5000 + i % 5);
    }
    const RunResult a = withMedians(Relation::SamePu, { 5001, 5003, 5002 }, flat);
    RunResult b = withMedians(Relation::SamePackage, { 5100, 5200, 5150 }, bimodal);
    EXPECT_EQ(compare(a, b).verdict, Verdict::Unclear);
}

TEST(Verdict, OneNumberEachHasNoSpreadToJudge)
{
    const Comparison c = compare(withMedians(Relation::SamePu, { 100 }), withMedians(Relation::Smt, { 300 }));
    EXPECT_EQ(c.verdict, Verdict::Unclear);
    EXPECT_DOUBLE_EQ(c.ratio, 3);
}

TEST(Verdict, SpreadQuotesTheRepetitionRange)
{
    EXPECT_EQ(formatSpread({ 5350, 5300, 5410, 3 }), "5.35 µs median (3 runs: 5.3–5.41 µs)");
    EXPECT_EQ(formatSpread({ 1000, 998, 1020, 3 }), "1 µs median (3 runs: 998 ns–1.02 µs)");
    EXPECT_EQ(formatSpread({ 5350, 5350, 5350, 1 }), "5.35 µs median (one run)");
}

TEST(Mixture, RepetitionsAreSortedToTheNearestPinnedPlacement)
{
    const RunResult samePu = withMedians(Relation::SamePu, { 5350 });
    const RunResult package = withMedians(Relation::SamePackage, { 14700 });
    const std::vector<const RunResult*> pinned { &samePu, &package };
    const Mixture m = mixtureOf(std::vector<double> { 5200, 5400, 15000 }, pinned);
    EXPECT_EQ(m.values, (std::vector<int> { 2, 1 }));
    EXPECT_EQ(m.unlike, 0);
    EXPECT_EQ(
        describeMixture(m, pinned, "runs"), "2 of 3 runs looked like same-pu (5.35 µs), 1 like same-package (14.7 µs)");
    // Far from every pinned cost: like none of them.
    const Mixture far = mixtureOf(std::vector<double> { 50000, 5300 }, pinned);
    EXPECT_EQ(far.unlike, 1);
    EXPECT_EQ(describeMixture(far, pinned, "runs"), "1 of 2 runs looked like same-pu (5.35 µs), 1 like none of them");
}

TEST(Mixture, SamplesAreSplitByNearestMedian)
{
    const RunResult samePu = withMedians(Relation::SamePu, { 5000 });
    const RunResult package = withMedians(Relation::SamePackage, { 15000 });
    const RunResult unpinned = withMedians(Relation::Unpinned, { 5000, 15000 }, { 5000, 5100, 4900, 14000 });
    EXPECT_EQ(describeSampleMixture(unpinned, { &samePu, &package }),
        "75% of its samples were nearer same-pu's median, 25% nearer same-package's");
}
