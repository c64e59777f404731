// SPDX-License-Identifier: MIT
#include "ctxscope/placement.h"

#include "relations.h"
#include "topology_impl.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
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

bool usable(const PuInfo& p) { return p.allowed && p.inAffinity; }

std::string noSuchCpu(const Topology& topology, int os)
{
    std::vector<int> all;
    for (const auto& p : topology.pus())
        all.push_back(p.osIndex);
    return "CPU " + std::to_string(os) + " does not exist ("
        + (topology.isThisSystem() ? "this machine" : "the topology") + " has CPUs " + formatCpuList(all) + ")";
}

// 0..n-1 in bit-reversed order of the next power of two: each prefix is spread evenly.
std::vector<std::size_t> spreadOrder(std::size_t n)
{
    unsigned bits = 0;
    while ((std::size_t { 1 } << bits) < n)
        ++bits;
    std::vector<std::size_t> order;
    order.reserve(n);
    for (std::size_t v = 0; v < (std::size_t { 1 } << bits); ++v) {
        std::size_t r = 0;
        for (unsigned b = 0; b < bits; ++b)
            r |= ((v >> b) & 1U) << (bits - 1 - b);
        if (r < n)
            order.push_back(r);
    }
    return order;
}

// Each kind's place in performance order (the most performant 0), by kind index: by hwloc's
// efficiency rank, highest first; unranked kinds in hwloc's order.
std::vector<int> kindPositions(const Topology& topology)
{
    const auto& kinds = topology.cpuKinds();
    std::vector<std::size_t> order(kinds.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&](std::size_t x, std::size_t y) { return kinds[x].efficiency > kinds[y].efficiency; });
    std::vector<int> position(kinds.size());
    for (std::size_t p = 0; p < order.size(); ++p)
        position[order[p]] = static_cast<int>(p);
    return position;
}

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
            return makeError(noSuchCpu(topology, os));
    return classify(*a, *b);
}

std::vector<PuPair> representativePairs(const Topology& topology, int perClass)
{
    if (perClass <= 0)
        return {};
    const std::size_t k = static_cast<std::size_t>(perClass);
    std::vector<const PuInfo*> pus;
    for (const auto& p : topology.pus())
        if (usable(p))
            pus.push_back(&p);
    const std::size_t n = pus.size();
    // A pair's key: its class, and on a hybrid machine the positions of its two kinds in
    // performance order (the lower first), so a class has one key per kind pair.
    const std::vector<int> position = kindPositions(topology);
    const std::size_t kinds = topology.hybrid() ? topology.cpuKinds().size() + 1 : 1; // + PUs without a kind
    const auto positionOf = [&](const PuInfo& p) {
        return kinds == 1 ? std::size_t { 0 }
            : p.kind >= 0 ? static_cast<std::size_t>(position[static_cast<std::size_t>(p.kind)])
                          : kinds - 1;
    };
    const auto keyOf = [&](Relation r, const PuInfo& a, const PuInfo& b) {
        const std::size_t pa = positionOf(a);
        const std::size_t pb = positionOf(b);
        return (static_cast<std::size_t>(r) * kinds + std::min(pa, pb)) * kinds + std::max(pa, pb);
    };
    const std::size_t nKeys = kPinnedClasses * kinds * kinds;
    // Knowing which classes exist lets the search stop as soon as each has its pairs, instead
    // of classifying all n^2 pairs of a large machine. Which kind pairs each class has is not
    // known beforehand: a hybrid machine (a laptop's few dozen PUs) looks at every pair.
    std::vector<bool> present(nKeys, kinds == 1);
    if (kinds == 1) {
        const auto classes = classesPresent(pus);
        for (std::size_t c = 0; c < kPinnedClasses; ++c)
            present[c] = classes[c];
    }
    std::vector<std::vector<PuPair>> found(nKeys);
    std::vector<std::vector<bool>> used(nKeys, std::vector<bool>(n, false));
    const auto full = [&] {
        if (kinds > 1)
            return false;
        for (std::size_t c = 0; c < nKeys; ++c)
            if (present[c] && found[c].size() < k)
                return false;
        return true;
    };
    // First PUs in bit-reversed order (0, n/2, n/4, 3n/4, ...) so that successive pairs of a
    // class land far apart, e.g. in different packages.
    const std::vector<std::size_t> order = spreadOrder(n);
    // Pass 1 takes only pairs whose PUs no pair of the same class uses yet; pass 2 fills up
    // classes that have fewer disjoint pairs than asked for (a 2-PU machine and k = 2).
    for (int pass = 0; pass < 2 && !full(); ++pass) {
        for (std::size_t i : order) {
            for (std::size_t j = 0; j < n; ++j) {
                const Relation r = classify(*pus[i], *pus[j]); // same-pu exactly when i == j
                const std::size_t c = keyOf(r, *pus[i], *pus[j]);
                auto& list = found[c];
                if (list.size() >= k || (pass == 0 && (used[c][i] || used[c][j])))
                    continue;
                PuPair pair { std::min(pus[i]->osIndex, pus[j]->osIndex), std::max(pus[i]->osIndex, pus[j]->osIndex), r,
                    {} };
                if (pass == 1 && std::any_of(list.begin(), list.end(), [&](const PuPair& p) {
                        return p.a == pair.a && p.b == pair.b;
                    }))
                    continue;
                if (kinds > 1)
                    pair.kinds = kindsText(topology, { pair.a, pair.b });
                list.push_back(std::move(pair));
                used[c][i] = used[c][j] = true;
            }
            if (full())
                break;
        }
    }
    std::vector<PuPair> out;
    for (const auto& list : found)
        out.insert(out.end(), list.begin(), list.end());
    return out;
}

