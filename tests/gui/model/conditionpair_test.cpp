// SPDX-License-Identifier: MIT
// A condition's A/B kept as a pair of rows: the sides named, read back paired, the A/B in words.
#include "conditionpair.h"
#include "testresults.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

ResultRow row(quint64 id, std::vector<int> keepAwake, std::vector<int> cpus = { 0, 1 })
{
    RunResult r = *ctxscope::testing::futexResult(std::move(cpus));
    r.spec.keepAwakeCpus = std::move(keepAwake);
    return { id, std::make_shared<const RunResult>(std::move(r)), QColor(Qt::blue) };
}

} // namespace

TEST(ConditionPair, AConditionRightAfterTheSamePlacementAsIsIsReadBackAsItsPair)
{
    std::vector<ResultRow> rows { row(1, {}, { 0, 0 }), row(2, {}), row(3, { 0, 1 }), row(4, {}, { 0, 0 }),
        row(5, { 0 }) };
    pairConditionSides(rows);
    EXPECT_EQ(rows[0].abPartner, 0U);
    EXPECT_EQ(rows[1].abPartner, 3U); // as is, then kept awake: the pair
    EXPECT_EQ(rows[2].abPartner, 2U);
    EXPECT_EQ(rows[3].abPartner, 0U);
    EXPECT_EQ(rows[4].abPartner, 0U); // another placement as is before it
    const auto pair = abPairOf(rows, 2);
    ASSERT_TRUE(pair.has_value());
    EXPECT_EQ(pair->asIs->id, 2U);
    EXPECT_EQ(pair->with->id, 3U);
    EXPECT_EQ(abPairOf(rows, 3)->asIs->id, 2U);
    EXPECT_FALSE(abPairOf(rows, 4).has_value());
    EXPECT_FALSE(abPairOf(rows, 99).has_value());
    EXPECT_EQ(abSideName(rows[1]), QStringLiteral("as is"));
    EXPECT_EQ(abSideName(rows[2]), QStringLiteral("keep-awake 0-1"));
    EXPECT_EQ(abSideName(rows[0]), QString()); // a run of no A/B
    EXPECT_EQ(abSideName(rows[4]), QStringLiteral("keep-awake 0")); // its condition, paired or not
    EXPECT_TRUE(rowLabel(rows[1]).endsWith(QStringLiteral(" · as is"))) << rowLabel(rows[1]).toStdString();
}

TEST(ConditionPair, AnAbInWordsIsItsSentenceThenEachStepThatMoved)
{
    ConditionAb ab;
    ab.sentence = "With keep-awake 0,1, the futex op took 0.42x as long: it matters.";
    ab.movedSteps = { "idle exit: 7.0 µs -> gone (0 of 9,812 hand-overs)", "switch-in: 9.25 µs -> 1.35 µs" };
    EXPECT_EQ(abText(ab),
        QStringLiteral("A/B: With keep-awake 0,1, the futex op took 0.42x as long: it matters.\n"
                       "  idle exit: 7.0 µs -> gone (0 of 9,812 hand-overs)\n  switch-in: 9.25 µs -> 1.35 µs"));
    // The steps that moved most, and a count of the rest.
    ab.movedSteps = { "a: 1", "b: 2", "c: 3", "d: 4", "e: 5" };
    EXPECT_EQ(abText(ab).split(QLatin1Char('\n')).mid(1),
        QStringList({ QStringLiteral("  a: 1"), QStringLiteral("  b: 2"), QStringLiteral("  c: 3"),
            QStringLiteral("  and 2 smaller moves: the Timeline tab's breakdown shows both sides") }));
    ab.movedSteps.resize(4);
    EXPECT_TRUE(
        abText(ab).endsWith(QStringLiteral("  and 1 smaller move: the Timeline tab's breakdown shows both sides")));
}
