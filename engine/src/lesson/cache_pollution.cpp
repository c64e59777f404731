// SPDX-License-Identifier: MIT
// Lesson "cache-pollution": what does a switch really cost with real data?
#include "lesson/lesson_util.h"

#include "ctxscope/placement.h"

#include <algorithm>
#include <fmt/core.h>
#include <map>

namespace ctxscope::lesson {

namespace {

// Each task touches W bytes; two tasks and the touch baseline's buffer must fit comfortably.
constexpr std::uint64_t kMaxWs = 256ULL << 20;

std::string bytes(std::uint64_t b)
{
    if (b >= (1ULL << 20) && b % (1ULL << 20) == 0)
        return fmt::format("{} MiB", b >> 20);
    if (b >= 1024 && b % 1024 == 0)
        return fmt::format("{} KiB", b >> 10);
    return fmt::format("{} B", b);
}

std::vector<std::pair<std::uint64_t, std::string>> sizes(const Topology& topology)
{
    std::vector<std::pair<std::uint64_t, std::string>> out { { 0, "no data" } };
    for (int level = 1; level <= topology.lastCacheLevel(); ++level)
        if (std::uint64_t size = topology.cacheSize(level); size > 0)
            out.push_back({ size, fmt::format("L{}{}", level, level == 1 ? "d" : "") });
    const std::uint64_t llc = topology.cacheSize(topology.lastCacheLevel());
    if (llc > 0)
        out.push_back({ std::min(4 * llc, kMaxWs), "4x the last-level cache" });
    return out;
}

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    const auto pairs = representativePairs(topology);
    std::vector<LessonStep> steps;
    const auto ws = sizes(topology);
    for (const auto& [w, name] : ws) {
        BenchSpec rt = spec("futex", BenchMode::Thread, { cpu, cpu }, o);
        rt.wsBytes = w;
        steps.push_back({ fmt::format("futex on one PU, each task touching {} ({})", bytes(w), name), rt });
        if (w > 0) {
            BenchSpec touch = spec("touch", BenchMode::Thread, { cpu }, o);
            touch.wsBytes = w;
            steps.push_back({ fmt::format("one task touching {} hot, no switch", bytes(w)), touch });
        }
    }
    if (!pairs.empty() && pairs.back().relation != Relation::SamePu) {
        for (std::uint64_t w : { ws.front().first, ws.back().first }) {
            BenchSpec far = spec("futex", BenchMode::Thread, { pairs.back().a, pairs.back().b }, o);
            far.wsBytes = w;
            steps.push_back({ fmt::format("futex {} (CPUs {},{}), touching {}", toString(pairs.back().relation),
                                  pairs.back().a, pairs.back().b, bytes(w)),
                far });
        }
    }
    return steps;
}

// The switch cost at each W for one placement: (round trip - 2 touch(W)) / 2.
std::map<std::uint64_t, std::optional<double>> costs(const std::vector<RunResult>& results, bool onePu)
{
    std::map<std::uint64_t, double> touch;
    for (const auto& r : results)
        if (r.bench == "touch")
            touch[r.spec.wsBytes] = r.stats.p50;
    std::map<std::uint64_t, std::optional<double>> out;
    for (const auto& r : results) {
        if (r.bench != "futex" || (r.placement.relation == Relation::SamePu) != onePu)
            continue;
        const double t = r.spec.wsBytes == 0 ? 0 : (touch.count(r.spec.wsBytes) ? touch[r.spec.wsBytes] : -1);
        if (t < 0)
            continue;
        const double cost = (r.stats.p50 - 2 * t) / 2;
        out[r.spec.wsBytes] = cost > 0 ? std::optional(cost) : std::nullopt;
    }
    return out;
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    const auto same = costs(results, true);
    if (same.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    std::vector<std::string> out;
    std::string row;
    for (const auto& [w, c] : same)
        row += fmt::format(
            "{}W={}: {}", row.empty() ? "" : "; ", bytes(w), c ? formatDuration(*c) : "at or below 0 (flagged)");
    out.push_back("Cost of one switch on one PU once the touching is taken out, by working set W per task (the sizes "
                  "are this machine's cache sizes): "
        + row + ".");
    // The knee: the largest rise from one size to the next.
    double bestRatio = 0;
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    const std::optional<double>* prev = nullptr;
    std::uint64_t prevW = 0;
    for (const auto& [w, c] : same) {
        if (prev && *prev && c && **prev > 0 && *c / **prev > bestRatio) {
            bestRatio = *c / **prev;
            from = prevW;
            to = w;
        }
        prev = &c;
        prevW = w;
    }
    if (bestRatio > 1.3)
        out.push_back(fmt::format("The cost rose most, {:.1f} times, between W={} and W={}: once two working sets no "
                                  "longer fit the cache, every switch refills it from farther away.",
            bestRatio, bytes(from), bytes(to)));
    else if (bestRatio > 0)
        out.push_back("The cost per switch hardly changed with W here: this finding does not show on this machine.");
    const auto first = same.begin()->second;
    const auto last = same.rbegin()->second;
    if (first && last)
        out.push_back(fmt::format("With no data a switch cost {}; with {} per task it cost {}, {:.1f} times as much: "
                                  "the indirect cost of a switch is the cache it spoils.",
            formatDuration(*first), bytes(same.rbegin()->first), formatDuration(*last), *last / *first));
    const auto far = costs(results, false);
    if (far.size() == 2 && far.begin()->second && far.rbegin()->second && first && last) {
        const double farRatio = *far.rbegin()->second / *far.begin()->second;
        const double sameRatio = *last / *first;
        out.push_back(fmt::format("Across PUs the same hand-over cost {} with no data and {} with {} per task ({:.1f} "
                                  "times). {}",
            formatDuration(*far.begin()->second), formatDuration(*far.rbegin()->second), bytes(far.rbegin()->first),
            farRatio,
            farRatio < sameRatio ? "Each task keeps its own cache there, so the data hurt less than on one PU."
                                 : "Here the data hurt as much across PUs as on one: the tasks share the last-level "
                                   "cache or memory bandwidth."));
    }
    return out;
}

} // namespace

const LessonDefinition& cachePollutionLesson()
{
    static const LessonDefinition d { { "cache-pollution", "What does a switch really cost with real data?",
                                          "working sets of 0, L1d, L2, L3 and 4x the last-level cache: futex same-pu, "
                                          "the touch baseline, and one cross-core class" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
