// SPDX-License-Identifier: MIT
#include "plotdata.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ctxscope::gui {

std::vector<DensityBin> logBins(const std::vector<HistogramBucket>& buckets, int perOctave)
{
    std::map<long, std::uint64_t> counts;
    std::uint64_t total = 0;
    for (const HistogramBucket& b : buckets) {
        if (b.count == 0)
            continue;
        // The middle of a bucket decides its bin: the engine's buckets are linear inside an
        // octave, so their edges do not fall on ours.
        const double middle = std::max((b.lower + b.upper) / 2, 1e-9);
        counts[std::lround(std::floor(std::log2(middle) * perOctave))] += b.count;
        total += b.count;
    }
    std::vector<DensityBin> bins;
    if (counts.empty())
        return bins;
    const auto edge = [perOctave](long k) { return std::exp2(static_cast<double>(k) / perOctave); };
    for (long k = counts.begin()->first; k <= counts.rbegin()->first; ++k) {
        const auto it = counts.find(k);
        const double count = it == counts.end() ? 0.0 : static_cast<double>(it->second);
        bins.push_back({ edge(k), edge(k + 1), count / static_cast<double>(total) });
    }
    return bins;
}

std::vector<CdfPoint> cdfPoints(const std::vector<HistogramBucket>& buckets)
{
    std::uint64_t total = 0;
    for (const HistogramBucket& b : buckets)
        total += b.count;
    std::vector<CdfPoint> points;
    if (total == 0)
        return points;
    std::uint64_t below = 0;
    points.push_back({ buckets.front().lower, 0.0 });
    for (const HistogramBucket& b : buckets) {
        below += b.count;
        points.push_back({ b.upper, static_cast<double>(below) / static_cast<double>(total) });
    }
    return points;
}

RunningMedian::RunningMedian(std::size_t window)
    : m_window(std::max<std::size_t>(window, 1))
{
    m_pending.reserve(m_window);
}

MedianPoint RunningMedian::close()
{
    const std::size_t n = m_pending.size();
    const double centre = static_cast<double>(m_count - n) + static_cast<double>(n - 1) / 2;
    const auto middle = m_pending.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(m_pending.begin(), middle, m_pending.end());
    double median = *middle;
    if (n % 2 == 0) // the mean of the two middle values, as the engine's percentiles do
        median = (median + *std::max_element(m_pending.begin(), middle)) / 2;
    m_pending.clear();
    return { centre, median };
}

std::vector<MedianPoint> RunningMedian::add(std::span<const double> values)
{
    std::vector<MedianPoint> points;
    for (double v : values) {
        m_pending.push_back(v);
        ++m_count;
        if (m_pending.size() == m_window)
            points.push_back(close());
    }
    return points;
}

std::vector<MedianPoint> RunningMedian::flush()
{
    if (m_pending.empty())
        return {};
    return { close() };
}

PreparedTrace prepareTrace(std::span<const double> samples, std::size_t window)
{
    PreparedTrace out;
    if (samples.empty())
        return out;
    RunningMedian running(window);
    out.medians = running.add(samples);
    for (const MedianPoint& p : running.flush())
        out.medians.push_back(p);
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    out.min = *lo;
    out.max = *hi;
    return out;
}

ThinnedScatter thinScatter(std::span<const double> samples, std::size_t buckets, std::size_t perBucket)
{
    ThinnedScatter out;
    const std::size_t n = samples.size();
    const std::size_t keep = perBucket + 2;
    if (buckets == 0 || n <= buckets * keep) {
        out.keys.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            out.keys.push_back(static_cast<double>(i));
        out.values.assign(samples.begin(), samples.end());
        return out;
    }
    const std::size_t width = (n + buckets - 1) / buckets; // samples per bucket, > keep here
    out.keys.reserve(buckets * keep);
    out.values.reserve(buckets * keep);
    std::vector<std::size_t> picks;
    for (std::size_t begin = 0; begin < n; begin += width) {
        const std::size_t end = std::min(n, begin + width);
        const auto bucket = samples.subspan(begin, end - begin);
        const auto [lo, hi] = std::minmax_element(bucket.begin(), bucket.end());
        picks.clear();
        picks.push_back(begin + static_cast<std::size_t>(lo - bucket.begin()));
        picks.push_back(begin + static_cast<std::size_t>(hi - bucket.begin()));
        for (std::size_t k = 0; k < perBucket; ++k)
            picks.push_back(begin + (2 * k + 1) * bucket.size() / (2 * perBucket));
        // In index order, each sample once (the extremes may be among the even picks).
        std::sort(picks.begin(), picks.end());
        picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
        for (std::size_t i : picks) {
            out.keys.push_back(static_cast<double>(i));
            out.values.push_back(samples[i]);
        }
    }
    return out;
}

} // namespace ctxscope::gui
