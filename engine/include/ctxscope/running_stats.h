// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace ctxscope {

// Exact count, min, max, mean and stddev of a stream (Welford), for runs whose samples are
// too many to keep.
class RunningStats {
public:
    void add(double value);
    std::uint64_t count() const { return m_count; }
    double min() const { return m_min; }
    double max() const { return m_max; }
    double mean() const { return m_mean; }
    double stddev() const;

private:
    std::uint64_t m_count = 0;
    double m_min = 0;
    double m_max = 0;
    double m_mean = 0;
    double m_m2 = 0;
};

} // namespace ctxscope
