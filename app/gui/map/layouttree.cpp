// SPDX-License-Identifier: MIT
#include "layouttree.h"

#include "ctxscope/topology_report.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <iterator>

namespace ctxscope::gui::detail {

namespace {

BoxKind boxKind(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Die:
        return BoxKind::Die;
    case NodeKind::Group:
        return BoxKind::Group;
    case NodeKind::Cache:
        return BoxKind::Cache;
    case NodeKind::Core:
        return BoxKind::Core;
    case NodeKind::Pu:
        return BoxKind::Pu;
    case NodeKind::Machine:
    case NodeKind::Package:
        break;
    }
    return BoxKind::Package;
}

LayoutItem fromNode(const TopoNode& node)
{
    LayoutItem item { boxKind(node.kind), &node, nullptr, node.pus, {}, false };
    item.children.reserve(node.children.size());
    for (const TopoNode& child : node.children)
        item.children.push_back(fromNode(child));
    return item;
}

// Both sorted ascending.
bool isSubset(const std::vector<int>& part, const std::vector<int>& whole)
{
    return std::includes(whole.begin(), whole.end(), part.begin(), part.end());
}

bool intersects(const std::vector<int>& a, const std::vector<int>& b)
{
    return std::find_first_of(a.begin(), a.end(), b.begin(), b.end()) != a.end();
}

// Like lstopo, a NUMA node goes inside the highest object with exactly its PUs (a
// package, usually); when no object has them (two of four L3s, say) it wraps the
// children of the smallest object that holds them all.
void insertNuma(LayoutItem& root, const NumaNodeInfo& numa)
{
    if (numa.pus.empty())
        return; // memory without CPUs (CXL, HBM-only): nothing to wrap
    LayoutItem* at = &root;
    for (;;) {
        if (at != &root && at->pus == numa.pus) {
            if (at->kind == BoxKind::Pu)
                return;
            LayoutItem box { BoxKind::Numa, nullptr, &numa, numa.pus, std::move(at->children), false };
            at->children.clear();
            at->children.push_back(std::move(box));
            return;
        }
        auto next = std::find_if(
            at->children.begin(), at->children.end(), [&](const LayoutItem& c) { return isSubset(numa.pus, c.pus); });
        if (next == at->children.end())
            break;
        at = &*next;
    }
    auto& kids = at->children;
    const bool straddles = std::any_of(kids.begin(), kids.end(),
        [&](const LayoutItem& c) { return intersects(c.pus, numa.pus) && !isSubset(c.pus, numa.pus); });
    if (straddles)
        return; // an object half in, half out: no box can show this node faithfully
    const auto inNuma = [&](const LayoutItem& c) { return !c.pus.empty() && isSubset(c.pus, numa.pus); };
    // Everything before the first child inside the node stays put, so the box goes there.
    const auto first = std::find_if(kids.begin(), kids.end(), inNuma) - kids.begin();
    if (first == static_cast<std::ptrdiff_t>(kids.size()))
        return;
    auto inside = std::stable_partition(kids.begin(), kids.end(), [&](const LayoutItem& c) { return !inNuma(c); });
    LayoutItem box { BoxKind::Numa, nullptr, &numa, numa.pus, {}, false };
    std::move(inside, kids.end(), std::back_inserter(box.children));
    kids.erase(inside, kids.end());
    kids.insert(kids.begin() + first, std::move(box));
}

// A cache above exactly one core (L2 and L1d on most machines), possibly through others.
bool isPrivateCache(const LayoutItem& item)
{
    if (item.kind != BoxKind::Cache || item.children.size() != 1)
        return false;
    const LayoutItem& child = item.children.front();
    return child.kind == BoxKind::Core || isPrivateCache(child);
}

// Cache levels (bit n for level n) with an instance that is not private to one core.
unsigned sharedCacheLevels(const LayoutItem& item)
{
    unsigned shared = item.kind == BoxKind::Cache && !isPrivateCache(item) ? 1U << (item.node->cacheLevel & 31) : 0U;
    for (const LayoutItem& child : item.children)
        shared |= sharedCacheLevels(child);
    return shared;
}

void markFolding(LayoutItem& item, unsigned shared)
{
    item.folds = item.kind == BoxKind::Cache && (shared & (1U << (item.node->cacheLevel & 31))) == 0;
    for (LayoutItem& child : item.children)
        markFolding(child, shared);
}

void markKinds(LayoutItem& item, const Topology& topology)
{
    if (item.kind == BoxKind::Core && !item.pus.empty())
        if (const CpuKind* kind = topology.kindOfPu(item.pus.front()))
            item.kindName = QString::fromStdString(kind->name);
    for (LayoutItem& child : item.children)
        markKinds(child, topology);
}

QString bytes(std::uint64_t n) { return QString::fromStdString(formatCacheSize(n)); }

QString memory(std::uint64_t n)
{
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    if (n >= (1ULL << 30))
        return QString::number(static_cast<double>(n) / kGiB, 'f', n % (1ULL << 30) == 0 ? 0 : 1)
            + QStringLiteral("GB");
    return bytes(n);
}

} // namespace

