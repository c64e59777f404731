// SPDX-License-Identifier: MIT
#include "ctxscope/placement.h"

#include "topology_impl.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <sched.h>

namespace ctxscope {

namespace {

constexpr std::array<std::pair<Relation, std::string_view>, 8> kNames { {
    { Relation::SamePu, "same-pu" },
    { Relation::Smt, "smt" },
    { Relation::SharedL2, "shared-l2" },
    { Relation::SharedL3, "shared-l3" },
    { Relation::SamePackage, "same-package" },
    { Relation::CrossPackage, "cross-package" },
    { Relation::CrossNuma, "cross-numa" },
    { Relation::Unpinned, "unpinned" },
} };

bool same(int a, int b) { return a >= 0 && a == b; }

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
    // Different NUMA nodes is the more telling fact, even inside one package (AMD NPS modes).
    if (a.numaNode != b.numaNode && a.numaNode >= 0 && b.numaNode >= 0)
        return Relation::CrossNuma;
    if (same(a.package, b.package))
        return Relation::SamePackage;
    return Relation::CrossPackage;
}

bool usable(const PuInfo& p) { return p.allowed && p.inAffinity; }

} // namespace

std::string_view toString(Relation relation)
{
    for (const auto& [r, name] : kNames)
        if (r == relation)
            return name;
    return "?";
}

std::optional<Relation> relationFromString(std::string_view text)
{
    for (const auto& [r, name] : kNames)
        if (name == text)
            return r;
    return std::nullopt;
}

const std::vector<Relation>& allRelations()
{
    static const std::vector<Relation> all = [] {
        std::vector<Relation> v;
        for (const auto& entry : kNames)
            v.push_back(entry.first);
        return v;
    }();
    return all;
}

Expected<Relation> relationOf(const Topology& topology, int osA, int osB)
{
    const PuInfo* a = topology.findPu(osA);
    const PuInfo* b = topology.findPu(osB);
    for (auto [info, os] : { std::pair { a, osA }, std::pair { b, osB } })
        if (!info)
            return makeError("CPU " + std::to_string(os) + " does not exist (this topology has CPUs "
                + formatCpuList(topology.affinityPus()) + ")");
    return classify(*a, *b);
}

std::vector<PuPair> representativePairs(const Topology& topology, int perClass)
{
    std::map<Relation, std::vector<PuPair>> found;
    const auto& pus = topology.pus();
    // Walk pairs nearest-first from each PU; stop early once every class is full, so a
    // 256-PU machine does not enumerate 32k pairs for nothing.
    for (std::size_t i = 0; i < pus.size(); ++i) {
        if (!usable(pus[i]))
            continue;
        for (std::size_t j = i; j < pus.size(); ++j) {
            if (!usable(pus[j]))
                continue;
            const Relation r = classify(pus[i], pus[j]);
            auto& list = found[r];
            if (static_cast<int>(list.size()) < perClass)
                list.push_back(PuPair { pus[i].osIndex, pus[j].osIndex, r });
        }
    }
    std::vector<PuPair> out;
    for (auto& [r, list] : found)
        out.insert(out.end(), list.begin(), list.end());
    return out;
}

std::vector<PuPair> allPairs(const Topology& topology)
{
    std::vector<PuPair> out;
    const auto& pus = topology.pus();
    for (std::size_t i = 0; i < pus.size(); ++i)
        for (std::size_t j = i; j < pus.size(); ++j)
            if (usable(pus[i]) && usable(pus[j]))
                out.push_back(PuPair { pus[i].osIndex, pus[j].osIndex, classify(pus[i], pus[j]) });
    return out;
}

Status pinCurrentThread(const Topology& topology, int osCpu)
{
    if (!topology.isThisSystem())
        return makeError("cannot pin to CPU " + std::to_string(osCpu) + ": the topology (" + topology.origin()
            + ") is not this machine; hwloc would pretend to bind without binding");
    const PuInfo* pu = topology.findPu(osCpu);
    const std::string allowedList = formatCpuList(topology.allowedPus());
    if (!pu)
        return makeError("CPU " + std::to_string(osCpu) + " does not exist (this machine has CPUs "
            + formatCpuList(topology.affinityPus()) + ")");
    if (!pu->allowed || !pu->inAffinity)
        return makeError("CPU " + std::to_string(osCpu) + " is outside the allowed set " + allowedList);
    HwlocBitmap set(hwloc_bitmap_alloc());
    hwloc_bitmap_only(set.get(), static_cast<unsigned>(osCpu));
    if (hwloc_set_cpubind(topology.impl().handle.get(), set.get(), HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT) != 0) {
        const int err = errno;
        if (err == EINVAL)
            return makeError("CPU " + std::to_string(osCpu) + " is outside the allowed set " + allowedList);
        return makeError("binding to CPU " + std::to_string(osCpu) + " failed: " + std::strerror(err));
    }
    // The binding takes effect at the next scheduling point; a call to sched_getcpu after a
    // successful sched_setaffinity already runs on the target CPU, but confirm it.
    const int now = sched_getcpu();
    if (now != osCpu)
        return makeError(
            "bound to CPU " + std::to_string(osCpu) + " but the thread runs on CPU " + std::to_string(now));
    return {};
}

Status unpinCurrentThread(const Topology& topology)
{
    if (!topology.isThisSystem())
        return makeError("the topology (" + topology.origin() + ") is not this machine");
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : topology.affinityPus())
        CPU_SET(static_cast<std::size_t>(cpu), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return makeError(std::string("could not restore the CPU affinity: ") + std::strerror(errno));
    return {};
}

} // namespace ctxscope
