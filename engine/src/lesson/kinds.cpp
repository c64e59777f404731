// SPDX-License-Identifier: MIT
#include "lesson/kinds.h"

#include "lesson/lesson_util.h"

#include "ctxscope/placement.h"

#include <algorithm>
#include <fmt/core.h>
#include <map>

namespace ctxscope::lesson {

namespace {

std::vector<std::string> kindParts(const std::string& kinds)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (!kinds.empty()) {
        const std::size_t at = kinds.find(kKindPairSeparator, start);
        parts.push_back(kinds.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
            break;
        start = at + kKindPairSeparator.size();
    }
    return parts;
}

// "P-cores", "E-cores", "IntelCore cores".
std::string coresOf(const std::string& kind) { return kind + (kind.size() == 1 ? "-cores" : " cores"); }
std::string coreOf(const std::string& kind) { return kind + (kind.size() == 1 ? "-core" : " core"); }

// "between two E-cores", "on one E-core".
std::string whereOf(const RunResult& r, const std::string& kind)
{
    return r.placement.relation == Relation::SamePu ? "on one " + coreOf(kind) : "between two " + coresOf(kind);
}

} // namespace

std::string singleKindOf(const RunResult& r)
{
    const std::vector<std::string> parts = kindParts(r.placement.kinds);
    if (parts.empty() || std::any_of(parts.begin(), parts.end(), [&](const std::string& p) { return p != parts[0]; }))
        return {};
    return parts.front();
}

std::optional<KindFinding> kindFinding(const std::vector<RunResult>& results)
{
    // Per class, the first pinned futex thread run of each single kind.
    std::map<Relation, std::map<std::string, const RunResult*>> byClass;
    for (const RunResult& r : results) {
        if (r.bench != "futex" || r.mode != BenchMode::Thread || r.placement.relation == Relation::Unpinned
            || r.spec.wsBytes > 0)
            continue;
        if (const std::string kind = singleKindOf(r); !kind.empty())
            byClass[r.placement.relation].try_emplace(kind, &r);
    }
    // Across two cores first, the closest class (the least else in the way); one PU last.
    std::vector<Relation> order;
    for (const auto& [relation, kinds] : byClass)
        if (relation != Relation::SamePu && kinds.size() >= 2)
            order.push_back(relation);
    if (byClass.contains(Relation::SamePu) && byClass[Relation::SamePu].size() >= 2)
        order.push_back(Relation::SamePu);
    if (order.empty())
        return std::nullopt;
    const auto& kinds = byClass[order.front()];
    KindFinding f;
    if (kinds.contains("P")) {
        f.baseKind = "P";
    } else {
        // The fastest kind is the base, unless one is "E": then the other is.
        const auto fastest = std::min_element(kinds.begin(), kinds.end(),
            [](const auto& a, const auto& b) { return a.second->stats.p50 < b.second->stats.p50; });
        f.baseKind = fastest->first;
        if (kinds.contains("E") && f.baseKind == "E")
            f.baseKind = std::find_if(kinds.begin(), kinds.end(), [](const auto& k) { return k.first != "E"; })->first;
    }
    f.otherKind = kinds.contains("E") && f.baseKind != "E"
        ? "E"
        : std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first != f.baseKind; })->first;
    f.base = kinds.at(f.baseKind);
    f.other = kinds.at(f.otherKind);
    f.comparison = compare(*f.base, *f.other);
    return f;
}

std::string kindSentence(const KindFinding& f)
{
    const Comparison& c = f.comparison;
    if (!c.disturbed.empty())
        return noConclusion(c, "whether the kind of core matters");
    const std::string other
        = fmt::format("a futex hand-over {} ({})", whereOf(*f.other, f.otherKind), placementText(*f.other));
    const std::string base = fmt::format("one {} ({})", whereOf(*f.base, f.baseKind), placementText(*f.base));
    switch (c.verdict) {
    case Verdict::Differs:
        return fmt::format("The kind of core matters here: {} costs {} {}.", other, formatComparison(c), base);
    case Verdict::Same:
        return fmt::format("The kind of core does not matter here: {} costs {} {}, within 10% either way.", other,
            formatComparison(c), base);
    case Verdict::Unclear:
        break;
    }
    return fmt::format("The runs vary too much to say whether the kind of core matters by 10% or more here: {} costs "
                       "{} {}.",
        other, formatRange(c), base);
}

} // namespace ctxscope::lesson
