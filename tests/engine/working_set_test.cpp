// SPDX-License-Identifier: MIT
// The working sets the cache-pollution benchmarks touch: each task writes every line of its
// own buffer once per touch, in a page order that is not the address order; and the
// switch cost derived from the round trip and the touch never comes out negative.
#include "bench/working_set.h"
#include "ctxscope/runner.h"
#include "ctxscope/working_set.h"
#include "live_topology_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

using namespace ctxscope;

TEST(WorkingSet, TouchWritesEveryLineOfItsOwnBufferOnce)
{
    // 5 whole pages and 7 lines and a bit of a sixth: the partial page must be handled.
    const std::uint64_t bytes = 5 * 4096 + 7 * 64 + 10;
    auto ws = bench::WorkingSet::create(2, bytes);
    ASSERT_TRUE(ws.ok()) << ws.error().message;
    constexpr char kUntouched = 0x7f;
    for (int task : { 0, 1 })
        std::memset(ws->buffer(task), kUntouched, ws->sliceBytes());
    ws->touch(0);

    const std::size_t lines = (bytes + 63) / 64;
    const char* buf = ws->buffer(0);
    std::set<int> pageSteps; // a page's bytes hold the step at which it was touched
    for (std::size_t off = 0; off < ws->sliceBytes(); ++off) {
        const bool lineStart = off % 64 == 0 && off / 64 < lines;
        if (lineStart) {
            EXPECT_NE(buf[off], kUntouched) << "line " << off / 64 << " was not written";
            pageSteps.insert(buf[off]);
        } else {
            EXPECT_EQ(buf[off], kUntouched) << "byte " << off << " is not the first of a used line";
        }
    }
    EXPECT_EQ(pageSteps, (std::set<int> { 0, 1, 2, 3, 4, 5 })); // every page once
    const char* other = ws->buffer(1);
    EXPECT_TRUE(std::all_of(other, other + ws->sliceBytes(), [](char c) { return c == kUntouched; }))
        << "touching task 0 wrote into task 1's buffer";
}

TEST(WorkingSet, PagesAreTouchedInAShuffledOrder)
{
    auto ws = bench::WorkingSet::create(1, 64 * 4096);
    ASSERT_TRUE(ws.ok()) << ws.error().message;
    ws->touch(0);
    int inOrder = 0;
    for (int page = 0; page < 64; ++page)
        inOrder += ws->buffer(0)[page * 4096] == static_cast<char>(page) ? 1 : 0;
    EXPECT_LT(inOrder, 8) << "the touch walks the pages nearly in address order";
}

TEST(WorkingSet, AnEmptySetTouchesNothing)
{
    auto ws = bench::WorkingSet::create(2, 0);
    ASSERT_TRUE(ws.ok());
    EXPECT_TRUE(ws->empty());
    ws->touch(1); // must not crash
}

TEST(WorkingSet, SwitchCostIsDerivedOrFlaggedNeverNegative)
{
    WorkingSetPoint p;
    p.wsBytes = 64 * 1024;
    p.tasks = 2;
    p.switchesPerOp = 2;
    p.roundTrip = Quartiles { 90, 100, 120 };
    p.touch = Quartiles { 9, 10, 11 };
    deriveSwitchCost(p);
    ASSERT_TRUE(p.switchCostNs.has_value());
    EXPECT_DOUBLE_EQ(*p.switchCostNs, 40); // (100 - 2 * 10) / 2
    EXPECT_DOUBLE_EQ(*p.switchCostLowNs, 34); // (90 - 2 * 11) / 2
    EXPECT_DOUBLE_EQ(*p.switchCostHighNs, 51); // (120 - 2 * 9) / 2
    EXPECT_FALSE(p.costNotPositive);
    EXPECT_TRUE(p.warnings.empty());

    WorkingSetPoint q = p;
    q.roundTrip = Quartiles { 18, 20, 25 };
    deriveSwitchCost(q);
    EXPECT_TRUE(q.costNotPositive);
    EXPECT_FALSE(q.switchCostNs.has_value());
    EXPECT_FALSE(q.switchCostLowNs.has_value());
    ASSERT_TRUE(q.switchCostHighNs.has_value()); // (25 - 18) / 2: the spread still reaches above 0
    EXPECT_DOUBLE_EQ(*q.switchCostHighNs, 3.5);
    ASSERT_EQ(q.warnings.size(), 1U);
    EXPECT_NE(q.warnings.front().find("flagged"), std::string::npos);
    EXPECT_EQ(q.warnings.front().find('-'), std::string::npos) << "a negative number leaked: " << q.warnings.front();
}

