// SPDX-License-Identifier: MIT
// The model and the relation classes on synthetic machines of several shapes.
#include "topology_test_support.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

using namespace ctxscope;
using ctxscope::test::classesOf;

namespace {

struct Shape {
    const char* description;
    std::size_t pus;
    int packages;
    int cores;
    std::set<Relation> classes;
};

constexpr auto P = Relation::SamePu;
constexpr auto S = Relation::Smt;
constexpr auto L2 = Relation::SharedL2;
constexpr auto L3 = Relation::SharedL3;
constexpr auto SP = Relation::SamePackage;
constexpr auto XP = Relation::CrossPackage;
constexpr auto XN = Relation::CrossNuma;

const Shape kShapes[] = {
    { "pack:2 l3:2 core:4 pu:2", 32, 2, 16, { P, S, L3, SP, XP } },
    { "pack:2 [numa] l3:2 l2:2 core:2 pu:2", 32, 2, 16, { P, S, L2, L3, SP, XN } },
    { "pack:1 l3:2 [numa] core:2 pu:1", 4, 1, 4, { P, L3, XN } },
    { "pack:4 core:2 pu:1", 8, 4, 8, { P, SP, XP } },
    { "core:4 pu:4", 16, 0, 4, { P, S, SP } },
    { "pack:2 l2:1 core:2 pu:2", 8, 2, 4, { P, S, L2, XP } },
    { "l3:2 pu:3", 6, 0, 0, { P, L3, SP } },
    { "pu:1", 1, 0, 0, { P } },
};

// Named by the description, so ctest shows "pack:2 l3:2 core:4 pu:2" rather than the bytes of
// the struct (which held pointers, so the test names changed from build to build).
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.description; }

std::string shapeName(const ::testing::TestParamInfo<Shape>& info)
{
    std::string name;
    for (const char c : std::string_view(info.param.description))
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

class SyntheticShapes : public ::testing::TestWithParam<Shape> { };

} // namespace

TEST_P(SyntheticShapes, CountsAndClasses)
{
    const Shape& shape = GetParam();
    auto topo = Topology::loadSynthetic(shape.description);
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->source(), TopologySource::Synthetic);
    EXPECT_FALSE(topo->isThisSystem());
    EXPECT_EQ(topo->pus().size(), shape.pus);
    EXPECT_EQ(topo->packageCount(), shape.packages);
    EXPECT_EQ(topo->coreCount(), shape.cores);
    EXPECT_EQ(topo->allowedPus().size(), shape.pus);
    // PUs are ordered by OS index and findPu finds each.
    for (std::size_t i = 0; i < topo->pus().size(); ++i) {
        EXPECT_EQ(topo->pus()[i].osIndex, static_cast<int>(i));
        EXPECT_EQ(topo->findPu(static_cast<int>(i)), &topo->pus()[i]);
    }
    auto all = allPairs(*topo);
    ASSERT_TRUE(all.ok()) << all.error().message;
    EXPECT_EQ(all->size(), shape.pus * (shape.pus + 1) / 2);
    EXPECT_EQ(classesOf(*all), shape.classes);
}

TEST_P(SyntheticShapes, OneRepresentativePerClassTheMachineHas)
{
    const Shape& shape = GetParam();
    auto topo = Topology::loadSynthetic(shape.description);
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const auto pairs = representativePairs(*topo);
    EXPECT_EQ(pairs.size(), shape.classes.size());
    EXPECT_EQ(classesOf(pairs), shape.classes);
    for (const auto& p : pairs) {
        auto r = relationOf(*topo, p.a, p.b);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(*r, p.relation) << p.a << "," << p.b;
        EXPECT_LE(p.a, p.b);
    }
    // Ordered from the closest class to the farthest.
    EXPECT_TRUE(std::is_sorted(
        pairs.begin(), pairs.end(), [](const PuPair& x, const PuPair& y) { return x.relation < y.relation; }));
}

INSTANTIATE_TEST_SUITE_P(Topology, SyntheticShapes, ::testing::ValuesIn(kShapes), shapeName);

