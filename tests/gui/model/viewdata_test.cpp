// SPDX-License-Identifier: MIT
// The pure functions behind the views: working-set series, the ladder, the
// matching of runs across machines and the heatmap grid (256 PUs).
#include "comparedata.h"
#include "heatmapdata.h"
#include "ladderdata.h"
#include "testresults.h"
#include "testtopologies.h"
#include "workingsetdata.h"

#include "ctxscope/placement.h"
#include "ctxscope/units.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

WorkingSetPoint point(std::uint64_t ws, Quartiles rt, Quartiles touch)
{
    WorkingSetPoint p;
    p.wsBytes = ws;
    p.tasks = 2;
    p.switchesPerOp = 2;
    p.roundTrip = rt;
    p.touch = touch;
    p.roundTripRun.stats.min = rt.p25 * 0.9;
    p.roundTripRun.stats.p90 = rt.p75 * 1.2;
    deriveSwitchCost(p);
    return p;
}

std::shared_ptr<const RunResult> run(std::string bench, double p50, double switches, bool user = false)
{
    auto r = std::make_shared<RunResult>(*ctxscope::testing::futexResult());
    r->bench = std::move(bench);
    r->stats.p50 = p50;
    r->switchesPerOp = switches;
    r->userSpaceSwitches = user;
    return r;
}

} // namespace

TEST(ViewData, WorkingSetSeriesLeaveOutCostsAtOrBelowZeroAndCarryTheirSpread)
{
    SweepCurves sweep;
    sweep.points = { point(0, { 8000, 8500, 9000 }, {}), point(4096, { 8300, 8600, 9100 }, { 28, 30, 33 }),
        point(1 << 20, { 30000, 31000, 34000 }, { 15000, 16000, 17000 }) }; // 31000 < 2 x 16000
    const auto cost = wsSeries(sweep, WsSeries::SwitchCost, WsSpread::Quartiles);
    ASSERT_EQ(cost.size(), 2U) << "the point whose cost is not positive is not drawn";
    EXPECT_DOUBLE_EQ(cost[0].x, kZeroBytesPosition);
    EXPECT_DOUBLE_EQ(cost[0].y, 4250);
    EXPECT_DOUBLE_EQ(cost[0].low, 4000);
    EXPECT_DOUBLE_EQ(cost[0].high, 4500);
    EXPECT_DOUBLE_EQ(cost[1].y, (8600 - 2 * 30) / 2.0);
    EXPECT_DOUBLE_EQ(cost[1].low, (8300 - 2 * 33) / 2.0);
    const auto touch = wsSeries(sweep, WsSeries::Touch, WsSpread::Quartiles);
    ASSERT_EQ(touch.size(), 2U) << "no touch at W = 0";
    EXPECT_DOUBLE_EQ(touch[1].x, 1 << 20);
    const auto rt = wsSeries(sweep, WsSeries::RoundTrip, WsSpread::MinP90);
    ASSERT_EQ(rt.size(), 3U);
    EXPECT_DOUBLE_EQ(rt[2].low, 30000 * 0.9);
    EXPECT_DOUBLE_EQ(rt[2].high, 34000 * 1.2);
}

TEST(ViewData, CacheMarkersGiveOneSizePerLevelFromTheTopology)
{
    const Topology topo = ctxscope::testing::synthetic("pack:1 l3:1 l2:2 l1d:2 core:2 pu:1");
    const auto markers = cacheMarkers(topo.caches());
    ASSERT_EQ(markers.size(), 3U);
    for (std::size_t i = 0; i < markers.size(); ++i) {
        EXPECT_EQ(markers[i].level, static_cast<int>(i + 1));
        EXPECT_EQ(markers[i].bytes, topo.cacheSize(markers[i].level));
    }
    EXPECT_TRUE(markers[0].label.startsWith(QStringLiteral("L1d ")));
}

TEST(ViewData, AnImplausibleCacheMarkerSaysSo)
{
    // A VM's CPUID reporting the host's 508 MiB L3 as private to one vCPU.
    const Topology vm = ctxscope::testing::synthetic("pack:1 l3:2(size=532676608) l2:1 l1d:1 core:1 pu:1");
    const auto markers = cacheMarkers(vm.caches());
    ASSERT_EQ(markers.size(), 3U);
    EXPECT_TRUE(markers[0].plausible);
    EXPECT_FALSE(markers[2].plausible);
    EXPECT_TRUE(markers[2].label.endsWith(QStringLiteral("(implausible)"))) << markers[2].label.toStdString();
    EXPECT_TRUE(cacheWarning(vm.caches()).contains(QStringLiteral("508 MiB")));
    const Topology fine = ctxscope::testing::synthetic("pack:1 l3:1 l2:2 l1d:2 core:2 pu:1");
    EXPECT_TRUE(cacheWarning(fine.caches()).isEmpty());
}

