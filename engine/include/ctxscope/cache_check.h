// SPDX-License-Identifier: MIT
// Cache sizes a machine reports are checked, not trusted. A VM's CPUID may describe the
// host's whole L3 as private to every vCPU (this project was developed on one that reports
// 508 MB per vCPU); XML files may be edited by hand. Views that mark cache sizes and lessons
// that pick working sets from them say when a level is implausible, and cap what they use.
#pragma once

#include "ctxscope/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ctxscope {

// The largest cache instance any shipping part has: the L3 of Intel's Xeon 6980P, 504 MB,
// one instance per package (2024). A larger instance is a misreport.
inline constexpr std::uint64_t kLargestCacheInstance = std::uint64_t { 512 } << 20;
// The largest share of one instance per core: AMD's EPYC 7373X and 9184X give each
// 2-core CCD 96 MB of L3, 48 MB per core. A level that gives each core sharing it more than
// this is a misreport (a VM showing the host's L3 as private to one vCPU).
inline constexpr std::uint64_t kLargestCachePerCore = std::uint64_t { 64 } << 20;
// Cache lines are a power of two from 16 to 256 bytes on every shipping CPU.
inline constexpr int kSmallestCacheLine = 16;
inline constexpr int kLargestCacheLine = 256;
// Lessons and default sweeps never use a working set per task above this, whatever the
// caches say: 4x a plausible 64 MiB last-level share, and two tasks' buffers fit in 1 GiB.
inline constexpr std::uint64_t kWorkingSetCap = std::uint64_t { 256 } << 20;

struct CacheCheck {
    std::vector<std::string> problems; // clauses such as "the L3 gives 508 MiB to 1 core, ..."
    std::vector<int> implausibleLevels; // levels whose size must not be trusted, ascending
    bool plausible(int level) const;
    // One sentence for sysinfo and the views that mark caches; "" when nothing is wrong.
    std::string sentence() const;
};

// Pure: the caches and PUs of a topology (PuInfo::core counts the cores under an instance).
CacheCheck checkCaches(const std::vector<CacheInfo>& caches, const std::vector<PuInfo>& pus);
CacheCheck checkCaches(const Topology& topology);

// The size of one instance of a level when it is plausible, else 0 (as for a missing level).
std::uint64_t plausibleCacheSize(const Topology& topology, const CacheCheck& check, int level);

} // namespace ctxscope
