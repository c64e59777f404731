// SPDX-License-Identifier: MIT
// Lesson "cache-pollution": what does a switch really cost with real data?
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/placement.h"
#include "ctxscope/units.h"
#include "ctxscope/working_set.h"

#include <algorithm>
#include <fmt/core.h>
#include <map>

namespace ctxscope::lesson {

namespace {

constexpr std::uint64_t kLine = 64;

} // namespace

std::vector<std::pair<std::uint64_t, std::string>> cachePollutionSizes(const Topology& topology)
{
    const CacheCheck check = checkCaches(topology);
    std::map<std::uint64_t, std::string> bySize { { 0, "no data" } };
    auto add = [&](std::uint64_t w, std::string label) {
        w = std::min(w, kWorkingSetCap) / kLine * kLine;
        if (w == 0)
            return;
        std::string& l = bySize[w];
        l += (l.empty() ? "" : ", ") + label;
    };
    const int last = topology.lastCacheLevel();
    for (int level = 1; level <= last; ++level) {
        const std::uint64_t size = topology.cacheSize(level);
        if (size == 0)
            continue;
        std::string label = fmt::format("L{}{}", level, level == 1 ? "d" : "");
        if (!check.plausible(level))
            label += fmt::format(" as reported ({}, not plausible)", formatBytes(size));
        if (size > kWorkingSetCap)
            label += fmt::format(", capped at {}", formatBytes(kWorkingSetCap));
        add(size, label);
    }
    if (const std::uint64_t llc = plausibleCacheSize(topology, check, last); llc > 0)
        add(4 * llc, 4 * llc > kWorkingSetCap ? "the cap, below 4x the last-level cache" : "4x the last-level cache");
    else
        add(kWorkingSetCap, "the cap: no plausible last-level cache size is known");
    return { bySize.begin(), bySize.end() };
}

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    const auto pairs = representativePairs(topology);
    std::vector<LessonStep> steps;
    const auto ws = cachePollutionSizes(topology);
    for (const auto& [w, name] : ws) {
        BenchSpec rt = spec("futex", BenchMode::Thread, { cpu, cpu }, o);
        rt.wsBytes = w;
        steps.push_back({ fmt::format("futex on one PU, each task touching {} ({})", formatBytes(w), name), rt });
        if (w > 0) {
            BenchSpec touch = spec("touch", BenchMode::Thread, { cpu }, o);
            touch.wsBytes = w;
            steps.push_back({ fmt::format("one task touching {} hot, no switch", formatBytes(w)), touch });
        }
    }
    if (!pairs.empty() && pairs.back().relation != Relation::SamePu) {
        for (std::uint64_t w : { ws.front().first, ws.back().first }) {
            BenchSpec far = spec("futex", BenchMode::Thread, { pairs.back().a, pairs.back().b }, o);
            far.wsBytes = w;
            steps.push_back({ fmt::format("futex {} (CPUs {},{}), touching {}",
                                  relationText(pairs.back().relation, pairs.back().kinds), pairs.back().a,
                                  pairs.back().b, formatBytes(w)),
                far });
        }
    }
    return steps;
}

// One point of the curve, derived the way the sweep derives it, with the sweep's flags.
struct Point {
    WorkingSetPoint p;
    bool noisy = false;
    bool disturbed = false; // its round trip or touch run was disturbed: never compared
    double repetitionCv = 0;
    bool clear() const { return !p.costNotPositive && !costSpreadReachesZero(p) && !noisy && !disturbed; }
};

// The points of one placement class (one PU, or across PUs): a futex round trip at W and the
// touch baseline of the same W (a W whose touch step failed has no point).
std::map<std::uint64_t, Point> points(const std::vector<RunResult>& results, bool onePu, Relation* relation)
{
    std::map<std::uint64_t, const RunResult*> touch;
    for (const auto& r : results)
        if (r.bench == "touch")
            touch[r.spec.wsBytes] = &r;
    std::map<std::uint64_t, Point> out;
    for (const auto& r : results) {
        if (r.bench != "futex" || (r.placement.relation == Relation::SamePu) != onePu)
            continue;
        const std::uint64_t w = r.spec.wsBytes;
        if (w > 0 && !touch.count(w))
            continue;
        Point pt;
        pt.p.wsBytes = w;
        pt.p.tasks = 2;
        pt.p.switchesPerOp = r.switchesPerOp > 0 ? r.switchesPerOp : 2;
        pt.p.roundTrip = quartilesOf(r);
        if (w > 0)
            pt.p.touch = quartilesOf(*touch[w]);
        deriveSwitchCost(pt.p);
        pt.noisy = roundTripNoisy(r);
        pt.disturbed = wasDisturbed(r) || (w > 0 && wasDisturbed(*touch[w]));
        pt.repetitionCv = r.repetitionCv;
        out[w] = pt;
        if (relation)
            *relation = r.placement.relation;
    }
    return out;
}

