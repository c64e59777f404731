// SPDX-License-Identifier: MIT
#include "runpanel.h"
#include "testtopologies.h"

#include "ctxscope/protocol.h"
#include "ctxscope/working_set.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

// Settings outlive a test (the app's other tests load them): leave no working set behind,
// even when an assertion ends the test early.
struct NoWorkingSetLeftBehind {
    RunPanel& panel;
    ~NoWorkingSetLeftBehind() { panel.setWorkingSet(QString()); }
};

// Nor a spin time other than the default.
struct DefaultSpinLeftBehind {
    RunPanel& panel;
    ~DefaultSpinLeftBehind() { panel.setSpinNs(static_cast<int>(kDefaultSpinNs)); }
};

} // namespace

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

// A working set this machine cannot hold is refused in its field as it is typed, not
// after Run; a server's is left to the server's worker.
TEST(RunPanel, AWorkingSetIsCheckedInItsFieldAgainstTheMemoryAvailable)
{
    const auto available = memAvailableBytes();
    ASSERT_TRUE(available.has_value()) << "no MemAvailable in /proc/meminfo";
    RunPanel panel;
    const NoWorkingSetLeftBehind clean { panel };
    panel.setTopology(synthetic("pack:1 core:4 pu:2"));
    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("futex")));
    panel.usePlacement(RunPanel::PlacementKind::Relation, Relation::SamePu);
    panel.setLocalMachine(true);
    // Each of the two tasks as much as the whole machine has available (in KiB, as typed).
    panel.setWorkingSet(QStringLiteral("%1K").arg(*available / 1024));
    auto spec = panel.spec();
    ASSERT_FALSE(spec.ok());
    EXPECT_NE(spec.error().message.find("more than a quarter"), std::string::npos) << spec.error().message;
    EXPECT_FALSE(panel.workingSetField()->styleSheet().isEmpty()) << "the field is marked";
    EXPECT_NE(panel.workingSetField()->toolTip().indexOf(QStringLiteral("available")), -1)
        << panel.workingSetField()->toolTip().toStdString();
    panel.setWorkingSet(QStringLiteral("64K"));
    EXPECT_TRUE(panel.spec().ok());
    EXPECT_TRUE(panel.workingSetField()->styleSheet().isEmpty());
    panel.setWorkingSet(QStringLiteral("%1K").arg(*available / 1024));
    panel.setLocalMachine(false); // a server: its worker checks its own memory
    EXPECT_TRUE(panel.spec().ok());
}

TEST(RunPanel, WorkingSetFieldTakesSizesAsTypedAndSaysWhatIsWrong)
{
    RunPanel panel;
    const NoWorkingSetLeftBehind clean { panel };
    panel.setTopology(synthetic("pack:1 core:4 pu:2"));
    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("futex")));
    panel.usePlacement(RunPanel::PlacementKind::Relation, Relation::SamePu);
    ASSERT_TRUE(panel.workingSetField()->isEnabled());
    EXPECT_EQ(panel.spec()->wsBytes, 0U) << "empty: no working set";
    const std::pair<const char*, std::uint64_t> sizes[]
        = { { "4096", 4096 }, { "64K", 64 * 1024 }, { "16M", 16U << 20 }, { "1G", 1U << 30 }, { " 8k ", 8192 } };
    for (const auto& [text, bytes] : sizes) {
        panel.setWorkingSet(QString::fromLatin1(text));
        auto spec = panel.spec();
        ASSERT_TRUE(spec.ok()) << text << ": " << spec.error().message;
        EXPECT_EQ(spec->wsBytes, bytes) << text;
        EXPECT_TRUE(panel.workingSetField()->styleSheet().isEmpty()) << text;
    }
    for (const char* bad : { "12Q", "-4K", "1.5M", "lots" }) {
        panel.setWorkingSet(QString::fromLatin1(bad));
        auto spec = panel.spec();
        ASSERT_FALSE(spec.ok()) << bad;
        EXPECT_NE(spec.error().message.find("Working set"), std::string::npos) << spec.error().message;
        EXPECT_NE(spec.error().message.find(bad), std::string::npos) << spec.error().message;
        // Feedback at the field: marked, and its tooltip names the problem.
        EXPECT_FALSE(panel.workingSetField()->styleSheet().isEmpty()) << bad;
        EXPECT_TRUE(panel.workingSetField()->toolTip().contains(QString::fromLatin1(bad))) << bad;
    }
    // A benchmark without a working set ignores the field (and greys it).
    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("syscall")));
    EXPECT_FALSE(panel.workingSetField()->isEnabled());
    auto syscall = panel.spec();
    ASSERT_TRUE(syscall.ok()) << syscall.error().message;
    EXPECT_EQ(syscall->wsBytes, 0U);
}

TEST(RunPanel, WorkingSetPersistsBetweenSessions)
{
    {
        RunPanel panel;
        panel.setTopology(synthetic("pack:1 core:4 pu:2"));
        ASSERT_TRUE(panel.setBenchmark(QStringLiteral("pipe")));
        panel.usePlacement(RunPanel::PlacementKind::Unpinned);
        panel.setWorkingSet(QStringLiteral("16M"));
    }
    RunPanel again;
    const NoWorkingSetLeftBehind clean { again };
    again.setTopology(synthetic("pack:1 core:4 pu:2"));
    again.loadSettings();
    EXPECT_EQ(again.workingSetField()->text(), QStringLiteral("16M"));
    auto spec = again.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->wsBytes, 16U << 20);
}

TEST(RunPanel, SpinTimeIsAskedForSpinFutexOnlyAndReachesTheWorkerCommand)
{
    RunPanel panel;
    const DefaultSpinLeftBehind restore { panel };
    panel.setTopology(synthetic("pack:1 core:2 pu:1"));
    panel.usePlacement(RunPanel::PlacementKind::Unpinned);
    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("futex")));
    EXPECT_FALSE(panel.spinField()->isVisibleTo(&panel));
    auto spec = panel.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_FALSE(spec->spinNs.has_value()); // the engine refuses a spin time for futex

    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("spin-futex")));
    EXPECT_TRUE(panel.spinField()->isVisibleTo(&panel));
    panel.setSpinNs(750);
    spec = panel.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->spinNs, 750U);
    // What the worker is sent: the run command with the spin time in it.
    const std::string line = protocol::commandLine(protocol::RunCommand { 1, *spec });
    EXPECT_NE(line.find("\"spin_ns\":750"), std::string::npos) << line;
    auto parsed = protocol::parseCommand(line);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const auto* run = std::get_if<protocol::RunCommand>(&*parsed);
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->spec.spinNs, 750U);

    ASSERT_TRUE(panel.setBenchmark(QStringLiteral("spin")));
    EXPECT_FALSE(panel.spinField()->isVisibleTo(&panel));
    spec = panel.spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_FALSE(spec->spinNs.has_value());
}
