// SPDX-License-Identifier: MIT
// Hybrid machines (hwloc's CPU kinds) on the two hand-written fixtures, an Alder-Lake-like
// 6P+8E and a big.LITTLE-like 4+4: each PU's kind and its name, the classes' kind pairs, the
// representative pairs per class and kinds, the survey's plan, results and the machine
// comparison matched by kinds; and a machine with one kind, or none, unchanged.
#include "ctxscope/machine_compare.h"
#include "ctxscope/placement.h"
#include "ctxscope/results_file.h"
#include "ctxscope/survey.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology_report.h"
#include "ctxscope/value_json.h"
#include "topology/topology_impl.h"
#include "topology_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ctxscope;
using test::fixture;
using test::readAll;

namespace {

Topology load(const std::string& name)
{
    auto t = Topology::loadXmlFile(fixture("good/" + name));
    EXPECT_TRUE(t) << t.error().message;
    return *t;
}

Topology alderLake() { return load("hybrid-alder-lake-6p8e.xml"); }
Topology bigLittle() { return load("hybrid-big-little-4p4.xml"); }

std::string nameOf(const Topology& t, int os)
{
    const CpuKind* k = t.kindOfPu(os);
    return k ? k->name : "none";
}

using ClassAndKinds = std::pair<std::string, std::string>;

std::vector<ClassAndKinds> classesOf(const std::vector<PuPair>& pairs)
{
    std::vector<ClassAndKinds> out;
    for (const PuPair& p : pairs)
        out.emplace_back(std::string(toString(p.relation)), p.kinds);
    return out;
}

// Every pair's class and kinds agree with the topology's own answer for its two PUs.
void expectPairsConsistent(const Topology& t, const std::vector<PuPair>& pairs)
{
    for (const PuPair& p : pairs) {
        SCOPED_TRACE(std::to_string(p.a) + "," + std::to_string(p.b));
        auto r = relationOf(t, p.a, p.b);
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(*r, p.relation);
        EXPECT_EQ(
            p.kinds, kindsText(t, p.relation == Relation::SamePu ? std::vector { p.a } : std::vector { p.a, p.b }));
    }
}

const std::string kPE = "P" + std::string(kKindPairSeparator) + "E";
const std::string kPP = "P" + std::string(kKindPairSeparator) + "P";
const std::string kEE = "E" + std::string(kKindPairSeparator) + "E";

} // namespace

TEST(TopologyKinds, AlderLakeEachPuCarriesItsKind)
{
    const Topology t = alderLake();
    ASSERT_TRUE(t.hybrid());
    ASSERT_EQ(t.cpuKinds().size(), 2U);
    for (int os = 0; os < 20; ++os) {
        SCOPED_TRACE(os);
        const CpuKind* k = t.kindOfPu(os);
        ASSERT_NE(k, nullptr);
        EXPECT_EQ(t.findPu(os)->kind, k->index);
        // hwloc's efficiency grows with performance: the P-cores (IntelCore) rank 1.
        EXPECT_EQ(k->name, os < 12 ? "P-core" : "E-core");
        EXPECT_EQ(k->shortName, os < 12 ? "P" : "E");
        EXPECT_EQ(k->efficiency, os < 12 ? 1 : 0);
        EXPECT_EQ(k->coreType, os < 12 ? "IntelCore" : "IntelAtom");
        EXPECT_EQ(k->frequencyMaxMhz, os < 12 ? 4700 : 3500);
    }
    EXPECT_EQ(formatCpuList(t.kindOfPu(0)->pus), "0-11");
    EXPECT_EQ(formatCpuList(t.kindOfPu(12)->pus), "12-19");
}

