// SPDX-License-Identifier: MIT
// Hybrid machines in the lessons: does the kind of core (P-core, E-core) change what a hand-over
// costs? Computed from measured results only: their Placement::kinds and medians.
#pragma once

#include "lesson/verdict.h"

#include "ctxscope/result.h"

#include <optional>
#include <string>
#include <vector>

namespace ctxscope::lesson {

// Two pinned futex thread runs of one relation class, each on cores of a single kind, of two
// different kinds: `other` (the E-cores) against `base` (the P-cores).
struct KindFinding {
    const RunResult* base = nullptr;
    const RunResult* other = nullptr;
    std::string baseKind; // short names: "P", "E"
    std::string otherKind;
    Comparison comparison; // other against base
};

// The kind of core a result ran on when it ran on one kind only ("P" for "P" and "P↔P"), else "".
std::string singleKindOf(const RunResult& r);
// The comparison the pinning lesson states: in the closest class across two cores (smt and
// beyond) where two-core runs of two kinds were measured, else on one PU of each kind. None
// when the results hold no two kinds (a machine with one kind, or failed runs). Base is the
// P-core's run when one kind is "P", else the E-core's is `other`, else the faster is base.
std::optional<KindFinding> kindFinding(const std::vector<RunResult>& results);
// "Kind matters here: a futex hand-over between two E-cores (CPUs 12,13, shared-l3, E↔E) costs
// 1.42 times (95% interval 1.38–1.47) one between two P-cores (CPUs 0,2, shared-l3, P↔P)."; the
// same-within-10% and unclear cases in words.
std::string kindSentence(const KindFinding& finding);

} // namespace ctxscope::lesson
