// SPDX-License-Identifier: MIT
#include "topology_test_support.h"

using namespace ctxscope;

TEST(TopologySmoke, SyntheticTwoPackagesHasEveryCpuClass)
{
    auto topo = Topology::loadSynthetic("pack:2 l3:2 core:4 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->pus().size(), 32U);
    EXPECT_EQ(topo->packageCount(), 2);
    EXPECT_EQ(topo->coreCount(), 16);
    EXPECT_FALSE(topo->isThisSystem());
    EXPECT_EQ(*relationOf(*topo, 0, 0), Relation::SamePu);
    EXPECT_EQ(*relationOf(*topo, 0, 1), Relation::Smt);
    EXPECT_EQ(*relationOf(*topo, 0, 2), Relation::SharedL3);
    EXPECT_EQ(*relationOf(*topo, 0, 8), Relation::SamePackage);
    EXPECT_EQ(*relationOf(*topo, 0, 16), Relation::CrossPackage);
}

TEST(TopologySmoke, LiveMachineLoadsAndKnowsItself)
{
    ctxscope::test::LiveEnv env;
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_TRUE(topo->isThisSystem());
    EXPECT_FALSE(topo->pus().empty());
    EXPECT_FALSE(topo->allowedPus().empty());
}