TEST(TopologyKinds, BigLittleIsRankedWithoutACoreType)
{
    // No CoreType: the ranking alone (hwloc's, from the kernel's capacities) names the kinds.
    const Topology t = bigLittle();
    ASSERT_TRUE(t.hybrid());
    for (int os = 0; os < 8; ++os) {
        SCOPED_TRACE(os);
        EXPECT_EQ(nameOf(t, os), os < 4 ? "E-core" : "P-core");
        EXPECT_EQ(t.kindOfPu(os)->coreType, "");
        EXPECT_EQ(t.kindOfPu(os)->frequencyMaxMhz, os < 4 ? 1800 : 2400);
    }
}

TEST(TopologyKinds, KindsThatAreNotTwoRankedOnesAreNamedByCoreTypeOrIndex)
{
    std::vector<CpuKind> kinds(3);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        kinds[i].index = static_cast<int>(i);
        kinds[i].efficiency = static_cast<int>(i);
    }
    kinds[0].coreType = "IntelAtom";
    kinds[1].coreType = "IntelAtom"; // two low-power kinds of one CoreType: names must differ
    kinds[2].coreType = "IntelCore";
    nameCpuKinds(kinds);
    EXPECT_EQ(kinds[0].name, "kind 0");
    EXPECT_EQ(kinds[1].name, "kind 1");
    EXPECT_EQ(kinds[2].name, "IntelCore");
    EXPECT_EQ(kinds[2].shortName, "IntelCore");

    // Two kinds hwloc could not rank: no P or E, whatever their CoreType.
    std::vector<CpuKind> unranked(2);
    unranked[1].index = 1;
    unranked[0].coreType = "IntelCore";
    nameCpuKinds(unranked);
    EXPECT_EQ(unranked[0].name, "IntelCore");
    EXPECT_EQ(unranked[1].name, "kind 1");

    // Two ranked kinds: P and E by rank, not by their order in the list.
    std::vector<CpuKind> ranked(2);
    ranked[0].efficiency = 1;
    ranked[1].index = 1;
    ranked[1].efficiency = 0;
    nameCpuKinds(ranked);
    EXPECT_EQ(ranked[0].name, "P-core");
    EXPECT_EQ(ranked[1].name, "E-core");
}

TEST(TopologyKinds, OneKindOrNoneChangesNothing)
{
    // The same machine with no kind, and with one kind covering every PU.
    const std::string plain = readAll(fixture("good/smt-siblings-apart.xml"));
    std::string oneKind = plain;
    oneKind.insert(oneKind.find("</topology>"),
        "  <cpukind cpuset=\"0x000000ff\" forced_efficiency=\"0\">\n"
        "    <info name=\"CoreType\" value=\"IntelCore\"/>\n  </cpukind>\n");
    auto none = Topology::loadXmlBuffer(plain);
    auto one = Topology::loadXmlBuffer(oneKind);
    ASSERT_TRUE(none) << none.error().message;
    ASSERT_TRUE(one) << one.error().message;
    EXPECT_EQ(one->cpuKinds().size(), 1U);
    EXPECT_EQ(none->cpuKinds().size(), 0U);
    for (const Topology* t : { &*none, &*one }) {
        EXPECT_FALSE(t->hybrid());
        EXPECT_EQ(t->kindOfPu(0), nullptr);
        EXPECT_EQ(kindsText(*t, { 0, 4 }), "");
        for (const PuPair& p : representativePairs(*t))
            EXPECT_EQ(p.kinds, "");
        const nlohmann::json j = topologyToJson(*t);
        EXPECT_FALSE(j.contains("cpu_kinds"));
        EXPECT_FALSE(j["pus"][0].contains("kind"));
        EXPECT_EQ(describeTopology(*t).find("Kinds of core"), std::string::npos);
    }
    EXPECT_EQ(classesOf(representativePairs(*none)), classesOf(representativePairs(*one)));
    const auto synthetic = Topology::loadSynthetic("pack:1 l3:1 core:4 pu:2");
    ASSERT_TRUE(synthetic);
    EXPECT_FALSE(synthetic->hybrid());
}

