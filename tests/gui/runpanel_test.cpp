// SPDX-License-Identifier: MIT
#include "runpanel.h"
#include "testtopologies.h"

#include <QComboBox>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

TEST(RunPanel, OffersEveryBenchmarkOfTheEngine)
{
    RunPanel panel;
    ASSERT_EQ(panel.benchmarkChooser()->count(), static_cast<int>(benchmarks().size()));
    for (std::size_t i = 0; i < benchmarks().size(); ++i)
        EXPECT_EQ(
            panel.benchmarkChooser()->itemData(static_cast<int>(i)).toString().toStdString(), benchmarks()[i].name);
}

TEST(RunPanel, BuildsTheSpecFromTheMapSelection)
{
    RunPanel panel;
    panel.setTopology(synthetic("pack:2 l3:2 core:4 pu:2"));
    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("futex")));
    panel.usePlacement(RunPanel::PlacementKind::Map);
    panel.setIterations(5000);
    panel.setRepetitions(3);

    EXPECT_FALSE(panel.spec().ok()); // nothing placed yet
    panel.setMapSelection({ 3 });
    auto one = panel.spec();
    ASSERT_FALSE(one.ok());
    EXPECT_NE(one.error().message.find("place B"), std::string::npos) << one.error().message;

    panel.setMapSelection({ 3, 17 });
    auto spec = panel.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->bench, "futex");
    EXPECT_EQ(spec->cpus, (std::vector<int> { 3, 17 }));
    EXPECT_FALSE(spec->relation.has_value());
    EXPECT_EQ(spec->iterations, 5000U);
    EXPECT_EQ(spec->repetitions, 3);
    EXPECT_EQ(panel.measuredCpus(), (std::vector<int> { 3, 17 }));

    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("syscall"))); // one task: A's PU
    spec = panel.spec();
    ASSERT_TRUE(spec.ok());
    EXPECT_EQ(spec->cpus, (std::vector<int> { 3 }));
    EXPECT_FALSE(panel.setMode(BenchMode::Process)) << "syscall has no process mode";
}

TEST(RunPanel, ARelationClassOrUnpinnedNeedsNoMap)
{
    const Topology topo = synthetic("pack:2 l3:2 core:4 pu:2");
    RunPanel panel;
    panel.setTopology(topo);
    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("pipe")));
    ASSERT_TRUE(panel.setMode(BenchMode::Process));
    panel.usePlacement(RunPanel::PlacementKind::Relation, Relation::CrossPackage);
    auto spec = panel.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_TRUE(spec->cpus.empty());
    EXPECT_EQ(spec->relation, Relation::CrossPackage);
    EXPECT_EQ(spec->mode, BenchMode::Process);
    // The PUs the engine will use: the class's representative pair.
    const auto measured = panel.measuredCpus();
    ASSERT_EQ(measured.size(), 2U);
    auto relation = relationOf(topo, measured[0], measured[1]);
    ASSERT_TRUE(relation.ok());
    EXPECT_EQ(*relation, Relation::CrossPackage);

    panel.usePlacement(RunPanel::PlacementKind::Unpinned);
    spec = panel.spec();
    ASSERT_TRUE(spec.ok());
    EXPECT_EQ(spec->relation, Relation::Unpinned);
    EXPECT_TRUE(panel.measuredCpus().empty());
}

TEST(RunPanel, ChoicesPersistBetweenSessions)
{
    {
        RunPanel panel;
        panel.setTopology(synthetic("pack:1 core:4 pu:2"));
        ASSERT_TRUE(panel.setBenchmark(QStringLiteral("pipe")));
        ASSERT_TRUE(panel.setMode(BenchMode::Process));
        panel.usePlacement(RunPanel::PlacementKind::Unpinned);
        panel.setMinTime(0.75);
        panel.setRepetitions(9);
    } // saved when it goes away
    RunPanel again;
    again.setTopology(synthetic("pack:1 core:4 pu:2"));
    again.loadSettings();
    auto spec = again.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->bench, "pipe");
    EXPECT_EQ(spec->mode, BenchMode::Process);
    EXPECT_EQ(spec->relation, Relation::Unpinned);
    EXPECT_FALSE(spec->iterations.has_value());
    EXPECT_DOUBLE_EQ(spec->minTimeSeconds, 0.75);
    EXPECT_EQ(spec->repetitions, 9);
}
