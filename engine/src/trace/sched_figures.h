// SPDX-License-Identifier: MIT
// What the gatherer (one interval's figures of a thread) and SchedTotal (many intervals') make
// alike: the figures of a set of waits with runqlat's log2 bins, and peers and moves most counted
// first.
#pragma once

#include "ctxscope/sched_watch.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ctxscope::trace {

// The most wakers and preemptors a thread's figures name.
inline constexpr std::size_t kTopPeers = 5;

// Counts a wait of `ns` in runqlat's log2 bins, growing them as needed.
void addLog2(std::vector<std::uint64_t>& bins, double ns);

// The `q` quantile (0 to 1) of the waits counted in log2 bins, placed linearly within its bin:
// an estimate within a factor of 2 (the BPF backend keeps bins, not waits).
double log2Quantile(const std::vector<std::uint64_t>& bins, double q);
// Two quantiles of the same bins in one pass: {the `qa` quantile, the `qb` one}.
std::pair<double, double> log2Quantiles(const std::vector<std::uint64_t>& bins, double qa, double qb);

// wakeLatencyOf of waits already in order.
WakeLatency wakeLatencyOfSorted(const std::vector<double>& waitsNs);
// Waits from the enqueue known by runqlat's µs bins, their count and exact sum: p50 and p99
// placed within their bin, never past maxNs (the same waits from sched_waking are no shorter).
EnqueueWait enqueueWaitOf(std::vector<std::uint64_t> log2UsHist, std::uint64_t count, double sumNs, double maxNs);

// Most counted first, ties in the order they came, in place. A thread's peers and moves of
// one interval are usually a handful, sorted for each of 1,000 threads every interval: an
// insertion sort, where std::stable_sort's buffer was an allocation each time.
template <typename T> void byCount(std::vector<T>& v)
{
    if (v.size() > 16) {
        std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.count > b.count; });
        return;
    }
    for (std::size_t i = 1; i < v.size(); ++i)
        for (std::size_t j = i; j > 0 && v[j - 1].count < v[j].count; --j)
            std::swap(v[j - 1], v[j]);
}

// Moves most counted first.
std::vector<SchedMigration> ordered(std::vector<SchedMigration> moves);

} // namespace ctxscope::trace
