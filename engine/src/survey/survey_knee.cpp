// SPDX-License-Identifier: MIT
// The survey's working-set knee: its sizes, and the knee found in its runs.
#include "ctxscope/cache_check.h"
#include "ctxscope/survey.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <fmt/core.h>
#include <map>

namespace ctxscope {

namespace {

constexpr std::uint64_t kLine = 64;

} // namespace

std::vector<std::uint64_t> surveyWorkingSets(
    const Topology& topology, std::optional<std::uint64_t> availableBytes, std::string* note)
{
    const int level = topology.lastCacheLevel();
    const CacheCheck check = checkCaches(topology);
    const std::uint64_t llc = level > 0 ? plausibleCacheSize(topology, check, level) : 0;
    std::string why;
    std::uint64_t end = 2 * llc;
    if (llc == 0) {
        end = kSurveyMaxWsBytes;
        const std::uint64_t reported = level > 0 ? topology.cacheSize(level) : 0;
        why = reported > 0
            ? fmt::format("The last-level cache this machine reports ({}) is not plausible, so the "
                          "working sets end at {}.",
                formatBytes(reported), formatBytes(end))
            : fmt::format("The topology reports no cache size, so the working sets end at {}.", formatBytes(end));
    } else if (end > kSurveyMaxWsBytes) {
        end = kSurveyMaxWsBytes;
        why = fmt::format("The working sets end at {}, below twice the last-level cache ({}).", formatBytes(end),
            formatBytes(2 * llc));
    }
    // Two tasks' buffers within a quarter of the memory available, as a sweep's.
    if (availableBytes) {
        const std::uint64_t fits = *availableBytes / kWorkingSetMemoryDivisor / 2 / kLine * kLine;
        if (fits < end) {
            end = fits;
            why = fmt::format("The working sets end at {}: two tasks' buffers stay under a quarter of the {} of "
                              "memory available.",
                formatBytes(end), formatBytes(*availableBytes));
        }
    }
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t w = kSurveyFirstWsBytes; w <= end; w *= 4)
        sizes.push_back(w);
    if (const std::uint64_t last = end / kLine * kLine; !sizes.empty() && sizes.back() < last)
        sizes.push_back(last);
    if (note)
        *note = why;
    return sizes;
}

SurveyKnee surveyKnee(const std::vector<RunResult>& results)
{
    std::map<std::uint64_t, const RunResult*> touch;
    for (const RunResult& r : results)
        if (r.bench == "touch" && r.spec.wsBytes > 0)
            touch.emplace(r.spec.wsBytes, &r);
    std::map<std::uint64_t, std::pair<WorkingSetPoint, bool>> byW;
    for (const RunResult& r : results) {
        if (r.bench != "futex" || r.mode != BenchMode::Thread || r.placement.relation != Relation::SamePu
            || r.spec.wsBytes == 0 || !touch.contains(r.spec.wsBytes) || byW.contains(r.spec.wsBytes))
            continue;
        WorkingSetPoint p = workingSetPointOf(r, touch[r.spec.wsBytes]);
        const bool clear = !p.costNotPositive && !costSpreadReachesZero(p) && !roundTripNoisy(r);
        byW.emplace(r.spec.wsBytes, std::pair { std::move(p), clear });
    }
    SurveyKnee knee;
    const WorkingSetPoint* first = nullptr;
    for (auto& [w, point] : byW) {
        knee.points.push_back(point.first);
        knee.clear.push_back(point.second);
    }
    int clearPoints = 0;
    for (std::size_t i = 0; i < knee.points.size(); ++i) {
        if (!knee.clear[i])
            continue;
        ++clearPoints;
        const WorkingSetPoint& p = knee.points[i];
        if (!first) {
            first = &p;
        } else if (!knee.kneeBytes && costClearlyAbove(*first, p)) {
            knee.kneeBytes = p.wsBytes;
            knee.sentence = fmt::format("The switch cost on one PU rises clearly at W = {} per task: {} against {} at "
                                        "W = {} ({:.1f} times).",
                formatBytes(p.wsBytes), formatDuration(*p.switchCostNs), formatDuration(*first->switchCostNs),
                formatBytes(first->wsBytes), *p.switchCostNs / *first->switchCostNs);
        }
    }
    if (knee.kneeBytes)
        return knee;
    if (knee.points.empty())
        knee.sentence = "No working-set run finished, so there is no knee to tell.";
    else if (clearPoints < 2)
        knee.sentence = fmt::format("{} of {} working sets gave a clear switch cost (positive, its spread above 0, "
                                    "repetitions within 5%): too few to tell a knee.",
            clearPoints, knee.points.size());
    else
        knee.sentence = fmt::format("The switch cost on one PU never rose clearly ({} times, the quartile spreads "
                                    "apart) above its {} at W = {}, up to W = {}: no knee within these sizes.",
            kClearCostRise, formatDuration(*first->switchCostNs), formatBytes(first->wsBytes),
            formatBytes(knee.points.back().wsBytes));
    return knee;
}

} // namespace ctxscope
