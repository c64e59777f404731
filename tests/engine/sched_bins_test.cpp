// SPDX-License-Identifier: MIT
// The BPF backend's waits come as log2 bins with an exact count and sum: the quantiles placed
// within their bin, a watch's total over intervals of bins (and of bins mixed with waits),
// the "backend" each watch line names, through its JSON and back, and the sizes of its maps.
#include "bpf/map_sizes.h"
#include "ctxscope/events.h"
#include "ctxscope/protocol.h"
#include "ctxscope/sched_total.h"
#include "ctxscope/watch.h"
#include "report/json_fields.h"
#include "report/sched_json.h"
#include "trace/sched_figures.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

using namespace ctxscope;

TEST(SchedBins, QuantileFallsInsideItsBin)
{
    // 10 waits in [1024, 2048) ns and 10 in [8192, 16384): the median is the top of the first
    // group's bin, p99 near the top of the second's.
    std::vector<std::uint64_t> bins(14, 0);
    bins[10] = 10;
    bins[13] = 10;
    EXPECT_DOUBLE_EQ(trace::log2Quantile(bins, 0.5), 2048.0);
    const double p99 = trace::log2Quantile(bins, 0.99);
    EXPECT_GE(p99, 8192.0);
    EXPECT_LE(p99, 16384.0);
    EXPECT_GT(p99, 16000.0);
    EXPECT_EQ(trace::log2Quantile({}, 0.5), 0.0);
}

// Two quantiles read in one pass are each the one read alone, and both the quantile as its
// definition places it (here with std::ldexp for the bins' edges), to the bit.
TEST(SchedBins, TwoQuantilesInOnePassAreEachReadAlone)
{
    const auto placed = [](const std::vector<std::uint64_t>& bins, double q) {
        double total = 0;
        for (auto n : bins)
            total += static_cast<double>(n);
        double below = 0;
        for (std::size_t i = 0; i < bins.size(); ++i) {
            const auto n = static_cast<double>(bins[i]);
            if (n > 0 && below + n >= q * total) {
                const double low = i == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(i));
                const double high = std::ldexp(1.0, static_cast<int>(i) + 1);
                return low + (high - low) * std::clamp((q * total - below) / n, 0.0, 1.0);
            }
            below += n;
        }
        return total == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(bins.size()));
    };
    std::vector<std::uint64_t> far(36, 0); // a few short waits and many in the last bin
    far[0] = 5;
    far[35] = 1000;
    const std::vector<std::vector<std::uint64_t>> cases { {}, { 0, 0 }, { 3 }, { 1, 0, 0, 7 },
        { 0, 0, 0, 0, 2, 2, 0, 0, 2 }, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2 },
        std::vector<std::uint64_t>(36, 1), far };
    for (const auto& bins : cases)
        for (const auto& [qa, qb] : { std::pair { 0.5, 0.99 }, std::pair { 0.0, 1.0 }, std::pair { 0.99, 0.5 } }) {
            const auto [a, b] = trace::log2Quantiles(bins, qa, qb);
            EXPECT_EQ(a, trace::log2Quantile(bins, qa)) << bins.size() << " bins, q " << qa;
            EXPECT_EQ(b, trace::log2Quantile(bins, qb)) << bins.size() << " bins, q " << qb;
            EXPECT_EQ(a, placed(bins, qa)) << bins.size() << " bins, q " << qa;
            EXPECT_EQ(b, placed(bins, qb)) << bins.size() << " bins, q " << qb;
        }
}

TEST(SchedBins, TotalOfBinnedIntervalsKeepsTheExactMean)
{
    ThreadSched a;
    a.switchIns = 4;
    a.wake.fromBins = true;
    a.wake.count = 4;
    a.wake.meanNs = 1500;
    a.wake.maxNs = 1900;
    a.wake.log2Hist = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 };
    ThreadSched b = a;
    b.wake.count = 2;
    b.wake.meanNs = 3000;
    b.wake.maxNs = 3100;
    b.wake.log2Hist = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
    SchedTotal total;
    total.add(a);
    total.add(b);
    const ThreadSched s = total.figures();
    EXPECT_EQ(s.wake.count, 6U);
    EXPECT_DOUBLE_EQ(s.wake.meanNs, (4 * 1500.0 + 2 * 3000.0) / 6);
    EXPECT_DOUBLE_EQ(s.wake.maxNs, 3100);
    EXPECT_TRUE(s.wake.fromBins);
    ASSERT_EQ(s.wake.log2Hist.size(), 12U);
    EXPECT_EQ(s.wake.log2Hist[10], 4U);
    EXPECT_EQ(s.wake.log2Hist[11], 2U);
    EXPECT_GE(s.wake.p50Ns, 1024);
    EXPECT_LE(s.wake.p50Ns, 2048);
    EXPECT_EQ(s.switchIns, 8U);
}

