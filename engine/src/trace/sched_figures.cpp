// SPDX-License-Identifier: MIT
#include "trace/sched_figures.h"

#include "ctxscope/stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace ctxscope::trace {

namespace {

// floor(log2(ns)): that of its whole part, the bit width of an integer less one.
int log2Bin(double ns)
{
    return ns < 1 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(std::min(ns, 0x1p63)))) - 1;
}

} // namespace

void addLog2(std::vector<std::uint64_t>& bins, double ns)
{
    const auto bin = static_cast<std::size_t>(log2Bin(ns));
    if (bins.size() <= bin)
        bins.resize(bin + 1, 0);
    ++bins[bin];
}

double log2Quantile(const std::vector<std::uint64_t>& bins, double q)
{
    std::uint64_t total = 0;
    for (const auto n : bins)
        total += n;
    if (total == 0)
        return 0;
    const double rank = q * static_cast<double>(total);
    double below = 0;
    for (std::size_t i = 0; i < bins.size(); ++i) {
        const auto n = static_cast<double>(bins[i]);
        if (n > 0 && below + n >= rank) {
            const double low = i == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(i));
            const double high = std::ldexp(1.0, static_cast<int>(i) + 1);
            return low + (high - low) * std::clamp((rank - below) / n, 0.0, 1.0);
        }
        below += n;
    }
    return std::ldexp(1.0, static_cast<int>(bins.size()));
}

EnqueueWait enqueueWaitOf(std::vector<std::uint64_t> log2UsHist, std::uint64_t count, double sumNs, double maxNs)
{
    EnqueueWait w;
    w.known = true;
    w.count = count;
    if (count > 0) {
        w.meanNs = sumNs / static_cast<double>(count);
        w.p50Ns = std::min(1000 * log2Quantile(log2UsHist, 0.5), maxNs);
        w.p99Ns = std::min(1000 * log2Quantile(log2UsHist, 0.99), maxNs);
    }
    w.log2UsHist = std::move(log2UsHist);
    return w;
}

WakeLatency wakeLatencyOfSorted(const std::vector<double>& waitsNs)
{
    WakeLatency w;
    w.count = waitsNs.size();
    if (waitsNs.empty())
        return w;
    // The bins up to the largest wait's (the last), made at once rather than grown bin by bin,
    // an allocation each, for each of 1,000 threads every interval.
    w.log2Hist.assign(static_cast<std::size_t>(log2Bin(waitsNs.back())) + 1, 0);
    double sum = 0;
    for (double v : waitsNs) {
        sum += v;
        ++w.log2Hist[static_cast<std::size_t>(log2Bin(v))];
    }
    w.meanNs = sum / static_cast<double>(w.count);
    w.p50Ns = percentileOfSorted(waitsNs, 0.5);
    w.p99Ns = percentileOfSorted(waitsNs, 0.99);
    w.maxNs = waitsNs.back();
    return w;
}

std::vector<SchedMigration> ordered(std::vector<SchedMigration> moves)
{
    byCount(moves);
    return moves;
}

} // namespace ctxscope::trace
