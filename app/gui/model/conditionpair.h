// SPDX-License-Identifier: MIT
#pragma once

#include "resultsmodel.h"

#include "ctxscope/lesson.h"

#include <QString>

#include <cstddef>
#include <optional>
#include <vector>

namespace ctxscope::gui {

// A condition's A/B in the session: the run as is and the run with its condition (keep-awake, a
// PM QoS hold), kept as two rows that name each other (ResultRow::abPartner).
struct AbPair {
    const ResultRow* asIs = nullptr;
    const ResultRow* with = nullptr;
};

// The pair a row is a side of, when both sides are held; none otherwise.
std::optional<AbPair> abPairOf(const std::vector<ResultRow>& runs, quint64 id);

// Rows read back (a session, a results file of `run --keep-awake`): a run under a condition right
// after the same placement as is is the pair the A/B measured, in that order; they are paired.
void pairConditionSides(std::vector<ResultRow>& rows);

// A row's side of its A/B: "as is", or its condition ("keep-awake 1"); empty for a run of no A/B
// whose spec has no condition.
QString abSideName(const ResultRow& row);

// How legends name a row: runLabel and, for a side of an A/B or a run under a condition, its side.
QString rowLabel(const ResultRow& row);

// "A/B: With keep-awake 1, the futex op took ...", then the kAbStepsShown steps that moved most, a
// line each, and how many moved less (a busy machine moves a dozen by a few hundred ns: listed
// whole, they filled the run panel).
inline constexpr std::size_t kAbStepsShown = 3;
QString abText(const ConditionAb& ab);

} // namespace ctxscope::gui
