// SPDX-License-Identifier: MIT
// Turns a loaded hwloc topology into the Qt-free model: a tree like lstopo draws and flat
// per-PU facts for relation classes.
#include "topology_impl.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace ctxscope {

std::vector<int> bitmapToVector(hwloc_const_bitmap_t bitmap)
{
    std::vector<int> out;
    if (!bitmap || hwloc_bitmap_weight(bitmap) < 0)
        return out; // infinite sets do not occur for PU sets; treat as empty
    for (int i = hwloc_bitmap_first(bitmap); i != -1; i = hwloc_bitmap_next(bitmap, i))
        out.push_back(i);
    return out;
}

namespace {

bool isDataCache(hwloc_obj_t obj) { return hwloc_obj_type_is_dcache(obj->type) != 0; }

std::optional<NodeKind> kindOf(hwloc_obj_t obj)
{
    switch (obj->type) {
    case HWLOC_OBJ_MACHINE:
        return NodeKind::Machine;
    case HWLOC_OBJ_PACKAGE:
        return NodeKind::Package;
    case HWLOC_OBJ_DIE:
        return NodeKind::Die;
    case HWLOC_OBJ_GROUP:
        return NodeKind::Group;
    case HWLOC_OBJ_CORE:
        return NodeKind::Core;
    case HWLOC_OBJ_PU:
        return NodeKind::Pu;
    default:
        return isDataCache(obj) ? std::optional(NodeKind::Cache) : std::nullopt;
    }
}

int toInt(unsigned value)
{
    if (value == HWLOC_UNKNOWN_INDEX)
        return -1;
    return value > static_cast<unsigned>(std::numeric_limits<int>::max()) ? std::numeric_limits<int>::max()
                                                                          : static_cast<int>(value);
}

// Appends the model of obj to out; objects we do not draw (instruction caches, misc) are
// skipped and their children hoisted into the parent.
void convert(hwloc_obj_t obj, std::vector<TopoNode>& out)
{
    auto kind = kindOf(obj);
    std::vector<TopoNode>* target = &out;
    if (kind) {
        TopoNode node;
        node.kind = *kind;
        node.logicalIndex = static_cast<int>(obj->logical_index);
        node.osIndex = toInt(obj->os_index);
        node.pus = bitmapToVector(obj->cpuset);
        if (*kind == NodeKind::Cache) {
            node.cacheLevel = static_cast<int>(obj->attr->cache.depth);
            node.cacheSize = obj->attr->cache.size;
            node.cacheLineSize = static_cast<int>(obj->attr->cache.linesize);
        }
        out.push_back(std::move(node));
        target = &out.back().children;
    }
    for (unsigned i = 0; i < obj->arity; ++i)
        convert(obj->children[i], *target);
}

int ancestorIndex(hwloc_topology_t t, hwloc_obj_t pu, hwloc_obj_type_t type)
{
    hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, pu);
    return a ? static_cast<int>(a->logical_index) : -1;
}

// The NUMA node closest to a PU: the first one attached to its nearest ancestor that has
// memory. Not "the first node covering the PU": memory attached at the Machine level (CXL,
// HBM in flat mode) covers every PU and would hide the real local node.
int localNumaNode(hwloc_obj_t pu)
{
    for (hwloc_obj_t obj = pu->parent; obj; obj = obj->parent) {
        for (hwloc_obj_t mem = obj->memory_first_child; mem;) {
            if (mem->type == HWLOC_OBJ_NUMANODE)
                return toInt(mem->os_index);
            mem = mem->memory_first_child ? mem->memory_first_child : mem->next_sibling;
        }
    }
    return -1;
}

// The affinity of the calling thread (what taskset set, inherited), of any size.
Expected<std::vector<int>> threadAffinity(hwloc_topology_t t)
{
    HwlocBitmap set(hwloc_bitmap_alloc());
    if (!set || hwloc_get_cpubind(t, set.get(), HWLOC_CPUBIND_THREAD) != 0)
        return makeError(std::string("could not read this thread's CPU affinity: ") + std::strerror(errno));
    return bitmapToVector(set.get());
}