TEST(SchedBins, TheWaitsFromTheEnqueueAddUpAndTravelOnlyWhereKnown)
{
    ThreadSched a;
    a.wake.fromBins = true;
    a.wake.count = 3;
    a.wake.meanNs = 20000;
    a.wake.maxNs = 30000;
    a.wake.log2Hist = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };
    // runqlat's bins, whole µs: three waits of 8-15 µs, then one of 4-7 µs.
    a.fromEnqueue = trace::enqueueWaitOf({ 0, 0, 0, 3 }, 3, 3 * 9000.0, a.wake.maxNs);
    ThreadSched b = a;
    b.fromEnqueue = trace::enqueueWaitOf({ 0, 0, 1 }, 1, 5000.0, a.wake.maxNs);
    EXPECT_GE(a.fromEnqueue.p50Ns, 8000);
    EXPECT_LE(a.fromEnqueue.p50Ns, 16000);
    SchedTotal total;
    total.add(a);
    total.add(b);
    const ThreadSched s = total.figures();
    EXPECT_TRUE(s.fromEnqueue.known);
    EXPECT_EQ(s.fromEnqueue.count, 4U);
    EXPECT_DOUBLE_EQ(s.fromEnqueue.meanNs, (3 * 9000.0 + 5000.0) / 4);
    EXPECT_EQ(s.fromEnqueue.log2UsHist, (std::vector<std::uint64_t> { 0, 0, 1, 3 }));
    EXPECT_GE(s.fromEnqueue.p50Ns, 8000);
    EXPECT_LE(s.fromEnqueue.p50Ns, 16000);

    // Through the watch's JSON and back; absent, not zero, where the backend does not know it.
    nlohmann::json line = threadSchedToJson(s);
    ASSERT_TRUE(line.contains("wait_from_enqueue"));
    report::FieldReader reader(line, "sched");
    const ThreadSched back = report::threadSchedFromJson(reader);
    ASSERT_TRUE(reader.ok()) << reader.error();
    EXPECT_TRUE(back.fromEnqueue.known);
    EXPECT_EQ(back.fromEnqueue.count, 4U);
    EXPECT_DOUBLE_EQ(back.fromEnqueue.meanNs, s.fromEnqueue.meanNs);
    EXPECT_EQ(back.fromEnqueue.log2UsHist, s.fromEnqueue.log2UsHist);

    ThreadSched traced;
    traced.wake = wakeLatencyOf({ 1000, 2000 });
    SchedTotal ftrace;
    ftrace.add(traced);
    EXPECT_FALSE(threadSchedToJson(ftrace.figures()).contains("wait_from_enqueue"));
    nlohmann::json bad = line;
    bad["wait_from_enqueue"]["log2_us_hist"] = { 1, -2 };
    report::FieldReader badReader(bad, "sched");
    report::threadSchedFromJson(badReader);
    EXPECT_FALSE(badReader.ok());
}

TEST(SchedBins, MapsAreSizedForEightTimesTheThreadsWithinTheirBounds)
{
    // A small program gets the least of each; 1,000 threads room for 8,000 and their peers.
    EXPECT_EQ(bpfMapSizes(0), (BpfMapSizes { .threads = 4096, .peers = 8192, .moves = 4096 }));
    EXPECT_EQ(bpfMapSizes(12), bpfMapSizes(0));
    EXPECT_EQ(bpfMapSizes(1000), (BpfMapSizes { .threads = 8192, .peers = 16384, .moves = 8192 }));
    EXPECT_EQ(bpfMapSizes(1025), (BpfMapSizes { .threads = 16384, .peers = 32768, .moves = 16384 }));
    // 10,000 threads or more: the largest the programs declare.
    const BpfMapSizes largest {
        .threads = CTXSCOPE_MAX_THREADS, .peers = CTXSCOPE_MAX_PEERS, .moves = CTXSCOPE_MAX_MOVES
    };
    EXPECT_EQ(bpfMapSizes(10000), largest);
    EXPECT_EQ(bpfMapSizes(1000000), largest);
    for (std::size_t threads : { 1UL, 100UL, 3000UL, 5000UL, 20000UL }) {
        const BpfMapSizes s = bpfMapSizes(threads);
        for (std::uint32_t size : { s.threads, s.peers, s.moves }) // a hash map's buckets: a power of two
            EXPECT_EQ(size & (size - 1), 0U) << threads;
        EXPECT_GE(s.threads, std::min<std::size_t>(threads, CTXSCOPE_MAX_THREADS)) << threads;
    }
}

