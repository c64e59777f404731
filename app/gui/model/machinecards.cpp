// SPDX-License-Identifier: MIT
#include "machinecards.h"

#include "ctxscope/results_file.h"

#include <QFile>

namespace ctxscope::gui {

Expected<MachineCardEntry> machineCardEntry(nlohmann::json json, const QString& label)
{
    auto card = machineCardFromText(json.dump(), label.toStdString());
    if (!card)
        return card.error();
    card->label = label.toStdString();
    return MachineCardEntry { std::make_shared<const MachineCard>(std::move(*card)), std::move(json) };
}

Expected<MachineCardEntry> readMachineCardEntry(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(path.toStdString() + ": " + file.errorString().toStdString());
    const QByteArray text = file.readAll();
    const std::string_view view(text.constData(), static_cast<std::size_t>(text.size()));
    auto card = machineCardFromText(view, path.toStdString()); // named after the file, as the CLI names it
    if (!card)
        return card.error();
    return MachineCardEntry { std::make_shared<const MachineCard>(std::move(*card)),
        nlohmann::json::parse(view, nullptr, false) };
}

nlohmann::json surveyCardJson(
    const nlohmann::json& context, const std::vector<RunResult>& results, const nlohmann::json& survey)
{
    nlohmann::json card = makeReport(context, results, false);
    card["survey"] = survey;
    return card;
}

Expected<MachineComparison> compareCards(
    const std::vector<MachineCardEntry>& cards, bool withArticles, std::size_t baseline)
{
    std::vector<MachineCard> all;
    all.reserve(cards.size());
    for (const MachineCardEntry& e : cards)
        all.push_back(*e.card);
    if (withArticles)
        for (MachineCard& article : articleCards())
            all.push_back(std::move(article));
    if (all.size() < 2)
        return makeError("Two cards at least are needed: add a card, survey a machine, or show the articles' figures.");
    return compareMachines(all, baseline);
}

} // namespace ctxscope::gui
