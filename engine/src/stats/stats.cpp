// SPDX-License-Identifier: MIT
#include "ctxscope/stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ctxscope {

namespace {
constexpr int kMinExponent = -8; // 2^-8: the smallest value with its own bucket
constexpr int kOctaves = 48; // up to 2^40

// One summary from the moments and a percentile function (exact from sorted samples, or
// from the histogram when the samples were not all kept).
template <typename Percentile> Summary summaryOf(const RunningStats& running, const Percentile& percentile)
{
    Summary s;
    s.count = running.count();
    if (s.count == 0)
        return s;
    s.min = running.min();
    s.max = running.max();
    s.mean = running.mean();
    s.stddev = running.stddev();
    s.cv = s.mean != 0 ? s.stddev / s.mean : 0;
    s.p50 = percentile(0.5);
    s.p90 = percentile(0.9);
    s.p99 = percentile(0.99);
    s.p999 = percentile(0.999);
    return s;
}

// The min and max of a stream after one more value; countBefore is how many came before
// it (the first value is both bounds, whatever the zero-initialised ones were).
void widenBounds(std::uint64_t countBefore, double value, double& lo, double& hi)
{
    if (countBefore == 0) {
        lo = hi = value;
    } else {
        lo = std::min(lo, value);
        hi = std::max(hi, value);
    }
}
} // namespace

double percentileOfSorted(std::span<const double> sorted, double q)
{
    if (sorted.empty())
        return 0;
    const double h = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarize(std::span<const double> values)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    RunningStats running;
    for (double v : sorted)
        running.add(v);
    return summaryOf(running, [&sorted](double q) { return percentileOfSorted(sorted, q); });
}

Quartiles quartiles(std::span<const double> values)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return Quartiles { percentileOfSorted(sorted, 0.25), percentileOfSorted(sorted, 0.5),
        percentileOfSorted(sorted, 0.75) };
}

void RunningStats::add(double value)
{
    widenBounds(m_count, value, m_min, m_max);
    ++m_count;
    const double delta = value - m_mean;
    m_mean += delta / static_cast<double>(m_count);
    m_m2 += delta * (value - m_mean);
}

double RunningStats::stddev() const { return m_count > 1 ? std::sqrt(m_m2 / static_cast<double>(m_count - 1)) : 0; }

// The buckets are made as values reach them: a watch keeps one histogram per thread, and
// a thousand threads' full histograms would be megabytes of zeros to fault in at its first reading.
LogHistogram::LogHistogram(int subBuckets)
    : m_sub(std::max(1, subBuckets))
{
}

std::size_t LogHistogram::indexOf(double value) const
{
    if (!(value > 0))
        return 0;
    // value = (1 + fraction) * 2^(exponent - 1), fraction in [0, 1): std::frexp's exponent and
    // its mantissa * 2 - 1, read from the double's bits (the call was a third of an add(), which
    // a traced watch makes for each of its 10,000 wake-ups a second).
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    const int exponent = biased - 1022;
    const int octave = exponent - 1 - kMinExponent;
    if (biased == 0 || octave < 0) // subnormal or below the first octave
        return 0;
    if (octave >= kOctaves) // past the last octave, or infinite
        return static_cast<std::size_t>(kOctaves) * static_cast<std::size_t>(m_sub) - 1;
    const double fraction = static_cast<double>(bits & ((std::uint64_t { 1 } << 52) - 1)) * 0x1p-52;
    const int sub = std::min(m_sub - 1, static_cast<int>(fraction * m_sub));
    return static_cast<std::size_t>(octave * m_sub + sub);
}

double LogHistogram::lowerOf(std::size_t index) const
{
    const int octave = static_cast<int>(index) / m_sub;
    const int sub = static_cast<int>(index) % m_sub;
    return std::ldexp(1.0 + static_cast<double>(sub) / m_sub, octave + kMinExponent);
}

void LogHistogram::add(double value)
{
    widenBounds(m_count, value, m_min, m_max);
    ++m_count;
    const std::size_t index = indexOf(value);
    if (index >= m_counts.size())
        m_counts.resize(index + 1, 0);
    ++m_counts[index];
}

double LogHistogram::percentile(double q) const
{
    if (m_count == 0)
        return 0;
    const auto rank
        = static_cast<std::uint64_t>(std::floor(std::clamp(q, 0.0, 1.0) * static_cast<double>(m_count - 1))) + 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < m_counts.size(); ++i) {
        seen += m_counts[i];
        if (seen >= rank) {
            const double middle = (lowerOf(i) + lowerOf(i + 1)) / 2;
            return std::clamp(middle, m_min, m_max);
        }
    }
    return m_max;
}

std::vector<HistogramBucket> LogHistogram::buckets() const
{
    std::vector<HistogramBucket> out;
    for (std::size_t i = 0; i < m_counts.size(); ++i)
        if (m_counts[i] > 0)
            out.push_back({ lowerOf(i), lowerOf(i + 1), m_counts[i] });
    return out;
}

Summary summarize(const RunningStats& running, const LogHistogram& histogram)
{
    return summaryOf(running, [&histogram](double q) { return histogram.percentile(q); });
}

} // namespace ctxscope