std::string kindsText(const Topology& topology, const std::vector<int>& cpus)
{
    if (!topology.hybrid() || cpus.empty())
        return {};
    const std::vector<int> position = kindPositions(topology);
    std::vector<const CpuKind*> kinds;
    for (int cpu : cpus) {
        const CpuKind* kind = topology.kindOfPu(cpu);
        if (!kind)
            return {};
        kinds.push_back(kind);
    }
    if (std::all_of(cpus.begin(), cpus.end(), [&](int c) { return c == cpus.front(); }))
        return kinds.front()->shortName;
    const auto rank = [&](const CpuKind* kind) { return position[static_cast<std::size_t>(kind->index)]; };
    std::sort(kinds.begin(), kinds.end(), [&](const CpuKind* x, const CpuKind* y) { return rank(x) < rank(y); });
    kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
    if (kinds.size() == 1)
        kinds.push_back(kinds.front());
    std::string out;
    for (const CpuKind* kind : kinds)
        out += (out.empty() ? "" : std::string(kKindPairSeparator)) + kind->shortName;
    return out;
}

std::string relationText(Relation relation, std::string_view kinds)
{
    std::string out(toString(relation));
    if (!kinds.empty())
        out += ", " + std::string(kinds);
    return out;
}

Expected<std::vector<PuPair>> allPairs(const Topology& topology, std::size_t maxPus)
{
    std::vector<const PuInfo*> pus;
    for (const auto& p : topology.pus())
        if (usable(p))
            pus.push_back(&p);
    const std::size_t n = pus.size();
    if (n > maxPus)
        return makeError("listing all pairs is for small machines: " + std::to_string(n) + " allowed CPUs give "
            + std::to_string(n * (n + 1) / 2) + " pairs (the limit is " + std::to_string(maxPus)
            + " CPUs); use the representative pairs of each relation class or name the CPUs");
    std::vector<PuPair> out;
    out.reserve(n * (n + 1) / 2);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i; j < n; ++j)
            out.push_back(PuPair { pus[i]->osIndex, pus[j]->osIndex, classify(*pus[i], *pus[j]), {} });
    return out;
}

Status checkPuUsable(const Topology& topology, int osCpu)
{
    const PuInfo* pu = topology.findPu(osCpu);
    if (!pu)
        return makeError(noSuchCpu(topology, osCpu));
    if (pu->allowed && pu->inAffinity)
        return {};
    return makeError("CPU " + std::to_string(osCpu) + " is outside the allowed set "
        + formatCpuList(topology.allowedPus())
        + (pu->allowed ? " (this process's affinity mask, as set by taskset, excludes it)"
                       : " (the cgroup cpuset excludes it)"));
}

Status pinCurrentThread(const Topology& topology, int osCpu)
{
    if (!topology.isThisSystem())
        return makeError("cannot pin to CPU " + std::to_string(osCpu) + ": the topology (" + topology.origin()
            + ") is not this machine, and hwloc would report success without binding");
    if (auto ok = checkPuUsable(topology, osCpu); !ok)
        return ok;
    HwlocBitmap set(hwloc_bitmap_alloc());
    if (!set)
        return makeError("out of memory binding to CPU " + std::to_string(osCpu));
    hwloc_bitmap_only(set.get(), static_cast<unsigned>(osCpu));
    if (hwloc_set_cpubind(topology.impl().handle.get(), set.get(), HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT) != 0) {
        const int err = errno;
        // The cgroup may have shrunk since the topology was loaded.
        if (err == EINVAL)
            return makeError("CPU " + std::to_string(osCpu) + " is outside the allowed set "
                + formatCpuList(topology.allowedPus()) + " (the kernel refused it: the cgroup cpuset changed?)");
        return makeError("binding to CPU " + std::to_string(osCpu) + " failed: " + std::strerror(err));
    }
    // sched_setaffinity() moves the calling thread before it returns; confirm it, since a
    // pin that silently did nothing would make every placement result a lie.
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
    HwlocBitmap set(hwloc_bitmap_alloc());
    if (!set)
        return makeError("out of memory restoring the CPU affinity");
    for (int cpu : topology.affinityPus())
        hwloc_bitmap_set(set.get(), static_cast<unsigned>(cpu));
    if (hwloc_set_cpubind(topology.impl().handle.get(), set.get(), HWLOC_CPUBIND_THREAD) != 0)
        return makeError(std::string("could not restore the CPU affinity: ") + std::strerror(errno));
    return {};
}

bool Placement::onePu() const
{
    return !cpus.empty() && std::all_of(cpus.begin(), cpus.end(), [&](int c) { return c == cpus.front(); });
}

} // namespace ctxscope
