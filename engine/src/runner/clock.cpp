// SPDX-License-Identifier: MIT
#include "ctxscope/clock.h"

#include "os/clock_read.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace ctxscope {

namespace {

std::uint64_t (*readerOf(ClockSource source))() { return source == ClockSource::Tsc ? &clk::tsc : &clk::monotonicNs; }

// One (monotonic ns, tsc) pair, taken where the two monotonic reads around the TSC read
// were closest together, so the pair is tight to a few ns.
std::pair<double, double> tightPair()
{
    double bestWidth = std::numeric_limits<double>::max();
    std::pair<double, double> best { 0, 0 };
    for (int i = 0; i < 16; ++i) {
        const std::uint64_t a = clk::monotonicNs();
        const std::uint64_t t = clk::tsc();
        const std::uint64_t b = clk::monotonicNs();
        const auto width = static_cast<double>(b - a);
        if (width < bestWidth) {
            bestWidth = width;
            best = { static_cast<double>(a) + width / 2, static_cast<double>(t) };
        }
    }
    return best;
}

double calibrateTscTicksPerNs()
{
    constexpr std::uint64_t kSpanNs = 40'000'000;
    const auto [ns0, t0] = tightPair();
    const std::uint64_t until = clk::monotonicNs() + kSpanNs;
    while (clk::monotonicNs() < until) { }
    const auto [ns1, t1] = tightPair();
    return (t1 - t0) / (ns1 - ns0);
}

double readCostNs(std::uint64_t (*read)())
{
    // The fastest of 20 batches: a batch that was preempted or interrupted says nothing
    // about the clock.
    constexpr int kBatches = 20;
    constexpr int kReads = 10'000;
    double best = std::numeric_limits<double>::max();
    for (int b = 0; b < kBatches; ++b) {
        volatile std::uint64_t sink = 0;
        const std::uint64_t begin = clk::monotonicNs();
        for (int i = 0; i < kReads; ++i)
            sink = read();
        const std::uint64_t end = clk::monotonicNs();
        (void)sink;
        best = std::min(best, static_cast<double>(end - begin) / kReads);
    }
    return best;
}

std::uint64_t smallestStep(std::uint64_t (*read)())
{
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t last = read();
    for (int i = 0; i < 20'000; ++i) {
        const std::uint64_t now = read();
        if (now > last)
            best = std::min(best, now - last);
        last = now;
    }
    return best == std::numeric_limits<std::uint64_t>::max() ? 0 : best;
}

} // namespace

std::string_view toString(ClockSource source) { return source == ClockSource::Tsc ? "tsc" : "clock_monotonic"; }

bool tscInvariant()
{
#if CTXSCOPE_HAVE_TSC
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("flags", 0) != 0)
            continue;
        std::istringstream words(line.substr(line.find(':') + 1));
        bool constant = false;
        bool nonstop = false;
        for (std::string w; words >> w;) {
            constant = constant || w == "constant_tsc";
            nonstop = nonstop || w == "nonstop_tsc";
        }
        return constant && nonstop;
    }
#endif
    return false;
}

std::uint64_t readClock(ClockSource source) { return readerOf(source)(); }

ClockInfo measureClock(ClockSource source)
{
    ClockInfo info;
    info.source = source;
    if (source == ClockSource::Tsc) {
        const double ticksPerNs = calibrateTscTicksPerNs();
        info.tscGhz = ticksPerNs;
        info.nsPerTick = ticksPerNs > 0 ? 1.0 / ticksPerNs : 1.0;
        info.why = "The TSC is invariant (constant_tsc and nonstop_tsc) and was calibrated against CLOCK_MONOTONIC.";
    } else {
        info.why = tscInvariant() ? "CLOCK_MONOTONIC through the vDSO, as asked."
                                  : "CLOCK_MONOTONIC through the vDSO: this CPU has no invariant TSC.";
    }
    auto* read = readerOf(source);
    info.readCostNs = readCostNs(read);
    info.resolutionNs = static_cast<double>(smallestStep(read)) * info.nsPerTick;
    return info;
}

const ClockInfo& measurementClock()
{
    static const ClockInfo info = measureClock(tscInvariant() ? ClockSource::Tsc : ClockSource::Monotonic);
    return info;
}

} // namespace ctxscope
