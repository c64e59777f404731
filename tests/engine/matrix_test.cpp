// SPDX-License-Identifier: MIT
#include "ctxscope/matrix.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