std::string costText(const Point& pt)
{
    const WorkingSetPoint& p = pt.p;
    if (p.costNotPositive)
        return "at or below 0 (flagged: the touches take the whole round trip)";
    std::string s = formatDuration(*p.switchCostNs);
    if (costSpreadReachesZero(p))
        s += fmt::format(" (p25–p75 from ≤ 0 to {}: the spread reaches 0)", formatDuration(*p.switchCostHighNs));
    else if (*p.switchCostLowNs != *p.switchCostHighNs) // equal when the run kept no samples
        s += fmt::format(" (p25–p75 {}–{})", formatDuration(*p.switchCostLowNs), formatDuration(*p.switchCostHighNs));
    if (pt.noisy)
        s += fmt::format(", noisy: its repetition medians vary by {:.0f}%", 100 * pt.repetitionCv);
    return s;
}

// b is clearly dearer than a: by kClearCostRise, with the quartile spreads apart.
bool clearlyDearer(const Point& a, const Point& b) { return a.clear() && b.clear() && costClearlyAbove(a.p, b.p); }

std::string kneeSentence(const std::map<std::uint64_t, Point>& same)
{
    const Point* prev = nullptr;
    const Point* from = nullptr;
    const Point* to = nullptr;
    int clearPoints = 0;
    for (const auto& [w, pt] : same) {
        if (!pt.clear())
            continue;
        ++clearPoints;
        if (prev && clearlyDearer(*prev, pt)
            && (!from || *pt.p.switchCostNs / *prev->p.switchCostNs > *to->p.switchCostNs / *from->p.switchCostNs)) {
            from = prev;
            to = &pt;
        }
        prev = &pt;
    }
    if (from)
        return fmt::format("Among the clear points the cost rose most between W={} ({}) and W={} ({}), {:.1f} times: "
                           "once two working sets no longer fit the cache, every switch refills it from farther away.",
            formatBytes(from->p.wsBytes), formatDuration(*from->p.switchCostNs), formatBytes(to->p.wsBytes),
            formatDuration(*to->p.switchCostNs), *to->p.switchCostNs / *from->p.switchCostNs);
    if (clearPoints >= 2)
        return fmt::format("From one clear point to the next the cost never rose by {} times with the quartile "
                           "spreads apart: the knee does not show on this machine.",
            kClearCostRise);
    return "Fewer than two points are clear enough to compare, so no knee can be claimed here.";
}

std::string excludedSentence(const std::map<std::uint64_t, Point>& same)
{
    std::string list;
    for (const auto& [w, pt] : same) {
        if (pt.clear())
            continue;
        std::string why = pt.p.costNotPositive ? "cost at or below 0" : "";
        if (costSpreadReachesZero(pt.p))
            why = "its spread reaches 0";
        if (pt.noisy)
            why += std::string(why.empty() ? "" : ", ") + "noisy";
        if (pt.disturbed)
            why += std::string(why.empty() ? "" : ", ") + "disturbed";
        list += fmt::format("{}W={} ({})", list.empty() ? "" : ", ", formatBytes(w), why);
    }
    if (list.empty())
        return {};
    std::string out = "Left out of every comparison as too uncertain: " + list + ".";
    if (!same.rbegin()->second.clear())
        out += " At the largest working sets each round trip touches more memory than the caches hold, and the "
               "run-to-run noise grows with it.";
    return out;
}

