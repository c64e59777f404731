// SPDX-License-Identifier: MIT
#include "commands.h"

#include "ctxscope/machine_compare.h"

#include <fmt/core.h>

#include <algorithm>

namespace ctxscope::cli {

namespace {

struct CompareOptions {
    std::vector<std::string> files;
    std::string baseline;
    std::string format = "text";
    bool withArticles = false;
    std::string articles;
};

int run(const CompareOptions& o)
{
    const auto format = compareFormatFromString(o.format);
    if (!format)
        return badInput("--format must be text, markdown, csv or json, not '" + o.format + "'");
    std::vector<std::string> files = o.files;
    std::size_t baseline = 0;
    if (!o.baseline.empty()) {
        const auto it = std::find(files.begin(), files.end(), o.baseline);
        if (it == files.end()) {
            files.insert(files.begin(), o.baseline); // a baseline not among the files joins them first
        } else {
            baseline = static_cast<std::size_t>(it - files.begin());
        }
    }
    const std::string set = o.articles.empty() ? std::string(o.withArticles ? "all" : "") : o.articles;
    if (!set.empty() && set != "all" && set != "tsuna" && set != "2022")
        return badInput("--articles must be tsuna, 2022 or all, not '" + set + "'");
    const std::vector<MachineCard> references = set.empty() ? std::vector<MachineCard> {} : articleCards(set);
    if (files.size() + references.size() < 2)
        return badInput("compare needs at least two files (machine cards or results of run, sweep, matrix, lesson)");
    std::vector<MachineCard> cards;
    for (const std::string& f : files) {
        auto card = readMachineCard(f);
        if (!card)
            return badInput(card.error().message);
        cards.push_back(std::move(*card));
    }
    cards.insert(cards.end(), references.begin(), references.end());
    // Two files of one name (lab-1/card.json, lab-2/card.json) are told apart by their paths,
    // and one file given twice by its place.
    const auto count = [&](const std::string& label) {
        return std::count_if(cards.begin(), cards.end(), [&](const MachineCard& c) { return c.label == label; });
    };
    std::vector<bool> repeated;
    for (const MachineCard& card : cards)
        repeated.push_back(count(card.label) > 1);
    for (std::size_t i = 0; i < cards.size(); ++i)
        if (repeated[i])
            cards[i].label = cards[i].path;
    for (std::size_t i = 0; i < cards.size(); ++i)
        if (count(cards[i].label) > 1)
            cards[i].label += fmt::format(" ({})", i + 1);
    auto c = compareMachines(cards, baseline);
    if (!c)
        return badInput(c.error().message);
    fmt::print("{}", formatMachineComparison(*c, *format));
    return kOk;
}

} // namespace

Command addCompareCommand(CLI::App& app)
{
    auto c = subcommand<CompareOptions>(app, "compare",
        "Machines side by side: benchmark x relation class, one column per file (survey cards, or results of run, "
        "sweep, matrix and lesson), each against the first with the ratio's 95% interval and the lessons' verdict "
        "(matters, the same, unclear), and the context differences that can explain a difference");
    CompareOptions& o = *c.options;
    c.sub
        ->add_option(
            "files", o.files, "Machine cards (survey --json) or results files (run/sweep/matrix/lesson --json)")
        ->required();
    c.sub->add_option("--baseline", o.baseline,
        "The file the others are divided by (default: the first); one not among the files is added before them");
    c.sub->add_option("--format", o.format, "text, markdown, csv or json")->capture_default_str();
    c.sub->add_flag("--with-articles", o.withArticles,
        "Add the articles' published figures as machines after the files: tsuna's 2010-2013 Xeons (syscall; futex "
        "processes unpinned; processes and threads on one PU) and the 2022 table (Xeon Platinum, E5, Kunpeng 920; "
        "unpinned and on CPU 0), each with its source");
    c.sub->add_option("--articles", o.articles, "Which articles: tsuna, 2022 or all (implies --with-articles)");
    c.sub->footer("Rows are matched by benchmark, mode and relation class (never by CPU numbers); a class one machine "
                  "lacks shows as absent. Matters: the ratio's 95% interval lies beyond 1.10 either way; the same: "
                  "within it; unclear: it straddles 1.10, or a side ran disturbed.");
    return c.done(run);
}

} // namespace ctxscope::cli
