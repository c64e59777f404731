// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/machine_compare.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <memory>
#include <vector>

namespace ctxscope::gui {

// A machine card of the session (File → Compare machines…, or a survey through the worker):
// the card as compare reads it, and its JSON as read or made, which a saved session keeps.
struct MachineCardEntry {
    std::shared_ptr<const MachineCard> card;
    nlohmann::json json;
};

// A card from its JSON (a survey card, or a results file of run, sweep, matrix or lesson, as
// `ctxscope-cli compare` takes them), named `label`; refused with the engine's sentence.
Expected<MachineCardEntry> machineCardEntry(nlohmann::json json, const QString& label);
// A card file, named after the file as the CLI names it (its name without ".json").
Expected<MachineCardEntry> readMachineCardEntry(const QString& path);

// The card a survey through the worker makes, as `ctxscope-cli survey --json` writes it: the
// worker's context block (its hello), the survey's runs and its "survey" block.
nlohmann::json surveyCardJson(
    const nlohmann::json& context, const std::vector<RunResult>& results, const nlohmann::json& survey);

// The engine's comparison (compareMachines) of the cards, with the articles' reference cards
// after them when asked; `baseline` indexes the cards. Fewer than two: an Error saying so.
Expected<MachineComparison> compareCards(
    const std::vector<MachineCardEntry>& cards, bool withArticles, std::size_t baseline = 0);

} // namespace ctxscope::gui