TEST(ViewData, TheLadderHasTheLatestRunOfEachBenchmarkCheapestFirst)
{
    const auto rungs = ladderRungs(
        { run("futex", 9000, 2), run("coro-cxx20", 11, 2, true), run("syscall", 230, 0), run("futex", 8500, 2) });
    ASSERT_EQ(rungs.size(), 3U);
    EXPECT_EQ(rungs[0].bench, QStringLiteral("coro-cxx20"));
    EXPECT_EQ(rungs[1].bench, QStringLiteral("syscall"));
    EXPECT_EQ(rungs[2].bench, QStringLiteral("futex"));
    EXPECT_DOUBLE_EQ(rungs[2].nsPerOp, 8500) << "the later futex run";
    EXPECT_TRUE(rungs[0].label.contains(QString::fromStdString(formatDuration(11))));
    EXPECT_TRUE(rungs[0].label.contains(QStringLiteral("2 switches")));
    EXPECT_TRUE(rungs[0].userSpace) << "coroutine switches are drawn apart from kernel ones";
    EXPECT_FALSE(rungs[2].userSpace);
    EXPECT_TRUE(rungs[1].label.contains(QStringLiteral("no switch")));
    EXPECT_TRUE(rungs[2].label.contains(QStringLiteral("2 switches")));
}

TEST(ViewData, RunsOfTwoMachinesMatchByBenchModeAndClassNotByCpuNumbers)
{
    RunResult here = *ctxscope::testing::futexResult({ 0, 0 });
    RunResult there = *ctxscope::testing::futexResult({ 17, 17 });
    there.stats.p50 = 3100;
    RunResult far = there;
    far.placement.relation = Relation::CrossPackage;
    far.placement.cpus = { 0, 40 };
    const auto shared = [](const RunResult& r) { return std::make_shared<const RunResult>(r); };
    const std::vector<CompareSource> sources { { QStringLiteral("a"), {}, {}, QStringLiteral("x"), { shared(here) } },
        { QStringLiteral("b"), {}, QStringLiteral("KVM"), QStringLiteral("y"), { shared(there), shared(far) } } };
    const auto rows = matchSources(sources);
    ASSERT_EQ(rows.size(), 2U);
    EXPECT_EQ(rows[0].key, "futex/thread/same-pu");
    EXPECT_EQ(rows[0].sourcesWithValue(), 2);
    EXPECT_DOUBLE_EQ(*rows[0].medianNs[0], here.stats.p50);
    EXPECT_DOUBLE_EQ(*rows[0].medianNs[1], 3100);
    EXPECT_EQ(rows[1].key, "futex/thread/cross-package");
    EXPECT_FALSE(rows[1].medianNs[0].has_value());
    EXPECT_EQ(sources[1].legend(), QStringLiteral("b · KVM (y)"));
}

TEST(ViewData, AHeatmapGridOf256PusFindsEveryPairBothWays)
{
    const Topology topo = ctxscope::testing::synthetic("pack:2 l3:4 core:16 pu:2");
    auto matrix = std::make_shared<MatrixResult>();
    matrix->bench = "futex";
    matrix->pus = topo.allowedPus();
    ASSERT_EQ(matrix->pus.size(), 256U);
    for (std::size_t i = 0; i < matrix->pus.size(); ++i)
        for (std::size_t j = i; j < matrix->pus.size(); ++j) {
            const int a = matrix->pus[i], b = matrix->pus[j];
            matrix->cells.push_back(
                { a, b, *relationOf(topo, a, b), 1000.0 + a + b, 500.0, a == 0 && b < 2, std::nullopt });
        }
    const HeatmapGrid grid(matrix, HeatValue::RoundTrip);
    ASSERT_EQ(grid.size(), 256);
    const int x = grid.indexOfPu(200), y = grid.indexOfPu(3);
    ASSERT_NE(grid.cellAt(x, y), nullptr);
    EXPECT_EQ(grid.cellAt(x, y), grid.cellAt(y, x));
    EXPECT_DOUBLE_EQ(*grid.valueAt(x, y), 1203);
    EXPECT_EQ(grid.cellAt(x, y)->relation, Relation::CrossPackage);
    EXPECT_DOUBLE_EQ(grid.minValue(), 1000);
    EXPECT_DOUBLE_EQ(grid.maxValue(), 1000 + 255 + 255);
    EXPECT_EQ(grid.cellAt(256, 0), nullptr);
    EXPECT_DOUBLE_EQ(*HeatmapGrid(matrix, HeatValue::PerSwitch).valueAt(x, y), 500);
}