TEST(TopologyKinds, KindPairsNameTheMorePerformantFirst)
{
    const Topology t = alderLake();
    EXPECT_EQ(kindsText(t, { 0, 12 }), kPE);
    EXPECT_EQ(kindsText(t, { 12, 0 }), kPE);
    EXPECT_EQ(kindsText(t, { 12, 13 }), kEE);
    EXPECT_EQ(kindsText(t, { 0, 1 }), kPP);
    EXPECT_EQ(kindsText(t, { 0 }), "P");
    EXPECT_EQ(kindsText(t, { 14, 14 }), "E");
    EXPECT_EQ(kindsText(t, { 0, 99 }), ""); // no such PU: no kinds
    EXPECT_EQ(relationText(Relation::SharedL3, kPE), "shared-l3, " + kPE);
    EXPECT_EQ(relationText(Relation::SharedL3, ""), "shared-l3");
}

TEST(TopologyKinds, AlderLakeHasARepresentativePairPerClassAndKinds)
{
    // P-core siblings share a core (smt), E-cores of a cluster an L2, everything the L3.
    const Topology t = alderLake();
    const auto pairs = representativePairs(t);
    const std::vector<ClassAndKinds> want { { "same-pu", "P" }, { "same-pu", "E" }, { "smt", kPP },
        { "shared-l2", kEE }, { "shared-l3", kPP }, { "shared-l3", kPE }, { "shared-l3", kEE } };
    EXPECT_EQ(classesOf(pairs), want);
    expectPairsConsistent(t, pairs);
    // Every pair of the machine falls in one of those.
    auto all = allPairs(t);
    ASSERT_TRUE(all) << all.error().message;
    std::set<ClassAndKinds> seen;
    for (const PuPair& p : *all)
        seen.emplace(std::string(toString(p.relation)),
            kindsText(t, p.a == p.b ? std::vector { p.a } : std::vector { p.a, p.b }));
    EXPECT_EQ(seen, std::set<ClassAndKinds>(want.begin(), want.end()));
    // Two per class and kinds where the machine has them: disjoint pairs.
    const auto two = representativePairs(t, 2);
    EXPECT_EQ(two.size(), 14U);
    expectPairsConsistent(t, two);
}

TEST(TopologyKinds, BigLittleClusters)
{
    // No L3: the two clusters meet only in the package.
    const Topology t = bigLittle();
    const auto pairs = representativePairs(t);
    const std::vector<ClassAndKinds> want { { "same-pu", "P" }, { "same-pu", "E" }, { "shared-l2", kPP },
        { "shared-l2", kEE }, { "same-package", kPE } };
    EXPECT_EQ(classesOf(pairs), want);
    expectPairsConsistent(t, pairs);
}

TEST(TopologyKinds, TheReportListsKindsAndPairsWithTheirKinds)
{
    const Topology t = alderLake();
    const std::string text = describeTopology(t);
    EXPECT_NE(text.find("PU L#12 (P#12, E-core)"), std::string::npos) << text;
    EXPECT_NE(text.find("P-core   CPUs 0-11, efficiency 1, IntelCore, up to 4700 MHz"), std::string::npos) << text;
    EXPECT_NE(text.find("shared-l3, " + kPE), std::string::npos) << text;
    const nlohmann::json j = topologyToJson(t);
    ASSERT_EQ(j["cpu_kinds"].size(), 2U);
    EXPECT_EQ(j["pus"][12]["kind"], "E-core");
    bool mixed = false;
    for (const auto& p : j["representative_pairs"])
        mixed = mixed || (p["relation"] == "shared-l3" && p["kinds"] == kPE);
    EXPECT_TRUE(mixed) << j["representative_pairs"].dump();
}