namespace {

class WorkingSetRun : public test::LiveTopologyTest {
protected:
    static BenchSpec spec(const std::string& bench, std::uint64_t ws, int tasks = 2)
    {
        BenchSpec s;
        s.bench = bench;
        s.cpus = std::vector<int>(static_cast<std::size_t>(tasks), s_topology->allowedPus().front());
        s.iterations = 300;
        s.minTimeSeconds = 0.02; // the touch baseline is calibrated
        s.repetitions = 2;
        s.wsBytes = ws;
        return s;
    }
    static std::string errorOf(const BenchSpec& s)
    {
        auto r = checkSpec(s, *s_topology);
        EXPECT_FALSE(r.ok());
        return r.ok() ? std::string() : r.error().message;
    }
};

} // namespace

TEST_F(WorkingSetRun, RoundTripsCarryTheThreeSeries)
{
    for (const char* bench : { "futex", "pipe" })
        for (BenchMode mode : { BenchMode::Thread, BenchMode::Process }) {
            SCOPED_TRACE(std::string(bench) + " " + std::string(toString(mode)));
            BenchSpec s = spec(bench, 16 * 1024);
            s.mode = mode;
            auto p = runWorkingSet(s, *s_topology);
            ASSERT_TRUE(p.ok()) << p.error().message;
            EXPECT_EQ(p->wsBytes, 16U * 1024);
            EXPECT_EQ(p->tasks, 2);
            EXPECT_GT(p->roundTrip.p50, 0);
            EXPECT_GT(p->touch.p50, 0);
            ASSERT_TRUE(p->touchRun.has_value());
            EXPECT_EQ(p->touchRun->bench, "touch");
            EXPECT_EQ(p->touchRun->placement.cpus, std::vector<int> { s.cpus.front() });
            EXPECT_EQ(p->roundTripRun.spec.wsBytes, 16U * 1024);
            EXPECT_NE(p->switchCostNs.has_value(), p->costNotPositive);
            if (p->switchCostNs) {
                EXPECT_GT(*p->switchCostNs, 0);
            }
        }
}

TEST_F(WorkingSetRun, ARingTouchesOnceForEachTask)
{
    auto p = runWorkingSet(spec("ring", 8 * 1024, 3), *s_topology);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->tasks, 3);
    EXPECT_EQ(p->switchesPerOp, 3);
}

TEST_F(WorkingSetRun, ZeroBytesHasNoTouchBaseline)
{
    auto p = runWorkingSet(spec("futex", 0), *s_topology);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_FALSE(p->touchRun.has_value());
    EXPECT_EQ(p->touch.p50, 0);
    ASSERT_TRUE(p->switchCostNs.has_value());
    EXPECT_DOUBLE_EQ(*p->switchCostNs, p->roundTrip.p50 / 2);
}

TEST_F(WorkingSetRun, BadWorkingSetsAreRefusedWithAReason)
{
    EXPECT_EQ(errorOf(spec("syscall", 4096, 1)), "a working set applies to futex, pipe, ring, touch, not syscall");
    EXPECT_EQ(errorOf(spec("touch", 0, 1)), "touch needs a working set: give its size (--ws 64K, say)");
    EXPECT_EQ(
        errorOf(spec("futex", kMaxWsBytes + 1)), "a working set of 1099511627777 bytes is more than the 1 TiB allowed");
    // A working set no machine here can hold: refused before anything is mapped.
    const std::string huge = errorOf(spec("futex", kMaxWsBytes));
    EXPECT_NE(huge.find("more than a quarter of the"), std::string::npos) << huge;
    auto notRoundTrip = runWorkingSet(spec("touch", 4096, 1), *s_topology);
    ASSERT_FALSE(notRoundTrip.ok());
    EXPECT_NE(notRoundTrip.error().message.find("no round trip"), std::string::npos);
}
