// SPDX-License-Identifier: MIT
// Turns a loaded hwloc topology into the Qt-free model: a tree like lstopo draws and flat
// per-PU facts for relation classes.
#include "topology_impl.h"

#include <algorithm>
#include <cstdlib>
#include <sched.h>

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

int toInt(unsigned value) { return value == HWLOC_UNKNOWN_INDEX ? -1 : static_cast<int>(value); }

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

std::vector<int> processAffinity()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return out;
    for (std::size_t i = 0; i < CPU_SETSIZE; ++i)
        if (CPU_ISSET(i, &set))
            out.push_back(static_cast<int>(i));
    return out;
}

} // namespace

std::shared_ptr<Topology::Impl> buildModel(HwlocHandle handle, TopologySource source, std::string origin)
{
    auto impl = std::make_shared<Topology::Impl>();
    hwloc_topology_t t = handle.get();
    impl->source = source;
    impl->origin = std::move(origin);
    const char* xmlEnv = std::getenv("HWLOC_XMLFILE");
    const char* synthEnv = std::getenv("HWLOC_SYNTHETIC");
    impl->thisSystem = source == TopologySource::Live && hwloc_topology_is_thissystem(t) != 0 && !(xmlEnv && *xmlEnv)
        && !(synthEnv && *synthEnv);

    std::vector<TopoNode> top;
    convert(hwloc_get_root_obj(t), top);
    impl->root = top.empty() ? TopoNode {} : std::move(top.front());

    if (impl->thisSystem)
        impl->affinity = processAffinity();
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
        hwloc_obj_t numa = hwloc_get_next_obj_covering_cpuset_by_type(t, pu->cpuset, HWLOC_OBJ_NUMANODE, nullptr);
        info.numaNode = numa ? toInt(numa->os_index) : -1;
        info.allowed = allowed && hwloc_bitmap_isset(allowed, pu->os_index) != 0;
        info.inAffinity
            = !impl->thisSystem || std::binary_search(impl->affinity.begin(), impl->affinity.end(), info.osIndex);
        impl->pus.push_back(info);
    }
    std::sort(
        impl->pus.begin(), impl->pus.end(), [](const PuInfo& a, const PuInfo& b) { return a.osIndex < b.osIndex; });

    for (hwloc_obj_type_t type :
        { HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE }) {
        const int n = hwloc_get_nbobjs_by_type(t, type);
        for (int i = 0; i < n; ++i) {
            hwloc_obj_t c = hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i));
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
