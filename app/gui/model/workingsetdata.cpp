// SPDX-License-Identifier: MIT
#include "workingsetdata.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/units.h"

#include <QObject>

#include <algorithm>
#include <map>

namespace ctxscope::gui {

namespace {

struct Spread {
    double low = 0;
    double mid = 0;
    double high = 0;
};

Spread roundTripSpread(const WorkingSetPoint& p, WsSpread spread)
{
    if (spread == WsSpread::MinP90)
        return { p.roundTripRun.stats.min, p.roundTrip.p50, p.roundTripRun.stats.p90 };
    return { p.roundTrip.p25, p.roundTrip.p50, p.roundTrip.p75 };
}

Spread touchSpread(const WorkingSetPoint& p, WsSpread spread)
{
    // A file holds the touch's quartiles only; its min and p90 come with a live touch run.
    if (spread == WsSpread::MinP90 && p.touchRun)
        return { p.touchRun->stats.min, p.touch.p50, p.touchRun->stats.p90 };
    return { p.touch.p25, p.touch.p50, p.touch.p75 };
}

} // namespace

std::vector<WsPlotPoint> wsSeries(const SweepCurves& sweep, WsSeries series, WsSpread spread)
{
    std::vector<WsPlotPoint> out;
    for (const WorkingSetPoint& p : sweep.points) {
        const double x = p.wsBytes == 0 ? kZeroBytesPosition : static_cast<double>(p.wsBytes);
        Spread s;
        if (series == WsSeries::RoundTrip) {
            s = roundTripSpread(p, spread);
        } else if (series == WsSeries::Touch) {
            if (p.wsBytes == 0)
                continue;
            s = touchSpread(p, spread);
        } else {
            if (!p.switchCostNs || p.costNotPositive || p.switchesPerOp <= 0)
                continue;
            // The cost's spread pairs the round trip's low end with the touch's high end and
            // the reverse, as the engine does; a low end at or below 0 ends the bar at the median.
            const Spread rt = roundTripSpread(p, spread);
            const Spread touch = p.wsBytes == 0 ? Spread {} : touchSpread(p, spread);
            const double tasks = p.tasks;
            const double low = (rt.low - tasks * touch.high) / p.switchesPerOp;
            const double high = (rt.high - tasks * touch.low) / p.switchesPerOp;
            s = { low > 0 ? low : *p.switchCostNs, *p.switchCostNs, high };
        }
        if (s.mid <= 0)
            continue;
        out.push_back({ x, s.mid, std::min(s.low > 0 ? s.low : s.mid, s.mid), std::max(s.high, s.mid) });
    }
    return out;
}

std::vector<CacheMarker> cacheMarkers(const std::vector<CacheInfo>& caches)
{
    std::map<int, std::uint64_t> firstOfLevel;
    for (const CacheInfo& c : caches)
        if (c.size > 0)
            firstOfLevel.emplace(c.level, c.size);
    // A sweep file keeps the caches but not the cores: each PU under an instance counts as one.
    const CacheCheck check = checkCaches(caches, {});
    std::vector<CacheMarker> out;
    for (const auto& [level, bytes] : firstOfLevel) {
        const bool plausible = check.plausible(level);
        out.push_back({ level, bytes,
            QStringLiteral("L%1%2 %3%4")
                .arg(level)
                .arg(level == 1 ? QStringLiteral("d") : QString())
                .arg(QString::fromStdString(formatBytes(bytes)))
                .arg(plausible ? QString() : QObject::tr(" (implausible)")),
            plausible });
    }
    return out;
}

QString cacheWarning(const std::vector<CacheInfo>& caches)
{
    return caches.empty() ? QString() : QString::fromStdString(checkCaches(caches, {}).sentence());
}

} // namespace ctxscope::gui
