// SPDX-License-Identifier: MIT
#include "ctxscope/machine_compare.h"

#include "compare/survey_card.h"
#include "ctxscope/sysinfo.h"
#include "lesson/verdict.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fmt/core.h>
#include <functional>
#include <map>
#include <tuple>

namespace ctxscope {

namespace {

using json = nlohmann::json;

std::string labelOf(const std::string& path)
{
    std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    if (name.size() > 5 && name.ends_with(".json"))
        name.resize(name.size() - 5);
    return name.empty() ? path : name;
}

// A string member, "" when absent or not a string.
std::string text(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json* member(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_object() ? &*it : nullptr;
}

std::string orUnknown(std::string s) { return s.empty() ? std::string("unknown") : s; }

// The idle states of a sysinfo block, as formatIdleStates writes them.
std::string idleStatesOf(const json& sys)
{
    const auto it = sys.find("idle_states");
    if (it == sys.end() || !it->is_array())
        return "unknown";
    std::vector<IdleState> states;
    for (const json& s : *it) {
        if (!s.is_object())
            continue;
        IdleState state;
        state.name = text(s, "name");
        if (const auto l = s.find("exit_latency_us"); l != s.end() && l->is_number())
            state.exitLatencyUs = l->get<double>();
        if (const auto d = s.find("disabled"); d != s.end() && d->is_boolean())
            state.disabled = d->get<bool>();
        states.push_back(std::move(state));
    }
    return formatIdleStates(states);
}

// Rows sort by the benchmark's first appearance, then mode, class, working set, the kinds of
// core (hybrid machines; "" elsewhere) and condition (a run kept awake is never compared with
// one as is).
using RowKey = std::tuple<std::size_t, BenchMode, Relation, std::uint64_t, std::string, std::string>;

} // namespace

std::string_view toString(MachineVerdict verdict)
{
    switch (verdict) {
    case MachineVerdict::Matters:
        return "matters";
    case MachineVerdict::Same:
        return "the same";
    case MachineVerdict::Unclear:
        break;
    }
    return "unclear";
}

Expected<MachineCard> machineCardFromText(std::string_view textIn, const std::string& path)
{
    if (Status checked = checkJsonDocument(textIn, "results file"); !checked)
        return makeError(path + ": " + checked.error().message);
    const json doc = json::parse(textIn, nullptr, false);
    if (doc.is_discarded())
        return makeError(path + ": not valid JSON (truncated or not a results file)");
    const auto wrongKind = [&] {
        return makeError(path
            + ": not a ctxscope results file or machine card (it has neither \"benchmarks\" with a \"context\" nor a "
              "lesson's \"results\")");
    };
    if (!doc.is_object())
        return wrongKind();
    MachineCard card;
    card.path = path;
    card.label = labelOf(path);
    const json* benchmarks = nullptr;
    if (doc.contains("benchmarks") && doc.contains("context")) {
        benchmarks = &doc["benchmarks"];
        card.kind = doc.contains("survey") ? "survey"
            : doc.contains("matrix")       ? "matrix"
            : doc.contains("sweep")        ? "sweep"
                                           : "run";
    } else if (doc.contains("results") && doc.contains("conclusion")) {
        benchmarks = &doc["results"];
        card.kind = "lesson";
    } else {
        return wrongKind();
    }
    if (const auto ctx = doc.find("context"); ctx != doc.end()) {
        auto context = reportContextFromJson(*ctx);
        if (!context)
            return makeError(path + ": " + context.error().message);
        card.context = std::move(*context);
        card.hasContext = true;
    }
    auto results = resultsFromJson(*benchmarks);
    if (!results)
        return makeError(path + ": " + results.error().message);
    if (results->empty())
        return makeError(path + ": the file holds no ctxscope results");
    card.results = std::move(*results);
    if (const json* survey = member(doc, "survey"))
        if (Status read = compare::readSurveyBlock(*survey, card); !read)
            return makeError(path + ": " + read.error().message);
    if (const json* reference = member(doc, "reference"))
        card.source = text(*reference, "source");
    return card;
}

Expected<MachineCard> readMachineCard(const std::string& path)
{
    auto body = readResultsText(path);
    if (!body)
        return body.error();
    return machineCardFromText(*body, path);
}

std::vector<std::pair<std::string, std::string>> contextFacts(const MachineCard& card)
{
    std::vector<std::pair<std::string, std::string>> out;
    const json* ours = card.hasContext ? member(card.context.raw, "ctxscope") : nullptr;
    const json* sys = ours ? member(*ours, "sysinfo") : nullptr;
    static const json kEmpty = json::object();
    const json& s = sys ? *sys : kEmpty;
    out.emplace_back("CPU", orUnknown(text(s, "cpu_model")));
    out.emplace_back("microcode", orUnknown(text(s, "microcode")));
    out.emplace_back("kernel", orUnknown(text(s, "kernel")));
    if (const json* m = member(s, "mitigations"))
        for (const auto& [name, status] : m->items())
            out.emplace_back("mitigation " + name, status.is_string() ? status.get<std::string>() : "unknown");
    out.emplace_back("SMT", orUnknown(text(s, "smt_active")));
    out.emplace_back("governor", orUnknown(text(s, "governor")));
    out.emplace_back("idle states", sys ? idleStatesOf(s) : "unknown");
    out.emplace_back("idle governor", orUnknown(text(s, "idle_governor")));
    // A PM QoS limit a program held while the card was made: a cause of a missing idle exit.
    const auto dma = s.find("cpu_dma_latency_us");
    out.emplace_back("cpu_dma_latency",
        dma != s.end() && dma->is_number_integer() ? cpuDmaLatencyText(dma->get<std::int64_t>()) : "unknown");
    const auto poll = s.find("haltpoll_ns");
    out.emplace_back("haltpoll",
        poll == s.end()                  ? "unknown"
            : poll->is_number_unsigned() ? "polls " + std::to_string(poll->get<std::uint64_t>()) + " ns"
                                         : "not loaded");
    std::string vm = "unknown";
    if (const auto h = s.find("hypervisor"); h != s.end() && h->is_boolean()) {
        // Files written before hypervisorName hold the raw signature ("KVMKVMKVM").
        const std::string vendor = hypervisorName(text(s, "hypervisor_vendor"));
        vm = !h->get<bool>() ? "bare metal" : vendor.empty() ? "VM" : "VM (" + vendor + ")";
    }
    out.emplace_back("VM", vm);
    out.emplace_back("clock source", orUnknown(text(s, "clocksource")));
    std::string build = "unknown";
    if (const auto b = s.find("sanitizer_build"); b != s.end() && b->is_boolean())
        build = b->get<bool>()                                      ? "sanitizer"
            : s.contains("debug_build") && s["debug_build"] == true ? "debug"
                                                                    : "release";
    out.emplace_back("build", build);
    return out;
}

Expected<MachineComparison> compareMachines(const std::vector<MachineCard>& cards, std::size_t baseline)
{
    if (cards.size() < 2)
        return makeError("compare needs at least two files");
    if (baseline >= cards.size())
        return makeError("the baseline is not one of the files");
    MachineComparison out;
    out.baseline = baseline;
    std::vector<std::string> benches;
    // Per row: the result of each machine (the first of its kind in the file).
    std::map<RowKey, std::vector<const RunResult*>> found;
    for (std::size_t m = 0; m < cards.size(); ++m) {
        out.labels.push_back(cards[m].label);
        std::map<RowKey, int> seen;
        for (const RunResult& r : cards[m].results) {
            auto b = std::find(benches.begin(), benches.end(), r.bench);
            if (b == benches.end())
                b = benches.insert(benches.end(), r.bench);
            const RowKey key { static_cast<std::size_t>(b - benches.begin()), r.mode, r.placement.relation,
                r.spec.wsBytes, r.placement.kinds, conditionText(r.spec) };
            auto& row = found[key];
            row.resize(cards.size(), nullptr);
            if (!row[m])
                row[m] = &r;
            ++seen[key];
        }
        for (const auto& [key, count] : seen)
            if (count > 1)
                out.notes.push_back(fmt::format("{} holds {} {} {} {} runs; the first is compared.", cards[m].label,
                    count, benches[std::get<0>(key)], toString(std::get<1>(key)),
                    relationText(std::get<2>(key), std::get<4>(key))));
        if (!cards[m].hasContext)
            out.notes.push_back(cards[m].label
                + " has no context block (a lesson file written before lessons saved "
                  "one): its machine's facts are unknown.");
    }
    // Each source once, with the cards it gave.
    std::vector<std::pair<std::string, std::string>> sources; // source, labels
    for (const MachineCard& card : cards) {
        if (card.source.empty())
            continue;
        auto it = std::find_if(sources.begin(), sources.end(), [&](const auto& s) { return s.first == card.source; });
        if (it == sources.end())
            sources.emplace_back(card.source, card.label);
        else
            it->second += ", " + card.label;
    }
    for (const auto& [source, labels] : sources)
        out.notes.push_back("Published figures (" + labels + "), not measured here: " + source
            + " One figure per row, no spread: verdicts against them are unclear.");
    for (auto& [key, results] : found) {
        MachineRow row;
        row.bench = benches[std::get<0>(key)];
        row.mode = std::get<1>(key);
        row.relation = std::get<2>(key);
        row.wsBytes = std::get<3>(key);
        row.kinds = std::get<4>(key);
        row.condition = std::get<5>(key);
        const RunResult* base = results[baseline];
        for (std::size_t m = 0; m < cards.size(); ++m) {
            MachineCell cell;
            if (const RunResult* r = results[m]) {
                if (row.op.empty())
                    row.op = r->op;
                cell.medianNs = r->stats.p50;
                if (m != baseline && base && base->stats.p50 > 0) {
                    const lesson::Comparison c = lesson::compare(*base, *r);
                    cell.ratio = c.ratio;
                    cell.low = c.low;
                    cell.high = c.high;
                    cell.verdict = c.verdict == lesson::Verdict::Differs ? MachineVerdict::Matters
                        : c.verdict == lesson::Verdict::Same             ? MachineVerdict::Same
                                                                         : MachineVerdict::Unclear;
                    cell.disturbed = c.disturbed;
                }
            }
            row.cells.push_back(std::move(cell));
        }
        out.rows.push_back(std::move(row));
    }
    out.figures = compare::surveyFigures(cards, baseline);
    out.causes = compare::segmentCauses(cards, baseline, out.rows);
    // The facts in the first card's order, then those only later cards have.
    std::vector<std::string> order;
    std::vector<std::map<std::string, std::string>> facts;
    for (const MachineCard& card : cards) {
        auto& f = facts.emplace_back();
        for (auto& [what, value] : contextFacts(card)) {
            if (std::find(order.begin(), order.end(), what) == order.end())
                order.push_back(what);
            f[what] = value;
        }
    }
    for (const std::string& what : order) {
        ContextDifference d { what, {} };
        for (const auto& f : facts) {
            const auto it = f.find(what);
            d.values.push_back(it == f.end() ? std::string("unknown") : it->second);
        }
        // A difference between facts that are known: "unknown" (a published figure's
        // mitigations, a file without them) beside one value is no difference.
        std::vector<std::string> known;
        for (const std::string& v : d.values)
            if (v != "unknown" && std::find(known.begin(), known.end(), v) == known.end())
                known.push_back(v);
        if (known.size() > 1)
            out.differences.push_back(std::move(d));
    }
    return out;
}

} // namespace ctxscope
