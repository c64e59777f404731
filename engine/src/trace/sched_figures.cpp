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

namespace {

// 2^i, exactly (the bins' edges): a shift rather than a call of std::ldexp, which the two
// quantiles of each of a thread's two histograms made up to twice each an interval.
double twoTo(std::size_t i)
{
    constexpr std::size_t kShiftable = 64;
    return i < kShiftable ? static_cast<double>(std::uint64_t { 1 } << i) : std::ldexp(1.0, static_cast<int>(i));
}

} // namespace

std::pair<double, double> log2Quantiles(const std::vector<std::uint64_t>& bins, double qa, double qb)
{
    std::uint64_t total = 0;
    for (const auto n : bins)
        total += n;
    if (total == 0)
        return { 0.0, 0.0 };
    const double ranks[2] = { qa * static_cast<double>(total), qb * static_cast<double>(total) };
    double found[2] = { twoTo(bins.size()), twoTo(bins.size()) };
    bool placed[2] = { false, false };
    double below = 0;
    for (std::size_t i = 0; i < bins.size() && !(placed[0] && placed[1]); ++i) {
        const auto n = static_cast<double>(bins[i]);
        for (int k = 0; k < 2; ++k)
            if (!placed[k] && n > 0 && below + n >= ranks[k]) {
                const double low = i == 0 ? 0.0 : twoTo(i);
                const double high = twoTo(i + 1);
                found[k] = low + (high - low) * std::clamp((ranks[k] - below) / n, 0.0, 1.0);
                placed[k] = true;
            }
        below += n;
    }
    return { found[0], found[1] };
}

double log2Quantile(const std::vector<std::uint64_t>& bins, double q) { return log2Quantiles(bins, q, q).first; }

EnqueueWait enqueueWaitOf(std::vector<std::uint64_t> log2UsHist, std::uint64_t count, double sumNs, double maxNs)
{
    EnqueueWait w;
    w.known = true;
    w.count = count;
    if (count > 0) {
        w.meanNs = sumNs / static_cast<double>(count);
        const auto [p50, p99] = log2Quantiles(log2UsHist, 0.5, 0.99);
        w.p50Ns = std::min(1000 * p50, maxNs);
        w.p99Ns = std::min(1000 * p99, maxNs);
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
