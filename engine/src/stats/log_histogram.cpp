// SPDX-License-Identifier: MIT
#include "ctxscope/log_histogram.h"

#include "stats/bounds.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ctxscope {

using stats::widenBounds;

namespace {
constexpr int kMinExponent = -8; // 2^-8: the smallest value with its own bucket
constexpr int kOctaves = 48; // up to 2^40
} // namespace

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

} // namespace ctxscope
