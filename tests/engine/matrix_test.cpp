// SPDX-License-Identifier: MIT
#include "ctxscope/matrix.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/value_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <sched.h>
#include <stop_token>

using namespace ctxscope;

TEST(Matrix, ClassesFillEveryAllowedPairFromOneRunPerClass)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    auto m = runMatrix("futex", BenchMode::Thread, MatrixMode::Classes, *topo, RunBudget { 0.01, 1 });
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(m->failures.empty());
    EXPECT_EQ(m->runs.size(), representativePairs(*topo).size());
    EXPECT_EQ(m->cells.size(), allPairs(*topo)->size());
    for (int a : m->pus)
        for (int b : m->pus) {
            const MatrixCell* c = m->cell(a, b);
            ASSERT_NE(c, nullptr) << a << "," << b;
            EXPECT_GT(c->medianNs, 0);
            EXPECT_EQ(c->relation, *relationOf(*topo, a, b));
            if (!c->measured) { // its value is its class representative's
                bool found = false;
                for (const auto& r : m->runs)
                    found = found || (r.placement.relation == c->relation && r.stats.p50 == c->medianNs);
                EXPECT_TRUE(found);
            }
        }
    const auto j = matrixToJson(*m);
    EXPECT_EQ(j.at("cells").size(), m->cells.size());
}

TEST(Matrix, RefusesWhatIsNotATwoTaskBenchmark)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    auto m = runMatrix("syscall", BenchMode::Thread, MatrixMode::Classes, *topo, {});
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().message.find("two-task"), std::string::npos);
    EXPECT_FALSE(runMatrix("warp-drive", BenchMode::Thread, MatrixMode::Classes, *topo, {}).ok());
}

namespace {

// The live topology as a process limited to its first two allowed CPUs sees it (the mask is
// read when the topology loads), or none when there are fewer.
std::optional<Topology> twoCpuTopology()
{
    auto live = Topology::loadLive();
    if (!live.ok() || live->allowedPus().size() < 2)
        return std::nullopt;
    cpu_set_t saved;
    CPU_ZERO(&saved);
    if (sched_getaffinity(0, sizeof saved, &saved) != 0)
        return std::nullopt;
    cpu_set_t two;
    CPU_ZERO(&two);
    CPU_SET(static_cast<std::size_t>(live->allowedPus()[0]), &two);
    CPU_SET(static_cast<std::size_t>(live->allowedPus()[1]), &two);
    if (sched_setaffinity(0, sizeof two, &two) != 0)
        return std::nullopt;
    auto restricted = Topology::loadLive();
    sched_setaffinity(0, sizeof saved, &saved);
    if (!restricted.ok() || restricted->allowedPus().size() != 2)
        return std::nullopt;
    return std::move(*restricted);
}

std::vector<std::string> csvLines(const std::string& csv, bool withComments)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end; (end = csv.find('\n', start)) != std::string::npos; start = end + 1) {
        std::string line = csv.substr(start, end - start);
        if (withComments || line.rfind('#', 0) != 0)
            out.push_back(std::move(line));
    }
    return out;
}

} // namespace

TEST(Matrix, AllPairsOfSpinMeasuresEveryPairButTheRefusedDiagonal)
{
    const auto topo = twoCpuTopology();
    if (!topo)
        GTEST_SKIP() << "needs two allowed CPUs";
    auto m = runMatrix("spin", BenchMode::Thread, MatrixMode::AllPairs, *topo, RunBudget { 0.002, 2 });
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_FALSE(m->cancelled);
    EXPECT_TRUE(m->failures.empty()) << m->failures.front();
    ASSERT_EQ(m->cells.size(), 1U); // two PUs: one pair, and no same-PU cell for a busy-wait
    const int a = m->pus[0];
    const int b = m->pus[1];
    EXPECT_EQ(m->cell(a, a), nullptr);
    const MatrixCell* c = m->cell(b, a);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->measured);
    ASSERT_TRUE(c->oneWayNs.has_value());
    EXPECT_DOUBLE_EQ(*c->oneWayNs, c->medianNs / 2);
    EXPECT_EQ(matrixToJson(*m).at("cells")[0].at("one_way_ns"), *c->oneWayNs);
}

