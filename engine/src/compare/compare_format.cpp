// SPDX-License-Identifier: MIT
// compareMachines' table as text, Markdown, CSV and JSON.
#include "ctxscope/csv.h"
#include "ctxscope/machine_compare.h"
#include "ctxscope/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope {

std::string machineRowName(const MachineRow& row)
{
    std::string name = row.bench + " " + std::string(toString(row.mode));
    if (row.wsBytes > 0)
        name += " W=" + formatBytes(row.wsBytes);
    if (!row.condition.empty())
        name += " [" + row.condition + "]";
    return name;
}

std::string machineRatioText(const MachineCell& c)
{
    if (!c.ratio)
        return c.medianNs ? "-" : "absent";
    // One figure on a side (a published one) has no spread: no interval, rather than "(0.58-0.58)".
    if (c.low == c.high)
        return fmt::format("{:.2f} (no spread)", *c.ratio);
    return fmt::format("{:.2f} ({:.2f}-{:.2f})", *c.ratio, c.low, c.high);
}

std::string machineVerdictWhy(const MachineCell& c)
{
    if (!c.ratio)
        return "";
    if (!c.disturbed.empty())
        return "Unclear: " + c.disturbed
            + " was disturbed (other tasks or the hypervisor took its CPUs' time), so no conclusion is drawn from it.";
    if (c.low == c.high)
        return "Unclear: a side is one figure (a published one), which has no spread to judge a difference by.";
    const std::string interval = fmt::format("the 95% interval of the ratio, {:.2f} to {:.2f}", c.low, c.high);
    switch (c.verdict) {
    case MachineVerdict::Matters:
        return "Matters: " + interval + ", lies wholly beyond 1.10 times (or below 1/1.10).";
    case MachineVerdict::Same:
        return "The same: " + interval + ", lies wholly within 1.10 times either way.";
    case MachineVerdict::Unclear:
        break;
    }
    return "Unclear: " + interval
        + ", reaches across the 10% threshold: the repetitions vary too much to say whether the difference is 10% "
          "or more. More or longer repetitions narrow it (a survey's --budget; a run's or lesson's --repetitions "
          "and --min-time).";
}

std::string figureValueText(const MachineFigure& figure, std::size_t m)
{
    const std::string& value = figure.values.at(m);
    const bool judged = m < figure.verdicts.size() && !figure.verdicts[m].empty();
    return judged ? value + " · " + figure.verdicts[m] : value;
}

