// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <hwloc.h>

#include <memory>

namespace ctxscope {

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
    std::vector<int> affinity; // the process mask at load time (live only)
};

std::vector<int> bitmapToVector(hwloc_const_bitmap_t bitmap);
// Build the model from a loaded hwloc topology.
std::shared_ptr<Topology::Impl> buildModel(HwlocHandle handle, TopologySource source, std::string origin);

} // namespace ctxscope
