// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <cstddef>
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

// Where the tasks of a spec run: one CPU per task (empty when unpinned) and the relation
// class of the farthest pair of neighbours (tasks that hand the token to each other).
struct Placement {
    int tasks = 1;
    std::vector<int> cpus;
    Relation relation = Relation::SamePu;
    // On a hybrid machine, the kinds of core the tasks ran on (kindsText): "P↔E", "E↔E", "P" for
    // one PU; "" on a machine with one kind and for unpinned runs.
    std::string kinds;
    bool onePu() const;
};

struct PuPair {
    int a = 0;
    int b = 0;
    Relation relation = Relation::SamePu;
    std::string kinds; // kindsText of {a, b}: "" unless the machine is hybrid
};

// The separator of a kind pair: "P↔E".
inline constexpr std::string_view kKindPairSeparator = "\u2194";

// On a hybrid machine, the kinds of core of these PUs by their short names, the more performant
// first: "P" for one PU, "P↔P" for two PUs of one kind, "P↔E" for two kinds (more kinds are
// joined the same way). "" when the topology is not hybrid or a PU has no kind.
std::string kindsText(const Topology& topology, const std::vector<int>& cpus);
// A class with its kinds, as pairs are listed: "shared-l3, P↔E", or "shared-l3" without kinds.
std::string relationText(Relation relation, std::string_view kinds);

// Up to perClass pairs of allowed PUs for each relation class the machine has (no Unpinned),
// ordered by class from the closest. On a hybrid machine, for each class and kind pair the
// machine has ("shared-l3, P↔P", "shared-l3, P↔E", "shared-l3, E↔E"; same-pu once per kind),
// the more performant pairs first. The pairs of one class use distinct PUs while the machine
// has enough, spread over it (not all on PU 0), so k pairs sample k places; a < b except for
// same-pu. A 2-package x 2-L3 x 4-core x 2-PU machine gives one pair per class for k = 1.
std::vector<PuPair> representativePairs(const Topology& topology, int perClass = 1);

// Listing every pair is for small machines: 64 allowed PUs already give 2080 pairs.
inline constexpr std::size_t kAllPairsMaxPus = 64;
// Every pair (a <= b) of allowed PUs with its class, or an error naming the pair count when
// there are more than maxPus allowed PUs.
Expected<std::vector<PuPair>> allPairs(const Topology& topology, std::size_t maxPus = kAllPairsMaxPus);

// Why pinning to this PU would be refused, without binding: it does not exist, or it is
// outside the allowed set (the cgroup cpuset or the affinity mask set by taskset). Works on
// any topology, so a placement for another machine can be checked against its XML.
Status checkPuUsable(const Topology& topology, int osCpu);

// Bind the calling thread (in a forked child: the child) to one PU through hwloc, then confirm
// with sched_getcpu(). Refused for a topology that is not this system, because hwloc returns
// success there without binding; a PU outside the allowed set or the affinity mask gives
// "CPU 5 is outside the allowed set 0-3 (...)".
Status pinCurrentThread(const Topology& topology, int osCpu);
// Undo pinning: bind the calling thread to the affinity mask read when the topology was loaded.
Status unpinCurrentThread(const Topology& topology);

} // namespace ctxscope
