// SPDX-License-Identifier: MIT
#include "ctxscope/running_stats.h"

#include "stats/bounds.h"

#include <cmath>

namespace ctxscope {

using stats::widenBounds;

void RunningStats::add(double value)
{
    widenBounds(m_count, value, m_min, m_max);
    ++m_count;
    const double delta = value - m_mean;
    m_mean += delta / static_cast<double>(m_count);
    m_m2 += delta * (value - m_mean);
}

double RunningStats::stddev() const { return m_count > 1 ? std::sqrt(m_m2 / static_cast<double>(m_count - 1)) : 0; }

} // namespace ctxscope
