// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/cpu_list.h" // formatCpuList, parseCpuList
#include "ctxscope/expected.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

// What a node of the topology tree is. NUMA nodes are kept apart (see Topology::numaNodes)
// because hwloc 2 attaches them beside the CPU tree, not inside it.
enum class NodeKind { Machine, Package, Die, Group, Cache, Core, Pu };

std::string_view toString(NodeKind kind);

// One object of the CPU tree, as lstopo draws it.
struct TopoNode {
    NodeKind kind = NodeKind::Machine;
    int logicalIndex = 0; // L#
    int osIndex = -1; // P#, -1 when hwloc does not know it
    int cacheLevel = 0; // 1, 2, 3 ... for caches, 0 otherwise
    std::uint64_t cacheSize = 0; // bytes, caches only
    int cacheLineSize = 0; // bytes, caches only
    std::vector<int> pus; // OS indices of the PUs below, ascending
    std::vector<TopoNode> children;
    friend bool operator==(const TopoNode&, const TopoNode&) = default;
};

// A cache level seen from the PUs: which PUs share one instance.
struct CacheInfo {
    int level = 0;
    int logicalIndex = 0;
    std::uint64_t size = 0;
    int lineSize = 0;
    std::vector<int> pus;
    friend bool operator==(const CacheInfo&, const CacheInfo&) = default;
};

struct NumaNodeInfo {
    int osIndex = 0;
    std::uint64_t localMemory = 0; // bytes
    std::vector<int> pus;
    friend bool operator==(const NumaNodeInfo&, const NumaNodeInfo&) = default;
};

// Flat facts about one PU (hardware thread), indexed by the containing objects'
// logical indices; -1 where the machine has no such object.
struct PuInfo {
    int osIndex = 0; // P#, as taskset and sched_getcpu use
    int logicalIndex = 0; // L#
    int core = -1;
    int l1 = -1;
    int l2 = -1;
    int l3 = -1;
    int package = -1;
    int numaNode = -1; // OS index of the NUMA node
    bool allowed = true; // inside the cgroup cpuset hwloc reports as allowed
    bool inAffinity = true; // inside this process's affinity mask (taskset)
    int kind = -1; // index in Topology::cpuKinds(); -1 when hwloc knows no kind for this PU
    friend bool operator==(const PuInfo&, const PuInfo&) = default;
};

// One kind of core (hwloc's CPU kinds): the performance and efficient cores of a hybrid
// machine (Intel P- and E-cores, ARM big.LITTLE). hwloc ranks the kinds by "efficiency", which
// despite its name grows with performance: 0 is the most energy-efficient, the slowest kind,
// and the highest rank the most performant ("A higher efficiency value means greater intrinsic
// performance", hwloc/cpukinds.h). -1 when hwloc could not rank them.
struct CpuKind {
    int index = 0; // hwloc's kind index: ranked kinds come the least performant first
    int efficiency = -1;
    std::string coreType; // hwloc's "CoreType" info ("IntelCore", "IntelAtom"), or ""
    int frequencyMaxMhz = 0; // hwloc's "FrequencyMaxMHz" info; 0 when unknown
    // "P-core" and "E-core" for two ranked kinds; else the CoreType; else "kind N".
    std::string name;
    // What a pair's label and the map use: "P" and "E" for two ranked kinds, else the name.
    std::string shortName;
    std::vector<int> pus; // OS indices, ascending
    friend bool operator==(const CpuKind&, const CpuKind&) = default;
};

enum class TopologySource { Live, Xml, Synthetic };

class Topology {
public:
    // The machine this process runs on, with PUs outside the cgroup kept (allowed = false)
    // and the calling thread's affinity mask (what taskset set) read at load time. When
    // HWLOC_SYNTHETIC or HWLOC_XMLFILE is set, hwloc tools show that topology instead; so do
    // we, through the checked loaders below, and the result is not this system.
    static Expected<Topology> loadLive();
    // An hwloc XML export of some machine, parsed first in a child process with CPU, memory
    // and time limits, so a file that crashes or hangs libhwloc is an error message here. At
    // most 64 MiB and 8192 PUs; every PU needs a distinct OS index (P#) up to 65535.
    static Expected<Topology> loadXmlFile(const std::string& path);
    // `origin` names where the text came from in messages and origin() ("the topology saved
    // in s.json").
    static Expected<Topology> loadXmlBuffer(std::string_view xml, std::string origin = "XML buffer");
    // A synthetic description such as "pack:2 [numa] l3:2 core:4 pu:2", checked before hwloc
    // sees it: at most 32 levels and 8192 PUs.
    static Expected<Topology> loadSynthetic(std::string_view description);

    Topology(const Topology&);
    Topology& operator=(const Topology&);
    Topology(Topology&&) noexcept;
    Topology& operator=(Topology&&) noexcept;
    ~Topology();

    TopologySource source() const;
    // True only for the live machine, and only when hwloc agrees (HWLOC_XMLFILE or
    // HWLOC_SYNTHETIC in the environment make even loadLive() describe another machine).
    bool isThisSystem() const;
    // A short human description: "live machine", "XML file foo.xml", "synthetic 'pack:2 ...'".
    const std::string& origin() const;

    const TopoNode& root() const;
    const std::vector<PuInfo>& pus() const; // ordered by OS index
    const std::vector<CacheInfo>& caches() const; // data/unified caches, by level then L#
    const std::vector<NumaNodeInfo>& numaNodes() const;

    const PuInfo* findPu(int osIndex) const;
    // The kinds of core hwloc reports (none, or one for a homogeneous machine), by index.
    const std::vector<CpuKind>& cpuKinds() const;
    // More than one kind of core: the only case where kinds show in classes, pairs and views.
    bool hybrid() const;
    // The kind of a PU on a hybrid machine; nullptr otherwise or for a PU hwloc gave no kind.
    const CpuKind* kindOfPu(int osIndex) const;
    // PUs a task may be pinned to: inside the cgroup cpuset and inside the affinity mask.
    std::vector<int> allowedPus() const;
    // The affinity mask of the thread that loaded the topology; every PU when not this system.
    std::vector<int> affinityPus() const;
    int packageCount() const;
    int coreCount() const;
    // Size of one instance of a data cache level, or 0 when the machine has none.
    std::uint64_t cacheSize(int level) const;
    int lastCacheLevel() const;

    // hwloc XML of this topology. With anonymize, host name and serial numbers are removed.
    Expected<std::string> exportXml(bool anonymize) const;

    struct Impl;

private:
    // Binding a thread (placement.h) needs the hwloc handle; nothing else outside the class
    // reaches into it.
    friend Status pinCurrentThread(const Topology& topology, int osCpu);
    friend Status unpinCurrentThread(const Topology& topology);
    const Impl& impl() const { return *m_impl; }
    explicit Topology(std::shared_ptr<const Impl> impl);
    static Expected<Topology> loadXml(std::string_view xml, std::string origin);
    static Expected<Topology> loadSyntheticAs(std::string_view description, std::string origin);
    std::shared_ptr<const Impl> m_impl;
};

} // namespace ctxscope