TEST(SchedBins, WatchLinesNameTheirBackendBothWays)
{
    EXPECT_EQ(toString(SchedBackend::Bpf), "bpf");
    EXPECT_TRUE(schedBackendFrom("ftrace") == SchedBackend::Ftrace);
    EXPECT_FALSE(schedBackendFrom("ebpf").has_value());
    WatchSample sample;
    sample.pid = 7;
    sample.name = "x";
    sample.backend = SchedBackend::Bpf;
    std::string text;
    appendWatchSampleLine(text, sample);
    nlohmann::json line = nlohmann::json::parse(text);
    EXPECT_EQ(line["backend"], "bpf");
    line["id"] = 1;
    auto parsed = protocol::parseEvent(line.dump());
    const auto* event = std::get_if<protocol::Event>(&parsed);
    ASSERT_NE(event, nullptr) << std::get<protocol::EventError>(parsed).message;
    const auto* read = std::get_if<protocol::WatchSampleEvent>(event);
    ASSERT_NE(read, nullptr);
    EXPECT_EQ(read->sample.backend, SchedBackend::Bpf);
    line["backend"] = "dtrace";
    const auto refused = protocol::parseEvent(line.dump());
    ASSERT_TRUE(std::holds_alternative<protocol::EventError>(refused));
    EXPECT_NE(std::get<protocol::EventError>(refused).message.find("backend"), std::string::npos);
}

TEST(SchedBins, WorkerWatchTakesABackend)
{
    auto watch = protocol::parseCommand(R"({"type":"watch","id":1,"pid":5,"trace":true,"backend":"bpf"})");
    ASSERT_TRUE(watch) << watch.error().message;
    const auto& c = std::get<protocol::WatchCommand>(*watch);
    EXPECT_EQ(c.backend, SchedBackend::Bpf);
    EXPECT_NE(protocol::commandLine(c).find(R"("backend":"bpf")"), std::string::npos);
    auto ftrace = protocol::parseCommand(R"({"type":"watch","id":1,"pid":5,"trace":true,"backend":"ftrace"})");
    ASSERT_TRUE(ftrace) << ftrace.error().message;
    EXPECT_EQ(std::get<protocol::WatchCommand>(*ftrace).backend, SchedBackend::Ftrace);
    EXPECT_NE(protocol::commandLine(std::get<protocol::WatchCommand>(*ftrace)).find(R"("backend":"ftrace")"),
        std::string::npos);
    // None named: the worker takes the cheapest it may use (chooseWatchBackend), and the line
    // names none either.
    const auto unnamed = protocol::parseCommand(R"({"type":"watch","id":1,"pid":5,"trace":true})");
    ASSERT_TRUE(unnamed) << unnamed.error().message;
    EXPECT_FALSE(std::get<protocol::WatchCommand>(*unnamed).backend.has_value());
    EXPECT_EQ(protocol::commandLine(std::get<protocol::WatchCommand>(*unnamed)).find("backend"), std::string::npos);
    for (const char* refused : { R"({"type":"watch","id":1,"pid":5,"backend":"bpf"})",
             R"({"type":"watch","id":1,"pid":5,"trace":true,"backend":"bpf","events":10})",
             R"({"type":"watch","id":1,"pid":5,"trace":true,"backend":"dtrace"})" }) {
        const auto bad = protocol::parseCommand(refused);
        ASSERT_FALSE(bad) << refused;
        EXPECT_NE(bad.error().message.find("backend"), std::string::npos) << bad.error().message;
    }
}
