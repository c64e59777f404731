// SPDX-License-Identifier: MIT
#include "ctxscope/topology_report.h"

#include "ctxscope/placement.h"
#include "ctxscope/units.h"

#include <array>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace ctxscope {

namespace {

std::string label(const Topology& topology, const TopoNode& n)
{
    switch (n.kind) {
    case NodeKind::Cache:
        // Only data and unified caches are modelled, so level 1 is always the L1d.
        return fmt::format("L{}{} L#{} ({})", n.cacheLevel, n.cacheLevel == 1 ? "d" : "", n.logicalIndex,
            formatCacheSize(n.cacheSize));
    case NodeKind::Pu: {
        const PuInfo* pu = topology.findPu(n.osIndex);
        const char* note = !pu || pu->allowed ? (!pu || pu->inAffinity ? "" : " (outside the affinity mask)")
                                              : " (not allowed: outside the cgroup cpuset)";
        const CpuKind* kind = topology.kindOfPu(n.osIndex);
        return fmt::format("PU L#{} (P#{}{}){}", n.logicalIndex, n.osIndex, kind ? ", " + kind->name : "", note);
    }
    case NodeKind::Machine: {
        std::uint64_t memory = 0;
        for (const auto& numa : topology.numaNodes())
            memory += numa.localMemory;
        return memory > 0 ? fmt::format("Machine ({} total)", formatCacheSize(memory)) : "Machine";
    }
    default:
        return fmt::format("{} L#{}", toString(n.kind), n.logicalIndex);
    }
}

// lstopo joins single-child chains with " + " on one line.
void describe(const Topology& topology, const TopoNode& n, int indent, std::string& out)
{
    std::string line(static_cast<std::size_t>(indent) * 2, ' ');
    const TopoNode* cur = &n;
    line += label(topology, *cur);
    while (cur->children.size() == 1 && cur->kind != NodeKind::Machine) {
        cur = &cur->children.front();
        line += " + " + label(topology, *cur);
    }
    out += line + '\n';
    for (const auto& c : cur->children)
        describe(topology, c, indent + 1, out);
}

std::vector<int> cpusetAllowed(const Topology& topology)
{
    std::vector<int> out;
    for (const auto& p : topology.pus())
        if (p.allowed)
            out.push_back(p.osIndex);
    return out;
}

nlohmann::json nodeToJson(const TopoNode& n)
{
    nlohmann::json j { { "type", std::string(toString(n.kind)) }, { "logical_index", n.logicalIndex },
        { "os_index", n.osIndex }, { "pus", n.pus } };
    if (n.kind == NodeKind::Cache) {
        j["cache_level"] = n.cacheLevel;
        j["cache_size"] = n.cacheSize;
        j["cache_line_size"] = n.cacheLineSize;
    }
    if (!n.children.empty()) {
        auto& children = j["children"] = nlohmann::json::array();
        for (const auto& c : n.children)
            children.push_back(nodeToJson(c));
    }
    return j;
}

} // namespace

std::string describeTopology(const Topology& topology)
{
    std::string out = fmt::format("Topology of the {}{}\n", topology.origin(),
        topology.isThisSystem() ? "" : " (not this machine: display only, no runs)");
    describe(topology, topology.root(), 0, out);
    for (const auto& numa : topology.numaNodes())
        out += fmt::format("NUMANode P#{}{} local to CPUs {}\n", numa.osIndex,
            numa.localMemory > 0 ? " (" + formatCacheSize(numa.localMemory) + ")" : std::string(),
            formatCpuList(numa.pus));
    out += fmt::format("\nAllowed by the cgroup cpuset:   {}\n", formatCpuList(cpusetAllowed(topology)));
    out += fmt::format("Affinity mask (taskset):        {}\n", formatCpuList(topology.affinityPus()));
    out += fmt::format("Usable for pinning (both):      {}\n", formatCpuList(topology.allowedPus()));
    if (topology.hybrid()) {
        out += "\nKinds of core (hwloc ranks them by efficiency: the higher, the more performant):\n";
        for (const CpuKind& k : topology.cpuKinds())
            out += fmt::format("  {:<8} CPUs {}{}{}{}\n", k.name, formatCpuList(k.pus),
                k.efficiency >= 0 ? fmt::format(", efficiency {}", k.efficiency) : ", not ranked",
                k.coreType.empty() ? "" : ", " + k.coreType,
                k.frequencyMaxMhz > 0 ? fmt::format(", up to {} MHz", k.frequencyMaxMhz) : "");
    }
    out += topology.hybrid() ? "\nRelation classes on this topology (one representative pair per class and kinds):\n"
                             : "\nRelation classes on this topology (one representative pair each):\n";
    // fmt pads by code points, so "P↔E" lines up with ASCII text.
    for (const auto& p : representativePairs(topology))
        out += fmt::format(
            "  {:<{}} CPUs {},{}\n", relationText(p.relation, p.kinds), topology.hybrid() ? 20 : 14, p.a, p.b);
    return out;
}

nlohmann::json topologyToJson(const Topology& topology)
{
    nlohmann::json pus = nlohmann::json::array();
    for (const auto& p : topology.pus())
        pus.push_back({ { "os_index", p.osIndex }, { "logical_index", p.logicalIndex }, { "core", p.core },
            { "l1", p.l1 }, { "l2", p.l2 }, { "l3", p.l3 }, { "package", p.package }, { "numa_node", p.numaNode },
            { "allowed", p.allowed }, { "in_affinity", p.inAffinity } });
    // Kinds only on a hybrid machine: a homogeneous one's JSON is as before.
    if (topology.hybrid())
        for (auto& p : pus)
            if (const CpuKind* kind = topology.kindOfPu(p["os_index"].get<int>()))
                p["kind"] = kind->name;
    nlohmann::json caches = nlohmann::json::array();
    for (const auto& c : topology.caches())
        caches.push_back({ { "level", c.level }, { "logical_index", c.logicalIndex }, { "size", c.size },
            { "line_size", c.lineSize }, { "pus", c.pus } });
    nlohmann::json numa = nlohmann::json::array();
    for (const auto& n : topology.numaNodes())
        numa.push_back({ { "os_index", n.osIndex }, { "local_memory", n.localMemory }, { "pus", n.pus } });
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : representativePairs(topology)) {
        pairs.push_back({ { "relation", std::string(toString(p.relation)) }, { "cpus", { p.a, p.b } } });
        if (!p.kinds.empty())
            pairs.back()["kinds"] = p.kinds;
    }
    nlohmann::json out { { "origin", topology.origin() }, { "this_system", topology.isThisSystem() },
        { "allowed", formatCpuList(topology.allowedPus()) }, { "affinity", formatCpuList(topology.affinityPus()) },
        { "cpuset_allowed", formatCpuList(cpusetAllowed(topology)) }, { "tree", nodeToJson(topology.root()) },
        { "pus", pus }, { "caches", caches }, { "numa_nodes", numa }, { "representative_pairs", pairs } };
    if (topology.hybrid()) {
        nlohmann::json kinds = nlohmann::json::array();
        for (const CpuKind& k : topology.cpuKinds())
            kinds.push_back({ { "name", k.name }, { "short_name", k.shortName }, { "efficiency", k.efficiency },
                { "core_type", k.coreType }, { "frequency_max_mhz", k.frequencyMaxMhz }, { "pus", k.pus } });
        out["cpu_kinds"] = std::move(kinds);
    }
    return out;
}

} // namespace ctxscope