namespace {

using json = nlohmann::json;

// The table as rows of cells, the header first: benchmark, class, then these machines' columns
// (a median each, and after it, for all but the baseline, the ratio and the verdict).
std::vector<std::vector<std::string>> cellsOf(const MachineComparison& c, const std::vector<std::size_t>& machines)
{
    std::vector<std::vector<std::string>> out;
    std::vector<std::string> header { "benchmark", "class" };
    for (std::size_t m : machines) {
        header.push_back(c.labels[m]);
        if (m != c.baseline) {
            header.push_back("/" + c.labels[c.baseline] + " (95%)");
            header.push_back("verdict");
        }
    }
    out.push_back(std::move(header));
    for (const MachineRow& row : c.rows) {
        std::vector<std::string> line { machineRowName(row), relationText(row.relation, row.kinds) };
        bool any = false;
        for (std::size_t m : machines) {
            const MachineCell& cell = row.cells[m];
            any = any || cell.medianNs;
            line.push_back(cell.medianNs ? formatDuration(*cell.medianNs) : std::string("absent"));
            if (m != c.baseline) {
                line.push_back(machineRatioText(cell));
                line.push_back(cell.ratio ? std::string(toString(cell.verdict)) + (cell.disturbed.empty() ? "" : " *")
                                          : std::string());
            }
        }
        if (any) // a row no machine of these columns ran says nothing here
            out.push_back(std::move(line));
    }
    return out;
}

std::vector<std::size_t> allMachines(const MachineComparison& c)
{
    std::vector<std::size_t> all(c.labels.size());
    for (std::size_t m = 0; m < all.size(); ++m)
        all[m] = m;
    return all;
}

// Display width: the UTF-8 characters (µ) count once.
std::size_t widthOf(const std::string& s)
{
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
}

// Words after `lead` on lines of at most kTextWidth characters, the next ones indented.
constexpr std::size_t kTextWidth = 120;

std::string wrapped(const std::string& lead, const std::string& text, const std::string& indent)
{
    std::string out = lead;
    std::size_t column = widthOf(lead);
    std::size_t at = 0;
    bool first = true;
    while (at < text.size()) {
        std::size_t end = text.find(' ', at);
        if (end == std::string::npos)
            end = text.size();
        const std::string word = text.substr(at, end - at);
        at = end + 1;
        if (word.empty())
            continue;
        if (!first && column + 1 + widthOf(word) > kTextWidth) {
            out += "\n" + indent;
            column = widthOf(indent);
        } else if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += widthOf(word);
        first = false;
    }
    return out + "\n";
}

// A context difference by value: "6.18.44 (a, b); 2.6.28-19-server (2010 Intel 5150)"; the
// machines that do not say are named once at the end.
std::string differenceText(const MachineComparison& c, const ContextDifference& d)
{
    std::vector<std::pair<std::string, std::string>> byValue; // value, machines
    std::string unknown;
    for (std::size_t m = 0; m < d.values.size(); ++m) {
        if (d.values[m] == "unknown") {
            unknown += (unknown.empty() ? "" : ", ") + c.labels[m];
            continue;
        }
        auto it = std::find_if(byValue.begin(), byValue.end(), [&](const auto& v) { return v.first == d.values[m]; });
        if (it == byValue.end())
            byValue.emplace_back(d.values[m], c.labels[m]);
        else
            it->second += ", " + c.labels[m];
    }
    std::string out;
    for (const auto& [value, machines] : byValue)
        out += (out.empty() ? "" : "; ") + machines + ": " + value;
    if (!unknown.empty())
        out += "; not known for " + unknown;
    return out;
}

std::string footer(const MachineComparison& c, bool markdown)
{
    std::string out;
    const std::string bullet = markdown ? "* " : "  ";
    const std::string indent = markdown ? "  " : "    ";
    // Each disturbed run once, however many columns it made unclear.
    std::vector<std::string> disturbed;
    for (const MachineRow& row : c.rows)
        for (const MachineCell& cell : row.cells)
            if (!cell.disturbed.empty()) {
                const std::string line
                    = machineRowName(row) + " " + relationText(row.relation, row.kinds) + ": " + cell.disturbed;
                if (std::find(disturbed.begin(), disturbed.end(), line) == disturbed.end())
                    disturbed.push_back(line);
            }
    if (!disturbed.empty()) {
        out += "\n* unclear because a side ran disturbed:\n";
        for (const std::string& line : disturbed)
            out += wrapped(bullet, line + " was disturbed", indent);
    }
    out += "\n"
        + wrapped("",
            "Ratio: median over the baseline's (" + c.labels[c.baseline]
                + "), 95% interval (Welch's t over the repetition medians, and a bootstrap over the samples of files "
                  "that have them); matters: the whole interval beyond 1.10 either way; the same: within it.",
            "");
    if (c.differences.empty()) {
        out += "\n"
            + wrapped("",
                "No context difference between the files (CPU, microcode, kernel, mitigations, SMT, "
                "governor, idle states, idle governor, cpu_dma_latency, haltpoll, VM, clock source, build).",
                "");
    } else {
        out += "\nContext differences that can explain a difference:\n";
        for (const ContextDifference& d : c.differences)
            out += wrapped(bullet + d.what + ": ", differenceText(c, d), indent);
    }
    if (!c.causes.empty()) {
        out += "\nWhat moved in the traced hand-overs (the survey's traced futex run of each class):\n";
        for (const std::string& cause : c.causes)
            out += wrapped(bullet, cause, indent);
    }
    if (!c.notes.empty()) {
        out += "\n";
        for (const std::string& n : c.notes)
            out += wrapped(bullet, n, indent);
    }
    return out;
}

// The survey figures as rows of cells, the header first; none when there are no figures.
std::vector<std::vector<std::string>> figureCellsOf(const MachineComparison& c)
{
    std::vector<std::vector<std::string>> out;
    if (c.figures.empty())
        return out;
    std::vector<std::string> header { "survey figure", "class" };
    for (const std::string& label : c.labels)
        header.push_back(label);
    out.push_back(std::move(header));
    for (const MachineFigure& f : c.figures) {
        std::vector<std::string> line { f.what, f.relation ? std::string(toString(*f.relation)) : std::string("-") };
        for (std::size_t m = 0; m < f.values.size(); ++m)
            line.push_back(figureValueText(f, m));
        out.push_back(std::move(line));
    }
    return out;
}

std::string textTable(const std::vector<std::vector<std::string>>& cells)
{
    if (cells.empty())
        return {};
    std::vector<std::size_t> widths(cells.front().size(), 0);
    for (const auto& line : cells)
        for (std::size_t i = 0; i < line.size(); ++i)
            widths[i] = std::max(widths[i], widthOf(line[i]));
    std::string out;
    for (const auto& line : cells) {
        std::string l;
        for (std::size_t i = 0; i < line.size(); ++i)
            l += line[i] + std::string(i + 1 < line.size() ? widths[i] - widthOf(line[i]) + 2 : 0, ' ');
        l.erase(l.find_last_not_of(' ') + 1); // no padding after the last cell with text
        out += l + "\n";
    }
    return out;
}

// `numeric`: the columns from the third on are right-aligned (the ratios' table).
std::string markdownTable(const std::vector<std::vector<std::string>>& cells, bool numeric)
{
    std::string out;
    for (std::size_t r = 0; r < cells.size(); ++r) {
        out += "|";
        for (const std::string& cell : cells[r])
            out += " " + cell + " |";
        out += "\n";
        if (r == 0) {
            out += "|";
            for (std::size_t i = 0; i < cells[r].size(); ++i)
                out += i < 2 || !numeric ? " --- |" : " ---: |";
            out += "\n";
        }
    }
    return out;
}

const char* const kFiguresTitle = "\nSurvey figures, matched by relation class (the spin line is context for the spin "
                                  "rows; segments are medians of one traced futex run per class):\n";

// Wider than kTextWidth (many machines: the articles' thirteen): a line per machine under each
// row instead of a column each, the machines that ran it only.
std::vector<std::vector<std::string>> longCellsOf(const MachineComparison& c)
{
    std::vector<std::vector<std::string>> out;
    out.push_back({ "benchmark", "class", "machine", "median", "/" + c.labels[c.baseline] + " (95%)", "verdict" });
    for (const MachineRow& row : c.rows) {
        bool first = true;
        for (std::size_t m = 0; m < row.cells.size(); ++m) {
            const MachineCell& cell = row.cells[m];
            if (!cell.medianNs)
                continue;
            out.push_back({ first ? machineRowName(row) : std::string(),
                first ? relationText(row.relation, row.kinds) : std::string(), c.labels[m],
                formatDuration(*cell.medianNs), m == c.baseline ? std::string("(baseline)") : machineRatioText(cell),
                cell.ratio ? std::string(toString(cell.verdict)) + (cell.disturbed.empty() ? "" : " *")
                           : std::string() });
            first = false;
        }
    }
    return out;
}

std::string asText(const MachineComparison& c)
{
    std::string out = textTable(cellsOf(c, allMachines(c)));
    std::size_t widest = 0;
    for (std::size_t at = 0; at < out.size();) {
        const std::size_t end = std::min(out.find('\n', at), out.size());
        widest = std::max(widest, widthOf(out.substr(at, end - at)));
        at = end + 1;
    }
    if (widest > kTextWidth)
        out = textTable(longCellsOf(c));
    if (!c.figures.empty())
        out += kFiguresTitle + textTable(figureCellsOf(c));
    return out + footer(c, false);
}

std::string asMarkdown(const MachineComparison& c)
{
    std::string out = markdownTable(cellsOf(c, allMachines(c)), true);
    if (!c.figures.empty())
        out += kFiguresTitle + std::string("\n") + markdownTable(figureCellsOf(c), false);
    return out + footer(c, true);
}

std::string asCsv(const MachineComparison& c)
{
    std::string out = "benchmark,mode,relation,ws_bytes,machine,median_ns,ratio,ratio_low,ratio_high,verdict\n";
    for (const MachineRow& row : c.rows)
        for (std::size_t m = 0; m < row.cells.size(); ++m) {
            const MachineCell& cell = row.cells[m];
            out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csvField(row.bench), toString(row.mode),
                csvField(relationText(row.relation, row.kinds)), row.wsBytes, csvField(c.labels[m]),
                cell.medianNs ? fmt::format("{:.3f}", *cell.medianNs) : std::string(),
                cell.ratio ? fmt::format("{:.4f}", *cell.ratio) : std::string(),
                cell.ratio ? fmt::format("{:.4f}", cell.low) : std::string(),
                cell.ratio ? fmt::format("{:.4f}", cell.high) : std::string(),
                cell.ratio ? std::string(toString(cell.verdict)) : std::string(cell.medianNs ? "" : "absent"));
        }
    return out;
}

} // namespace

