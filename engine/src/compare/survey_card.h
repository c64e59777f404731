// SPDX-License-Identifier: MIT
// A survey card's own block as compare reads it, and the figures beside the table.
#pragma once

#include "ctxscope/machine_compare.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ctxscope::compare {

// Reads the "survey" block into the card: its version, and from version 2 the knee and the
// traced segments. An Error names the field that is wrong.
Status readSurveyBlock(const nlohmann::json& survey, MachineCard& card);

// The figures of compareMachines: the knee, each class's spin line, each class's segments.
std::vector<MachineFigure> surveyFigures(const std::vector<MachineCard>& cards, std::size_t baseline);

// MachineComparison::causes: for each futex thread row that matters (as is, no working set)
// whose class the baseline and the other card both traced, the segment whose median moved most.
std::vector<std::string> segmentCauses(
    const std::vector<MachineCard>& cards, std::size_t baseline, const std::vector<MachineRow>& rows);

} // namespace ctxscope::compare