Status checkPus(const std::vector<PuInfo>& pus)
{
    if (pus.empty())
        return makeError("the topology has no processing units");
    if (pus.size() > static_cast<std::size_t>(kMaxPus))
        return makeError("the topology has " + std::to_string(pus.size()) + " PUs; ctxscope handles at most "
            + std::to_string(kMaxPus));
    for (std::size_t i = 0; i < pus.size(); ++i) {
        if (pus[i].osIndex < 0)
            return makeError("PU L#" + std::to_string(pus[i].logicalIndex) + " has no OS index (P#)");
        if (pus[i].osIndex > kMaxCpuIndex)
            return makeError("PU L#" + std::to_string(pus[i].logicalIndex) + " has OS index P#"
                + std::to_string(pus[i].osIndex) + ", above " + std::to_string(kMaxCpuIndex));
        if (i > 0 && pus[i].osIndex == pus[i - 1].osIndex)
            return makeError("two PUs have the same OS index P#" + std::to_string(pus[i].osIndex));
    }
    return {};
}

} // namespace

const char* foreignTopologyVariable()
{
    for (const char* name : { "HWLOC_XMLFILE", "HWLOC_SYNTHETIC", "HWLOC_FSROOT" }) {
        const char* value = std::getenv(name);
        if (value && *value)
            return name;
    }
    return nullptr;
}

Expected<std::shared_ptr<Topology::Impl>> buildModel(HwlocHandle handle, TopologySource source, std::string origin)
{
    auto impl = std::make_shared<Topology::Impl>();
    hwloc_topology_t t = handle.get();
    impl->source = source;
    impl->origin = std::move(origin);
    // hwloc reports "this system" for an XML file when HWLOC_THISSYSTEM=1 is set; binding
    // must only ever be attempted on the machine hwloc actually discovered.
    impl->thisSystem = source == TopologySource::Live && hwloc_topology_is_thissystem(t) != 0
        && foreignTopologyVariable() == nullptr;

    std::vector<TopoNode> top;
    convert(hwloc_get_root_obj(t), top);
    impl->root = top.empty() ? TopoNode {} : std::move(top.front());

    if (impl->thisSystem) {
        auto affinity = threadAffinity(t);
        if (!affinity)
            return affinity.error();
        impl->affinity = std::move(*affinity);
    }
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t);

    const int npus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    for (int i = 0; i < npus; ++i) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(i));
        if (!pu)
            continue;
        PuInfo info;
        info.osIndex = toInt(pu->os_index);
        info.logicalIndex = static_cast<int>(pu->logical_index);
        info.core = ancestorIndex(t, pu, HWLOC_OBJ_CORE);
        info.l1 = ancestorIndex(t, pu, HWLOC_OBJ_L1CACHE);
        info.l2 = ancestorIndex(t, pu, HWLOC_OBJ_L2CACHE);
        info.l3 = ancestorIndex(t, pu, HWLOC_OBJ_L3CACHE);
        info.package = ancestorIndex(t, pu, HWLOC_OBJ_PACKAGE);
        info.numaNode = localNumaNode(pu);
        info.allowed = allowed && hwloc_bitmap_isset(allowed, pu->os_index) != 0;
        info.inAffinity
            = !impl->thisSystem || std::binary_search(impl->affinity.begin(), impl->affinity.end(), info.osIndex);
        impl->pus.push_back(info);
    }
    std::sort(
        impl->pus.begin(), impl->pus.end(), [](const PuInfo& a, const PuInfo& b) { return a.osIndex < b.osIndex; });
    impl->kinds = readCpuKinds(t);
    for (const CpuKind& kind : impl->kinds)
        for (int os : kind.pus) {
            auto it = std::lower_bound(
                impl->pus.begin(), impl->pus.end(), os, [](const PuInfo& p, int value) { return p.osIndex < value; });
            if (it != impl->pus.end() && it->osIndex == os)
                it->kind = kind.index;
        }
    if (auto ok = checkPus(impl->pus); !ok)
        return ok.error();

    for (hwloc_obj_type_t type :
        { HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE }) {
        const int n = hwloc_get_nbobjs_by_type(t, type);
        for (int i = 0; i < n; ++i) {
            hwloc_obj_t c = hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i));
            if (!c)
                continue;
            impl->caches.push_back(
                CacheInfo { static_cast<int>(c->attr->cache.depth), static_cast<int>(c->logical_index),
                    c->attr->cache.size, static_cast<int>(c->attr->cache.linesize), bitmapToVector(c->cpuset) });
        }
    }
    const int nnuma = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nnuma; ++i) {
        hwloc_obj_t n = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
        if (!n)
            continue;
        impl->numaNodes.push_back(
            NumaNodeInfo { toInt(n->os_index), n->attr->numanode.local_memory, bitmapToVector(n->cpuset) });
    }
    impl->handle = std::move(handle);
    return impl;
}

} // namespace ctxscope
