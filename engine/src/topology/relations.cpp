// SPDX-License-Identifier: MIT
// Relation classes. A pair's class is the closest level the two PUs share (core, L2, L3),
// and beyond the L3 it depends only on their NUMA nodes and packages.
#include "relations.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace ctxscope {

namespace {

bool same(int a, int b) { return a >= 0 && a == b; }

// Beyond a shared L3: different NUMA nodes is the more telling fact, even inside one
// package (AMD NPS modes, Intel SNC), so it wins over same-package and cross-package.
// Cross-package needs two known packages; without Package objects (some synthetic
// topologies) nothing says the PUs are apart.
Relation farClass(int numaA, int packageA, int numaB, int packageB)
{
    if (numaA != numaB && numaA >= 0 && numaB >= 0)
        return Relation::CrossNuma;
    if (packageA >= 0 && packageB >= 0 && packageA != packageB)
        return Relation::CrossPackage;
    return Relation::SamePackage;
}

// The object that contains a PU at `level` (1 core, 2 L2, 3 L3) or the nearest one below
// it that exists, tagged with its level; a PU with none of them is a part of its own.
// Two PUs in different parts at level L share no core and no cache up to L (hwloc's tree
// gives PUs of one core the same ancestors), so their class is decided above L.
std::pair<int, long> part(const PuInfo& p, int level)
{
    for (int l = level; l >= 1; --l) {
        const int id = l == 3 ? p.l3 : l == 2 ? p.l2 : p.core;
        if (id >= 0)
            return { l, id };
    }
    return { 0, p.osIndex };
}

std::size_t index(Relation r) { return static_cast<std::size_t>(r); }

// True when some group (PUs with the same id >= 0) holds two different parts.
template <typename GroupOf> bool groupSplits(const std::vector<const PuInfo*>& pus, GroupOf groupOf, int partLevel)
{
    std::map<int, std::pair<std::pair<int, long>, bool>> groups; // first part, split seen
    for (const PuInfo* p : pus) {
        const int g = groupOf(*p);
        if (g < 0)
            continue;
        const auto pt = part(*p, partLevel);
        auto [it, inserted] = groups.try_emplace(g, pt, false);
        if (!inserted && it->second.first != pt)
            return true;
    }
    return false;
}

} // namespace

Relation classify(const PuInfo& a, const PuInfo& b)
{
    if (a.osIndex == b.osIndex)
        return Relation::SamePu;
    if (same(a.core, b.core))
        return Relation::Smt;
    if (same(a.l2, b.l2))
        return Relation::SharedL2;
    if (same(a.l3, b.l3))
        return Relation::SharedL3;
    return farClass(a.numaNode, a.package, b.numaNode, b.package);
}

std::array<bool, kPinnedClasses> classesPresent(const std::vector<const PuInfo*>& pus)
{
    std::array<bool, kPinnedClasses> present {};
    present[index(Relation::SamePu)] = !pus.empty();
    present[index(Relation::Smt)] = groupSplits(
        pus, [](const PuInfo& p) { return p.core; }, 0);
    present[index(Relation::SharedL2)] = groupSplits(
        pus, [](const PuInfo& p) { return p.l2; }, 1);
    present[index(Relation::SharedL3)] = groupSplits(
        pus, [](const PuInfo& p) { return p.l3; }, 2);

    // Pairs that share no L3 (different parts at level 3): their class depends only on the
    // zones (NUMA node, package) of the two PUs. Per zone keep its first part and whether
    // it has a second one.
    struct Zone {
        std::pair<int, long> firstPart;
        bool manyParts = false;
    };
    std::map<std::pair<int, int>, Zone> zones;
    for (const PuInfo* p : pus) {
        const auto pt = part(*p, 3);
        auto [it, inserted] = zones.try_emplace({ p->numaNode, p->package }, Zone { pt });
        if (!inserted && it->second.firstPart != pt)
            it->second.manyParts = true;
    }
    for (auto a = zones.begin(); a != zones.end(); ++a) {
        const auto [numaA, packageA] = a->first;
        if (a->second.manyParts)
            present[index(farClass(numaA, packageA, numaA, packageA))] = true;
        for (auto b = std::next(a); b != zones.end(); ++b) {
            // Two zones fail to give such a pair only when both are one and the same part.
            const bool onePart
                = !a->second.manyParts && !b->second.manyParts && a->second.firstPart == b->second.firstPart;
            if (!onePart)
                present[index(farClass(numaA, packageA, b->first.first, b->first.second))] = true;
        }
    }
    return present;
}

} // namespace ctxscope