TEST(TopologySynthetic, TwoPackagesTwoL3sGiveOneRepresentativePerClassNot32Squared)
{
    auto topo = Topology::loadSynthetic("pack:2 l3:2 core:4 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const auto pairs = representativePairs(*topo);
    ASSERT_EQ(pairs.size(), 5U);
    std::map<Relation, int> perClass;
    for (const auto& p : pairs)
        ++perClass[p.relation];
    for (const auto& [relation, count] : perClass)
        EXPECT_EQ(count, 1) << toString(relation);
    EXPECT_EQ(*relationOf(*topo, 0, 1), Relation::Smt);
    EXPECT_EQ(*relationOf(*topo, 0, 2), Relation::SharedL3);
    EXPECT_EQ(*relationOf(*topo, 0, 8), Relation::SamePackage);
    EXPECT_EQ(*relationOf(*topo, 0, 16), Relation::CrossPackage);
    EXPECT_EQ(*relationOf(*topo, 31, 31), Relation::SamePu);
}

TEST(TopologySynthetic, CacheSizesLevelsAndSharing)
{
    auto topo = Topology::loadSynthetic("pack:2 l3:1(size=32MiB) l2:4(size=1MiB) l1d:1(size=48KiB) core:1 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->cacheSize(1), 48U << 10);
    EXPECT_EQ(topo->cacheSize(2), 1U << 20);
    EXPECT_EQ(topo->cacheSize(3), 32U << 20);
    EXPECT_EQ(topo->cacheSize(4), 0U);
    EXPECT_EQ(topo->lastCacheLevel(), 3);
    std::map<int, int> perLevel;
    for (const auto& c : topo->caches()) {
        ++perLevel[c.level];
        EXPECT_GT(c.lineSize, 0);
    }
    EXPECT_EQ(perLevel[1], 8);
    EXPECT_EQ(perLevel[2], 8);
    EXPECT_EQ(perLevel[3], 2);
    // Each L3 is shared by one package's 8 PUs, each L2 by one core's 2 SMT siblings.
    for (const auto& c : topo->caches())
        EXPECT_EQ(c.pus.size(), c.level == 3 ? 8U : 2U) << "L" << c.level << " #" << c.logicalIndex;
    const PuInfo* pu9 = topo->findPu(9);
    ASSERT_NE(pu9, nullptr);
    EXPECT_EQ(pu9->package, 1);
    EXPECT_EQ(pu9->l3, 1);
    EXPECT_EQ(pu9->l2, 4);
    EXPECT_EQ(pu9->core, 4);
}

TEST(TopologySynthetic, TreeMirrorsTheDescription)
{
    auto topo = Topology::loadSynthetic("pack:2 l3:2 core:4 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const TopoNode& root = topo->root();
    EXPECT_EQ(root.kind, NodeKind::Machine);
    ASSERT_EQ(root.children.size(), 2U);
    const TopoNode& package1 = root.children[1];
    EXPECT_EQ(package1.kind, NodeKind::Package);
    EXPECT_EQ(package1.pus, (std::vector<int> { 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 }));
    ASSERT_EQ(package1.children.size(), 2U);
    EXPECT_EQ(package1.children[0].kind, NodeKind::Cache);
    EXPECT_EQ(package1.children[0].cacheLevel, 3);
    ASSERT_EQ(package1.children[0].children.size(), 4U);
    const TopoNode& core = package1.children[0].children[0];
    EXPECT_EQ(core.kind, NodeKind::Core);
    ASSERT_EQ(core.children.size(), 2U);
    EXPECT_EQ(core.children[1].kind, NodeKind::Pu);
    EXPECT_EQ(core.children[1].osIndex, 17);
}

TEST(TopologySynthetic, NumaNodesAndTheirPus)
{
    auto topo = Topology::loadSynthetic("pack:2 [numa(memory=1GB)] core:2 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    ASSERT_EQ(topo->numaNodes().size(), 2U);
    EXPECT_EQ(topo->numaNodes()[1].pus, (std::vector<int> { 4, 5, 6, 7 }));
    EXPECT_GT(topo->numaNodes()[0].localMemory, 0U);
    EXPECT_EQ(topo->findPu(5)->numaNode, topo->numaNodes()[1].osIndex);
    EXPECT_EQ(*relationOf(*topo, 0, 4), Relation::CrossNuma);
}

TEST(TopologySynthetic, KPairsPerClassUseDistinctPusSpreadOverTheMachine)
{
    auto topo = Topology::loadSynthetic("pack:2 l3:2 core:4 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const auto pairs = representativePairs(*topo, 3);
    std::map<Relation, std::vector<PuPair>> byClass;
    for (const auto& p : pairs)
        byClass[p.relation].push_back(p);
    ASSERT_EQ(byClass.size(), 5U);
    for (const auto& [relation, list] : byClass) {
        ASSERT_EQ(list.size(), 3U) << toString(relation);
        std::set<int> seen;
        for (const auto& p : list) {
            EXPECT_EQ(*relationOf(*topo, p.a, p.b), relation);
            EXPECT_TRUE(seen.insert(p.a).second) << toString(relation) << " reuses CPU " << p.a;
            if (p.b != p.a) {
                EXPECT_TRUE(seen.insert(p.b).second) << toString(relation) << " reuses CPU " << p.b;
            }
        }
    }
    // The first two SMT pairs sit in different packages, not on neighbouring cores.
    const auto& smt = byClass[Relation::Smt];
    EXPECT_NE(topo->findPu(smt[0].a)->package, topo->findPu(smt[1].a)->package);
}

TEST(TopologySynthetic, KPairsBeyondWhatTheMachineHasGiveWhatThereIs)
{
    auto topo = Topology::loadSynthetic("pack:1 core:1 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const auto pairs = representativePairs(*topo, 5);
    // Two same-pu pairs (0,0) (1,1) and the one SMT pair (0,1).
    ASSERT_EQ(pairs.size(), 3U);
    EXPECT_EQ(pairs[2].relation, Relation::Smt);
    EXPECT_TRUE(representativePairs(*topo, 0).empty());
}

TEST(TopologySynthetic, AllPairsIsForSmallMachines)
{
    auto topo = Topology::loadSynthetic("pack:2 core:40 pu:1");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    auto refused = allPairs(*topo);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("small machines"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("80 allowed CPUs give 3240 pairs"), std::string::npos)
        << refused.error().message;
    auto asked = allPairs(*topo, 80);
    ASSERT_TRUE(asked.ok()) << asked.error().message;
    EXPECT_EQ(asked->size(), 3240U);
}

TEST(TopologySynthetic, LargestAcceptedMachineStillFindsEveryClass)
{
    // 8192 PUs: 33 million pairs. The classes come from the structure, not from all pairs.
    auto topo = Topology::loadSynthetic("pack:4 [numa] l3:4 l2:8 core:32 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->pus().size(), 8192U);
    const auto pairs = representativePairs(*topo);
    EXPECT_EQ(classesOf(pairs), (std::set<Relation> { P, S, L2, L3, SP, XN }));
}

TEST(TopologySynthetic, NonexistentPusAreNamed)
{
    auto topo = Topology::loadSynthetic("pack:1 core:2 pu:2");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    for (int bad : { -1, 4, 65536 }) {
        auto r = relationOf(*topo, 0, bad);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().message, "CPU " + std::to_string(bad) + " does not exist (the topology has CPUs 0-3)");
        auto usable = checkPuUsable(*topo, bad);
        ASSERT_FALSE(usable.ok());
        EXPECT_EQ(usable.error().message, r.error().message);
    }
    EXPECT_EQ(topo->findPu(4), nullptr);
}

TEST(TopologySynthetic, RelationNamesRoundTrip)
{
    for (Relation r : allRelations())
        EXPECT_EQ(relationFromString(toString(r)), r);
    EXPECT_EQ(allRelations().back(), Relation::Unpinned);
    EXPECT_FALSE(relationFromString("same-core").has_value());
}
