// SPDX-License-Identifier: MIT
// The BPF trace backend's step bins (bpf/handover_bins.h, the layout handover.bpf.c fills): every
// duration in the bin whose range holds it, quantiles read back within a bin of the exact ones,
// and the trace block naming its backend through JSON and back; which runs have traced CPUs, and
// what a traced run's input is refused for before any privilege is asked.
#include "bpf/handover_bins.h"
#include "ctxscope/stats.h"
#include "ctxscope/traced_run.h"
#include "report/trace_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ctxscope {
namespace {

using bpf::stepBin;
using bpf::stepBinLow;
using bpf::stepBinsQuantile;
using bpf::stepBinWidth;

TEST(StepBins, EachDurationFallsInTheBinWhoseRangeHoldsIt)
{
    std::vector<std::uint64_t> durations;
    for (std::uint64_t ns = 0; ns < 5000; ++ns)
        durations.push_back(ns);
    for (int p = 12; p < 41; ++p)
        for (std::uint64_t k : { 0UL, 1UL, 12345UL, 777777UL })
            durations.push_back((1ULL << p) + k % (1ULL << p));
    std::uint32_t last = 0;
    for (std::size_t i = 0; i < durations.size(); ++i) {
        const std::uint64_t ns = durations[i];
        const std::uint32_t b = stepBin(ns);
        ASSERT_LT(b, static_cast<std::uint32_t>(CTXSCOPE_STEP_BINS)) << ns;
        const double low = stepBinLow(b);
        EXPECT_LE(low, static_cast<double>(ns)) << ns << " in bin " << b;
        EXPECT_LT(static_cast<double>(ns), low + std::max(stepBinWidth(b), 1.0)) << ns << " in bin " << b;
        if (i < 5000) { // 0 to 4999 ns in order: a longer duration never falls in an earlier bin
            EXPECT_GE(b, last) << ns;
            last = b;
        }
    }
    // Below 16 ns a bin is a nanosecond; each power of two above is cut in 16.
    EXPECT_EQ(stepBin(15), 15U);
    EXPECT_EQ(stepBin(16), 16U);
    EXPECT_EQ(stepBin(31), 31U);
    EXPECT_EQ(stepBin(32), 32U);
    EXPECT_EQ(stepBin(33), 32U);
    EXPECT_EQ(stepBinWidth(stepBin(1000)), 32.0);
    // 2^41 ns and longer share the last bin.
    EXPECT_EQ(stepBin(1ULL << 41), static_cast<std::uint32_t>(CTXSCOPE_STEP_BINS - 1));
    EXPECT_EQ(stepBin(~0ULL), static_cast<std::uint32_t>(CTXSCOPE_STEP_BINS - 1));
}

TEST(StepBins, QuantilesAreWithinABinOfTheExactOnes)
{
    // A hand-over step's durations: mostly about 1.3 µs, a tail to 40 µs (a fixed sequence).
    std::vector<double> exact;
    std::vector<std::uint64_t> bins(CTXSCOPE_STEP_BINS);
    std::uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const double u = static_cast<double>(x % 1000000) / 1e6;
        const auto ns = static_cast<std::uint64_t>(i % 10 == 0 ? 2000 + 38000 * u : 1200 + 200 * u);
        exact.push_back(static_cast<double>(ns));
        ++bins[stepBin(ns)];
    }
    std::sort(exact.begin(), exact.end());
    for (double q : { 0.1, 0.5, 0.9, 0.99 }) {
        const double want = percentileOfSorted(exact, q);
        const double got = stepBinsQuantile(bins, q);
        EXPECT_NEAR(got, want, stepBinWidth(stepBin(static_cast<std::uint64_t>(want)))) << "q " << q;
    }
    // Durations under 16 ns are exact.
    std::vector<std::uint64_t> small(CTXSCOPE_STEP_BINS);
    small[3] = 2;
    small[5] = 1;
    EXPECT_EQ(stepBinsQuantile(small, 0.5), 3.0);
    EXPECT_EQ(stepBinsQuantile(small, 0.75), 4.0);
    EXPECT_EQ(stepBinsQuantile(std::vector<std::uint64_t>(CTXSCOPE_STEP_BINS), 0.5), 0.0);
}

