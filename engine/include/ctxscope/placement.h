// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <optional>
#include <string_view>
#include <vector>

namespace ctxscope {

// How two PUs relate, from the closest to the farthest. Unpinned means the scheduler
// places the tasks; the runner records where they actually ran.
enum class Relation { SamePu, Smt, SharedL2, SharedL3, SamePackage, CrossPackage, CrossNuma, Unpinned };

std::string_view toString(Relation relation);
std::optional<Relation> relationFromString(std::string_view text);
// Every class in order, Unpinned last.
const std::vector<Relation>& allRelations();

// The relation class of two PUs given by OS index. Errors name the PU that does not exist.
Expected<Relation> relationOf(const Topology& topology, int osA, int osB);

struct PuPair {
    int a = 0;
    int b = 0;
    Relation relation = Relation::SamePu;
};

// Up to perClass pairs of allowed PUs for each relation class the machine has (no Unpinned).
std::vector<PuPair> representativePairs(const Topology& topology, int perClass = 1);
// Every ordered pair (a <= b) of allowed PUs with its class.
std::vector<PuPair> allPairs(const Topology& topology);

// Bind the calling thread to one PU through hwloc, then confirm with sched_getcpu().
// Refused for a topology that is not this system; a PU outside the allowed set or the
// affinity mask gives "CPU 5 is outside the allowed set 0-3".
Status pinCurrentThread(const Topology& topology, int osCpu);
// Undo pinning: bind the calling thread to the whole affinity mask it started with.
Status unpinCurrentThread(const Topology& topology);

} // namespace ctxscope