// A matrix reads the machine's caveats once and probes a CPU once; every pair still carries
// those caveats and its own self-checks (where each task ran).
TEST(Matrix, EveryPairKeepsItsSelfChecksAndTheMachineCaveats)
{
    const auto topo = twoCpuTopology();
    if (!topo)
        GTEST_SKIP() << "needs two allowed CPUs";
    const int a = topo->allowedPus()[0];
    const int b = topo->allowedPus()[1];
    const std::vector<PuPair> pairs(3, PuPair { a, b, *relationOf(*topo, a, b), {} });
    auto m = runMatrixPairs("futex", BenchMode::Thread, MatrixMode::AllPairs, *topo, pairs, RunBudget { 0.002, 1 });
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_EQ(m->runs.size(), 3U);
    const std::vector<std::string> caveats = machineWarnings(readSysInfo());
    for (const RunResult& r : m->runs) {
        for (const std::string& caveat : caveats)
            EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(), caveat), r.warnings.end()) << caveat;
        ASSERT_EQ(r.observed.tasks.size(), 2U);
        EXPECT_EQ(r.observed.tasks[0].pinnedCpu, a);
        EXPECT_EQ(r.observed.tasks[1].pinnedCpu, b);
        for (const TaskObservation& t : r.observed.tasks)
            EXPECT_EQ(t.cpusSeen, std::vector<int> { t.pinnedCpu }); // each pin confirmed in every pair
    }
    EXPECT_FALSE(runMatrixPairs("yield-not", BenchMode::Thread, MatrixMode::AllPairs, *topo, pairs, {}).ok());
}

TEST(Matrix, ACancelledMatrixKeepsTheFinishedPairs)
{
    const auto topo = twoCpuTopology();
    if (!topo)
        GTEST_SKIP() << "needs two allowed CPUs";
    std::stop_source stop;
    auto m = runMatrix(
        "futex", BenchMode::Thread, MatrixMode::AllPairs, *topo, RunBudget { 0.002, 1 },
        [&](const MatrixProgress& p) {
            if (p.finished && p.run == 0)
                stop.request_stop(); // the first of three pairs is done
        },
        stop.get_token());
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(m->cancelled);
    ASSERT_EQ(m->runs.size(), 1U);
    ASSERT_EQ(m->cells.size(), 1U); // all pairs fills nothing from a class
    EXPECT_TRUE(m->cells[0].measured);
    EXPECT_EQ(matrixToJson(*m).at("cancelled"), true);
    auto back = matrixFromJson(matrixToJson(*m));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_TRUE(back->cancelled);
    EXPECT_EQ(back->cells.size(), 1U);
}

TEST(Matrix, AllPairsRefusesMoreThan1024Pus)
{
    auto big = Topology::loadSynthetic("pack:2 core:513 pu:1");
    ASSERT_TRUE(big.ok()) << big.error().message;
    auto m = runMatrix("spin", BenchMode::Thread, MatrixMode::AllPairs, *big, {});
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().message.find("use --classes"), std::string::npos) << m.error().message;
}

TEST(Matrix, CsvIsASquareOfOneWayNanosecondsWithContextInCommentLines)
{
    MatrixResult m;
    m.bench = "spin";
    m.matrixMode = MatrixMode::AllPairs;
    m.pus = { 0, 2, 5 };
    m.cells.push_back(MatrixCell { 0, 2, Relation::Smt, 100, std::nullopt, true, 50 });
    m.cells.push_back(MatrixCell { 2, 5, Relation::SharedL3, 300, std::nullopt, true, 150 });
    const std::string csv = matrixToCsv(m, { "host: test" });
    const auto all = csvLines(csv, true);
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(all[0], "# host: test");
    const auto rows = csvLines(csv, false);
    ASSERT_EQ(rows.size(), 4U); // header + one row per PU
    EXPECT_EQ(rows[0], "pu,0,2,5");
    EXPECT_EQ(rows[1], "0,,50.0,"); // empty: the diagonal and 0-5 were not measured
    EXPECT_EQ(rows[2], "2,50.0,,150.0");
    EXPECT_EQ(rows[3], "5,,150.0,");
}