TEST(StepBins, TheTraceBlockNamesItsBackend)
{
    TraceSummary s;
    s.backend = "bpf";
    s.ops = 10;
    s.nsPerOp = 5000;
    const nlohmann::json written = traceSummaryToJson(s); // the reader keeps a reference
    report::FieldReader in(written, "trace");
    EXPECT_EQ(report::traceSummaryFromJson(in).backend, "bpf");
    EXPECT_TRUE(in.ok()) << in.error();

    // A block written before there was a choice is ftrace's; an unknown backend is an error.
    nlohmann::json old = traceSummaryToJson(s);
    old.erase("backend");
    report::FieldReader before(old, "trace");
    EXPECT_EQ(report::traceSummaryFromJson(before).backend, "ftrace");
    nlohmann::json bad = traceSummaryToJson(s);
    bad["backend"] = "dtrace";
    report::FieldReader wrong(bad, "trace");
    report::traceSummaryFromJson(wrong);
    EXPECT_FALSE(wrong.ok());
    EXPECT_NE(wrong.error().find("dtrace"), std::string::npos) << wrong.error();
}

TEST(StepBins, OnlyARunOfPinnedTasksHasTracedCpus)
{
    EXPECT_EQ(pinnedTracedCpus({ 1, 1 }), std::vector<int>({ 1 }));
    EXPECT_EQ(pinnedTracedCpus({ 0, 0, 0 }), std::vector<int>({ 0 }));
    EXPECT_EQ(pinnedTracedCpus({ 3, 1, 3 }), std::vector<int>({ 1, 3 }));
    EXPECT_EQ(pinnedTracedCpus({}), std::vector<int>());
    EXPECT_EQ(pinnedTracedCpus({ -1, -1 }), std::vector<int>());
    EXPECT_EQ(pinnedTracedCpus({ 0, -1 }), std::vector<int>());
    EXPECT_EQ(traceBackendFrom("bpf"), TraceBackend::Bpf);
    EXPECT_EQ(traceBackendFrom("auto"), TraceBackend::Auto);
    EXPECT_EQ(traceBackendFrom("ebpf"), std::nullopt);
}

// The refusals the CLI's --trace and the worker's traced runs share, before any privilege: the
// benchmark and the options first, then the trace file's name.
TEST(TracedRunInput, IsRefusedForTheBenchmarkThenTheOptionsThenTheFile)
{
    BenchSpec spin;
    spin.bench = "spin";
    spin.cpus = { 0, 1 };
    BenchSpec futex;
    futex.bench = "futex";
    futex.cpus = { 0, 0 };
    const TracedRunOptions ftrace;
    TracedRunOptions bpfWithEvents;
    bpfWithEvents.backend = TraceBackend::Bpf;
    bpfWithEvents.eventsWanted = true;

    const Status nothing = traceInputCheck(spin, ftrace, "t.png");
    ASSERT_FALSE(nothing.ok());
    EXPECT_NE(nothing.error().message.find("spin has nothing to trace"), std::string::npos) << nothing.error().message;
    const Status noEvents = traceInputCheck(futex, bpfWithEvents, "t.png");
    ASSERT_FALSE(noEvents.ok());
    EXPECT_NE(noEvents.error().message.find("--trace-out needs the events"), std::string::npos)
        << noEvents.error().message;
    const Status badName = traceInputCheck(futex, ftrace, "t.png");
    ASSERT_FALSE(badName.ok());
    EXPECT_NE(badName.error().message.find("--trace-out t.png: the name must end in .dat"), std::string::npos)
        << badName.error().message;
    EXPECT_TRUE(traceInputCheck(futex, ftrace, "t.dat").ok());
    EXPECT_TRUE(traceInputCheck(futex, ftrace, "").ok());
    TracedRunOptions bpf;
    bpf.backend = TraceBackend::Bpf;
    EXPECT_TRUE(traceInputCheck(futex, bpf, "").ok());
}

} // namespace
} // namespace ctxscope
