// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"
#include "ctxscope/working_set.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace ctxscope::gui {

// Where a working set of 0 bytes is drawn on a log2 axis (which has no 0): one step left of
// the first page, labelled "0".
inline constexpr double kZeroBytesPosition = 1024;

// One working-set sweep as the views hold it: its points and the caches of the machine it
// ran on (from a live sweep, a CLI `sweep --json` file or a saved session).
struct SweepCurves {
    QString label; // "futex · thread · same-pu (0,0)", plus where it came from
    std::vector<WorkingSetPoint> points;
    std::vector<CacheInfo> caches;
};

enum class WsSeries { SwitchCost, RoundTrip, Touch };
enum class WsSpread { Quartiles, MinP90 }; // p25–p75 of the samples, or min–p90

struct WsPlotPoint {
    double x = 0; // bytes per task; W = 0 at kZeroBytesPosition
    double y = 0; // ns, the median
    double low = 0; // ns, the bottom of the error bar (never above y)
    double high = 0; // ns, its top (never below y)
};

// The points of one series ready to plot on log axes: a switch cost at or below 0 is left
// out (never drawn as a number, as the CLI never prints one), and so is a touch at W = 0.
std::vector<WsPlotPoint> wsSeries(const SweepCurves& sweep, WsSeries series, WsSpread spread);

struct CacheMarker {
    int level = 0;
    std::uint64_t bytes = 0; // of one instance
    QString label; // "L1d 32 KiB", "L3 508 MiB (implausible)"
    bool plausible = true; // see checkCaches
};
// One marker per cache level (the first instance's size), from the closest level out.
std::vector<CacheMarker> cacheMarkers(const std::vector<CacheInfo>& caches);
// The one sentence saying the sizes are implausible (checkCaches), or "" when they are not.
QString cacheWarning(const std::vector<CacheInfo>& caches);

} // namespace ctxscope::gui