// W = 0 against the largest clear W.
std::string dataSentence(const Point& first, const Point& last)
{
    const double ratio = *last.p.switchCostNs / *first.p.switchCostNs;
    if (clearlyDearer(first, last))
        return fmt::format("With no data a switch cost {}; with {} per task it cost {}, {:.1f} times as much: the "
                           "indirect cost of a switch is the cache it spoils.",
            formatDuration(*first.p.switchCostNs), formatBytes(last.p.wsBytes), formatDuration(*last.p.switchCostNs),
            ratio);
    return fmt::format("With no data a switch cost {}; with {} per task it cost {}, not clearly more: the cache a "
                       "switch spoils does not show in these runs.",
        formatDuration(*first.p.switchCostNs), formatBytes(last.p.wsBytes), formatDuration(*last.p.switchCostNs));
}

// Whether two PUs of this relation sit under one last-level cache.
bool sharesLastLevel(Relation r)
{
    return r == Relation::SamePu || r == Relation::Smt || r == Relation::SharedL2 || r == Relation::SharedL3;
}

std::string acrossSentence(
    const std::map<std::uint64_t, Point>& same, const std::map<std::uint64_t, Point>& far, Relation relation)
{
    const Point& f0 = far.begin()->second;
    const Point& f1 = far.rbegin()->second;
    const auto s0 = same.find(f0.p.wsBytes);
    const auto s1 = same.find(f1.p.wsBytes);
    const std::string where = fmt::format("across PUs ({})", toString(relation));
    if (far.size() < 2 || !f0.clear() || !f1.clear() || s0 == same.end() || s1 == same.end() || !s0->second.clear()
        || !s1->second.clear())
        return fmt::format("The hand-over {} at W={} and W={} is not clear enough (see the flags) to compare with "
                           "one PU.",
            where, formatBytes(f0.p.wsBytes), formatBytes(f1.p.wsBytes));
    const double farRatio = *f1.p.switchCostNs / *f0.p.switchCostNs;
    const double sameRatio = *s1->second.p.switchCostNs / *s0->second.p.switchCostNs;
    std::string why;
    if (farRatio * kClearCostRise < sameRatio)
        why = sharesLastLevel(relation) ? "Each task keeps its own core's nearest caches there, so the data hurt less "
                                          "than on one PU."
                                        : "Each task keeps its own caches there, so the data hurt less than on one PU.";
    else if (sharesLastLevel(relation))
        why = "The data hurt about as much across PUs as on one: these two PUs share the last-level cache.";
    else
        why = "The data hurt about as much across PUs as on one, though the topology puts these PUs under separate "
              "caches: what they share is memory bandwidth, or caches the topology does not show (a VM's host).";
    return fmt::format("Across PUs ({}) the same hand-over cost {} with no data and {} with {} per task ({:.1f} times, "
                       "against {:.1f} times on one PU). {}",
        toString(relation), formatDuration(*f0.p.switchCostNs), formatDuration(*f1.p.switchCostNs),
        formatBytes(f1.p.wsBytes), farRatio, sameRatio, why);
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    const auto same = points(results, true, nullptr);
    if (same.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    std::vector<std::string> out;
    std::string row;
    for (const auto& [w, pt] : same)
        row += fmt::format("{}W={}: {}", row.empty() ? "" : "; ", formatBytes(w), costText(pt));
    out.push_back("Cost of one switch on one PU once the touching is taken out, by working set W per task (sizes from "
                  "this machine's caches, at most 256 MiB): "
        + row + ".");
    out.push_back(kneeSentence(same));
    const Point* first = same.begin()->second.clear() ? &same.begin()->second : nullptr;
    const Point* last = nullptr;
    for (const auto& [w, pt] : same)
        if (pt.clear() && w > 0)
            last = &pt;
    if (first && last)
        out.push_back(dataSentence(*first, *last));
    if (std::string excluded = excludedSentence(same); !excluded.empty())
        out.push_back(excluded);
    Relation relation = Relation::SamePu;
    const auto far = points(results, false, &relation);
    if (!far.empty())
        out.push_back(acrossSentence(same, far, relation));
    return out;
}

} // namespace

const LessonDefinition& cachePollutionLesson()
{
    static const LessonDefinition d { { "cache-pollution", "What does a switch really cost with real data?",
                                          "working sets of 0, L1d, L2, L3 and 4x the last-level cache (at most 256 "
                                          "MiB): futex same-pu, the touch baseline, and one cross-core class" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
