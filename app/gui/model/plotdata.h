// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/stats.h"

#include <cstddef>
#include <span>
#include <vector>

// Pure functions that shape measured data for the plots (tested without painting).
namespace ctxscope::gui {

struct DensityBin {
    double lower = 0; // ns, inclusive
    double upper = 0; // ns, exclusive
    double fraction = 0; // of all samples
};

// The engine's fine log histogram regrouped into `perOctave` equal bins per power of two, from
// the first non-empty bin to the last, empty bins included so a step line drops to zero.
std::vector<DensityBin> logBins(const std::vector<HistogramBucket>& buckets, int perOctave);

struct CdfPoint {
    double ns = 0;
    double fraction = 0; // of samples at or below ns
};
// The cumulative distribution at each bucket's upper bound, starting at 0 below the first.
std::vector<CdfPoint> cdfPoints(const std::vector<HistogramBucket>& buckets);

struct MedianPoint {
    double index = 0; // centre of the window, in samples since the start of the run
    double ns = 0;
};

// The median of consecutive windows of samples: the trend line drawn over the scatter.
class RunningMedian {
public:
    explicit RunningMedian(std::size_t window = 50);
    // Points for every window these values complete.
    std::vector<MedianPoint> add(std::span<const double> values);
    // The median of a partial last window (nothing when it is empty).
    std::vector<MedianPoint> flush();
    std::size_t count() const { return m_count; }
    // Counts `n` values whose points were computed elsewhere (a prepared trace).
    void skip(std::size_t n) { m_count += n; }

private:
    MedianPoint close();
    std::size_t m_window;
    std::size_t m_count = 0;
    std::vector<double> m_pending;
};

// A finished run's live curve, prepared off the GUI thread for a run read from a file: the
// medians of consecutive windows and the extremes. Drawing it then only copies values.
inline constexpr std::size_t kTraceMedianWindow = 50;
struct PreparedTrace {
    std::vector<MedianPoint> medians;
    double min = 0;
    double max = 0;
};
PreparedTrace prepareTrace(std::span<const double> samples, std::size_t window = kTraceMedianWindow);

// A scatter of samples in time order, thinned for drawing. Painting each of 10^5..10^6
// antialiased discs takes far longer than a live redraw may (QCustomPlot's adaptive sampling
// keeps most of them when the samples spread over the axis, as latencies do). The samples are
// cut into at most `buckets` runs of consecutive samples (about one per pixel column); each
// keeps its minimum and maximum (so every spike stays visible) and `perBucket` evenly spaced
// samples (so the density of the cloud stays true). Fewer samples than that: all of them.
struct ThinnedScatter {
    std::vector<double> keys; // sample index
    std::vector<double> values;
};
ThinnedScatter thinScatter(std::span<const double> samples, std::size_t buckets, std::size_t perBucket);

} // namespace ctxscope::gui
