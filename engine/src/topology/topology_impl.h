// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <hwloc.h>

#include <memory>

namespace ctxscope {

// Linux builds allow at most 8192 CPUs (NR_CPUS with MAXSMP); larger inputs are refused.
inline constexpr int kMaxPus = 8192;
// The largest OS index of a PU we accept, as parseCpuList does.
inline constexpr int kMaxCpuIndex = 65535;

struct HwlocDeleter {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using HwlocHandle = std::unique_ptr<hwloc_topology, HwlocDeleter>;

struct HwlocBitmapDeleter {
    void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using HwlocBitmap = std::unique_ptr<hwloc_bitmap_s, HwlocBitmapDeleter>;

// The loaded hwloc topology and the model built from it. Immutable once built, so copies
// of a Topology share it and threads may read it together (hwloc allows concurrent reads).
struct Topology::Impl {
    HwlocHandle handle;
    TopologySource source = TopologySource::Live;
    bool thisSystem = false;
    std::string origin;
    TopoNode root;
    std::vector<PuInfo> pus;
    std::vector<CacheInfo> caches;
    std::vector<NumaNodeInfo> numaNodes;
    std::vector<CpuKind> kinds;
    std::vector<int> affinity; // the loading thread's CPU affinity (live only)
};

// An initialised, not yet loaded hwloc topology with the flags every loader uses
// (HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED: PUs outside the cgroup stay, marked not allowed).
Expected<HwlocHandle> initHandle();
std::vector<int> bitmapToVector(hwloc_const_bitmap_t bitmap);
// The name of an environment variable that makes hwloc describe another machine than this
// one (HWLOC_XMLFILE, HWLOC_SYNTHETIC, HWLOC_FSROOT), or nullptr.
const char* foreignTopologyVariable();
// hwloc's CPU kinds, named (nameCpuKinds); empty when hwloc knows none.
std::vector<CpuKind> readCpuKinds(hwloc_topology_t t);
// Names the kinds: "P-core"/"E-core" (short "P"/"E") for two ranked kinds, else a CoreType no
// other kind has, else "kind N".
void nameCpuKinds(std::vector<CpuKind>& kinds);
// Build the model from a loaded hwloc topology; refuses PUs without a usable OS index.
Expected<std::shared_ptr<Topology::Impl>> buildModel(HwlocHandle handle, TopologySource source, std::string origin);

} // namespace ctxscope