LayoutItem buildLayoutTree(const Topology& topology)
{
    LayoutItem root;
    const TopoNode& top = topology.root();
    root.pus = top.pus;
    if (top.kind == NodeKind::Machine)
        for (const TopoNode& child : top.children)
            root.children.push_back(fromNode(child));
    else
        root.children.push_back(fromNode(top));
    if (topology.numaNodes().size() > 1)
        for (const NumaNodeInfo& numa : topology.numaNodes())
            insertNuma(root, numa);
    markFolding(root, sharedCacheLevels(root));
    if (topology.hybrid())
        markKinds(root, topology);
    return root;
}

QString itemLabel(const LayoutItem& item, const LabelPlan& plan)
{
    const bool compact = plan.detail == LabelDetail::Compact;
    if (item.kind == BoxKind::Pu) {
        if (!plan.puNumbers)
            return {};
        const TopoNode& n = *item.node;
        if (plan.detail == LabelDetail::Full)
            return QStringLiteral("PU P#%1 (L#%2)").arg(n.osIndex).arg(n.logicalIndex);
        return compact ? QString::number(n.osIndex) : QStringLiteral("P#%1").arg(n.osIndex);
    }
    if (plan.titles == TitleDetail::None)
        return {};
    const bool brief = plan.titles == TitleDetail::Short;
    if (item.kind == BoxKind::Numa) {
        if (brief)
            return QStringLiteral("N%1").arg(item.numa->osIndex);
        return compact ? QStringLiteral("NUMA %1").arg(item.numa->osIndex)
                       : QStringLiteral("NUMA P#%1 (%2)").arg(item.numa->osIndex).arg(memory(item.numa->localMemory));
    }
    const TopoNode& n = *item.node;
    switch (item.kind) {
    case BoxKind::Core:
        // In compact maps the core's border says enough; its name stays in the tooltip.
        // On a hybrid machine the title names the kind ("E-core L#6"); compact maps shade it.
        return compact ? QString()
                       : QStringLiteral("%1 L#%2")
                             .arg(item.kindName.isEmpty() ? QStringLiteral("Core") : item.kindName)
                             .arg(n.logicalIndex);
    case BoxKind::Cache: {
        // When space is short, private caches fold onto their core like lstopo's
        // "L2 + L1d + Core" lines; their sizes stay in the tooltips.
        if (compact && item.folds)
            return {};
        // Only data and unified caches are modelled, so level 1 is the L1d.
        const QString level = n.cacheLevel == 1 ? QStringLiteral("L1d") : QStringLiteral("L%1").arg(n.cacheLevel);
        return brief ? level : level + QLatin1Char(' ') + bytes(n.cacheSize);
    }
    case BoxKind::Package:
        return brief ? QStringLiteral("P%1").arg(n.logicalIndex) : QStringLiteral("Package L#%1").arg(n.logicalIndex);
    case BoxKind::Die:
        return brief ? QStringLiteral("D%1").arg(n.logicalIndex) : QStringLiteral("Die L#%1").arg(n.logicalIndex);
    case BoxKind::Group:
        return brief ? QStringLiteral("G%1").arg(n.logicalIndex) : QStringLiteral("Group L#%1").arg(n.logicalIndex);
    case BoxKind::Numa:
    case BoxKind::Pu:
        break;
    }
    return {};
}

void describeBox(const LayoutItem& item, const Topology& topology, LayoutBox& box)
{
    box.kind = item.kind;
    box.pus = item.pus;
    if (item.numa) {
        box.osIndex = item.numa->osIndex;
        box.memory = item.numa->localMemory;
    }
    if (item.node) {
        box.logicalIndex = item.node->logicalIndex;
        box.osIndex = item.node->osIndex;
        box.cacheLevel = item.node->cacheLevel;
        box.cacheSize = item.node->cacheSize;
        box.cacheLineSize = item.node->cacheLineSize;
    }
    if (topology.hybrid() && !item.pus.empty()) {
        const CpuKind* first = topology.kindOfPu(item.pus.front());
        const bool one = first
            && std::all_of(item.pus.begin(), item.pus.end(), [&](int os) { return topology.kindOfPu(os) == first; });
        box.cpuKind = one ? first->index : -1;
    }
    box.allowed = std::any_of(item.pus.begin(), item.pus.end(), [&](int os) {
        const PuInfo* pu = topology.findPu(os);
        return pu && pu->allowed && pu->inAffinity;
    });
}

} // namespace ctxscope::gui::detail