std::optional<CompareFormat> compareFormatFromString(std::string_view text)
{
    if (text == "text")
        return CompareFormat::Text;
    if (text == "markdown")
        return CompareFormat::Markdown;
    if (text == "csv")
        return CompareFormat::Csv;
    if (text == "json")
        return CompareFormat::Json;
    return std::nullopt;
}

json toJson(const MachineComparison& c)
{
    json rows = json::array();
    for (const MachineRow& row : c.rows) {
        json cells = json::array();
        for (std::size_t m = 0; m < row.cells.size(); ++m) {
            const MachineCell& cell = row.cells[m];
            json j { { "machine", c.labels[m] },
                { "median_ns", cell.medianNs ? json(*cell.medianNs) : json(nullptr) } };
            if (cell.ratio) {
                j["ratio"] = *cell.ratio;
                j["ratio_low"] = cell.low;
                j["ratio_high"] = cell.high;
                j["verdict"] = std::string(toString(cell.verdict));
                if (!cell.disturbed.empty())
                    j["disturbed"] = cell.disturbed;
            }
            cells.push_back(std::move(j));
        }
        rows.push_back({ { "bench", row.bench }, { "mode", std::string(toString(row.mode)) },
            { "relation", std::string(toString(row.relation)) }, { "ws_bytes", row.wsBytes },
            { "condition", row.condition }, { "op", row.op }, { "cells", std::move(cells) } });
        if (!row.kinds.empty())
            rows.back()["kinds"] = row.kinds;
    }
    json differences = json::array();
    for (const ContextDifference& d : c.differences)
        differences.push_back({ { "what", d.what }, { "values", d.values } });
    json figures = json::array();
    for (const MachineFigure& f : c.figures)
        figures.push_back(
            { { "what", f.what }, { "relation", f.relation ? json(std::string(toString(*f.relation))) : json(nullptr) },
                { "values", f.values }, { "verdicts", f.verdicts }, { "whys", f.whys } });
    return { { "machines", c.labels }, { "baseline", c.labels[c.baseline] }, { "rows", std::move(rows) },
        { "figures", std::move(figures) }, { "differences", std::move(differences) }, { "causes", c.causes },
        { "notes", c.notes } };
}

std::string formatMachineComparison(const MachineComparison& c, CompareFormat format)
{
    switch (format) {
    case CompareFormat::Markdown:
        return asMarkdown(c);
    case CompareFormat::Csv:
        return asCsv(c);
    case CompareFormat::Json:
        return toJson(c).dump(2) + "\n";
    case CompareFormat::Text:
        break;
    }
    return asText(c);
}

} // namespace ctxscope