TEST(TopologyKinds, TheSurveyPlansEveryKindPair)
{
    for (const Topology& t : { alderLake(), bigLittle() }) {
        SCOPED_TRACE(t.origin());
        const auto plan = planSurvey(t, kSurveyMaxSeconds, SurveyConditions { "", std::uint64_t { 64 } << 30 });
        ASSERT_TRUE(plan) << plan.error().message;
        EXPECT_EQ(classesOf(plan->pairs), classesOf(representativePairs(t)));
        // The futex thread run on each pair, one PU of each kind included.
        for (const PuPair& p : plan->pairs) {
            const std::vector<int> cpus { p.a, p.b };
            const bool planned = std::any_of(plan->steps.begin(), plan->steps.end(), [&](const SurveyStep& s) {
                return s.kind == SurveyStepKind::Run && s.spec.bench == "futex" && s.spec.mode == BenchMode::Thread
                    && s.spec.wsBytes == 0 && s.spec.cpus == cpus;
            });
            EXPECT_TRUE(planned) << relationText(p.relation, p.kinds);
        }
        const bool labelled = std::any_of(plan->steps.begin(), plan->steps.end(),
            [&](const SurveyStep& s) { return s.label.find(", " + kPE + " (CPUs") != std::string::npos; });
        EXPECT_TRUE(labelled);
    }
}

TEST(TopologyKinds, AResultKeepsItsKindsThroughJson)
{
    RunResult r;
    r.bench = "futex";
    r.op = "round trip";
    r.placement.relation = Relation::SharedL3;
    r.placement.cpus = { 0, 12 };
    r.placement.tasks = 2;
    r.placement.kinds = kPE;
    r.repetitions = 1;
    r.iterations = 1;
    r.switchesPerOp = 2;
    r.opsPerSample = 1;
    r.stats.p50 = 5000;
    r.stats.count = 1;
    const nlohmann::json j = resultToJson(r);
    EXPECT_EQ(j["kinds"], kPE);
    EXPECT_EQ(j["name"], "futex/thread/shared-l3/kinds:" + kPE);
    auto back = resultFromJson(j);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->placement.kinds, kPE);
    r.placement.kinds.clear();
    EXPECT_FALSE(resultToJson(r).contains("kinds"));
}

TEST(TopologyKinds, CompareMatchesByClassAndKinds)
{
    const auto run = [](const std::string& kinds, double ns) {
        RunResult r;
        r.bench = "futex";
        r.op = "round trip";
        r.placement.relation = Relation::SharedL3;
        r.placement.tasks = 2;
        r.placement.kinds = kinds;
        r.repetitionMedians = { ns * 0.99, ns, ns * 1.01 };
        r.repetitions = 3;
        r.stats.p50 = ns;
        r.stats.count = 3;
        return r;
    };
    const auto topology = Topology::loadSynthetic("pack:1 core:2 pu:1");
    ASSERT_TRUE(topology);
    const auto card = [&](const std::string& path, const std::vector<RunResult>& runs) {
        const nlohmann::json doc = makeReport(makeContext(SysInfo {}, *topology, ClockInfo {}), runs, false);
        auto c = machineCardFromText(doc.dump(), path);
        EXPECT_TRUE(c) << c.error().message;
        return *c;
    };
    // Laptop A ran P↔P and P↔E; laptop B P↔E and E↔E: only P↔E is on both.
    const MachineCard a = card("a.json", { run(kPP, 3000), run(kPE, 5000) });
    const MachineCard b = card("b.json", { run(kPE, 10000), run(kEE, 8000) });
    auto c = compareMachines({ a, b }, 0);
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_EQ(c->rows.size(), 3U);
    for (const MachineRow& row : c->rows) {
        SCOPED_TRACE(row.kinds);
        const bool both = row.kinds == kPE;
        EXPECT_EQ(row.cells[1].ratio.has_value(), both);
        if (both) {
            EXPECT_NEAR(*row.cells[1].ratio, 2.0, 1e-9);
        }
    }
    EXPECT_NE(formatMachineComparison(*c, CompareFormat::Text).find("shared-l3, " + kPE), std::string::npos);
}
