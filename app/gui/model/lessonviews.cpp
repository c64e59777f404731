// SPDX-License-Identifier: MIT
#include "lessonviews.h"

#include "runlabel.h"

#include <algorithm>
#include <map>

namespace ctxscope::gui {

QString lessonView(std::string_view id)
{
    if (id == "mode-switch" || id == "coroutines")
        return QStringLiteral("ladder");
    if (id == "cache-pollution")
        return QStringLiteral("working-set");
    if (id == "inside-a-switch")
        return QStringLiteral("timeline");
    return QStringLiteral("distribution");
}

std::vector<std::shared_ptr<const SweepCurves>> lessonSweeps(
    std::string_view id, const std::vector<RunResult>& results, const std::vector<CacheInfo>& caches)
{
    if (id != "cache-pollution")
        return {};
    std::map<std::uint64_t, const RunResult*> touches;
    for (const RunResult& r : results)
        if (r.bench == "touch")
            touches[r.spec.wsBytes] = &r;
    // One curve per placement of the round trips, in the order the lesson ran them.
    std::vector<std::pair<Relation, std::shared_ptr<SweepCurves>>> curves;
    for (const RunResult& r : results) {
        if (r.bench != "futex")
            continue;
        const auto touch = touches.find(r.spec.wsBytes);
        if (r.spec.wsBytes > 0 && touch == touches.end())
            continue; // its baseline did not run: no cost to derive
        auto it = curves.begin();
        while (it != curves.end() && it->first != r.placement.relation)
            ++it;
        if (it == curves.end()) {
            auto curve = std::make_shared<SweepCurves>();
            curve->label = runLabel(r.bench, r.mode, r.placement.relation, r.placement.cpus);
            curve->caches = caches;
            curves.emplace_back(r.placement.relation, curve);
            it = curves.end() - 1;
        }
        WorkingSetPoint p;
        p.wsBytes = r.spec.wsBytes;
        p.tasks = r.placement.tasks;
        p.switchesPerOp = r.switchesPerOp;
        p.roundTrip = quartilesOf(r);
        p.roundTripRun = r;
        if (r.spec.wsBytes > 0) {
            p.touch = quartilesOf(*touch->second);
            p.touchRun = *touch->second;
        }
        deriveSwitchCost(p);
        it->second->points.push_back(std::move(p));
    }
    std::vector<std::shared_ptr<const SweepCurves>> out;
    for (auto& [relation, curve] : curves) {
        std::sort(curve->points.begin(), curve->points.end(),
            [](const WorkingSetPoint& a, const WorkingSetPoint& b) { return a.wsBytes < b.wsBytes; });
        out.push_back(curve);
    }
    return out;
}

} // namespace ctxscope::gui
