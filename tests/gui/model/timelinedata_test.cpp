// SPDX-License-Identifier: MIT
// The scheduler timeline's model: slices from the switches, wake-up arrows from sched_waking to
// the switch-in, migrations, interrupts and idle states; clicks find the slice under them; the
// level of detail keeps a frame to one piece per pixel however many events a span holds.
#include "timelinedata.h"

#include <gtest/gtest.h>

#include <random>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr std::int64_t kSleeping = 1;
constexpr std::int64_t kPreempted = 0x100;

TraceEvent at(std::uint64_t ns, int cpu, TraceEventKind kind, std::int32_t pid, std::int32_t other = -1,
    std::int32_t aux = -1, std::int64_t value = 0)
{
    return { ns, cpu, pid, other, aux, value, kind };
}

TraceEvent switching(std::uint64_t ns, int cpu, std::int32_t prev, std::int64_t state, std::int32_t next)
{
    return at(ns, cpu, TraceEventKind::Switch, prev, next, -1, state);
}

// A futex hand-over across two PUs: 10 on PU 0 wakes 20, which idles on PU 1.
std::vector<TraceEvent> handover()
{
    return {
        switching(1000, 0, 0, 0, 10), // 10 runs on PU 0
        switching(1100, 1, 20, kSleeping, 0), // 20 sleeps on PU 1: idle
        at(1200, 1, TraceEventKind::IdleEnter, 0, -1, -1, 2),
        at(3000, 0, TraceEventKind::Waking, 10, 20, 1), // 10 wakes 20
        at(3100, 1, TraceEventKind::IrqEntry, 0, -1, -1, 7), at(3400, 1, TraceEventKind::IdleExit, 0, -1, -1, -1),
        at(3500, 1, TraceEventKind::IrqExit, 0, -1, -1, 7),
        switching(4000, 1, 0, 0, 20), // 20 runs 1000 ns after its wake-up
        switching(5000, 0, 10, kSleeping, 0), switching(6000, 1, 20, kPreempted, 30),
        switching(7000, 0, 0, 0, 20), // 20 moves to PU 0
    };
}

} // namespace

TEST(TimelineData, SwitchesBecomeSlicesEndToEndOnEachPu)
{
    const TimelineData d = TimelineData::build(handover(), { { 10, "waker" }, { 20, "wakee" }, { 30, "busy" } });
    EXPECT_EQ(d.pus(), (std::vector<int> { 0, 1 }));
    EXPECT_EQ(d.beginNs(), 1000U);
    EXPECT_EQ(d.endNs(), 7000U);
    const auto pu1 = d.visible(1, 0, 10'000, 0);
    ASSERT_EQ(pu1.size(), 4U);
    EXPECT_EQ(pu1[0], (TimelineSlice { 1000, 1100, 20, false })); // ran from the start
    EXPECT_EQ(pu1[1], (TimelineSlice { 1100, 4000, 0, false })); // idle
    EXPECT_EQ(pu1[2], (TimelineSlice { 4000, 6000, 20, false }));
    EXPECT_EQ(pu1[3], (TimelineSlice { 6000, 7000, 30, false })); // runs to the recording's end
    EXPECT_EQ(d.name(0), "swapper");
    EXPECT_EQ(d.name(20), "wakee");
}

// On a vCPU whose kernel records no switch out of its idle task, a task is seen leaving a PU it
// was never switched onto: it ran from its wake-up at the latest, not since the PU went idle.
TEST(TimelineData, ATaskWhoseSwitchInWasNotRecordedRunsFromItsWakeUpNotFromTheIdleBefore)
{
    const std::vector<TraceEvent> events {
        switching(1000, 1, 20, kSleeping, 0), // 20 sleeps: PU 1 idles
        at(5000, 1, TraceEventKind::Waking, 0, 20, 1, kTraceFlagHardirq), // a timer wakes it
        switching(5600, 1, 20, kSleeping, 0), // it leaves again; its switch-in is missing
        switching(9000, 1, 0, 0, 20), // this one was recorded
        switching(9500, 1, 20, kSleeping, 0),
    };
    const TimelineData d = TimelineData::build(events, { { 20, "sleeper" } });
    const auto pu1 = d.visible(1, 0, 10'000, 0);
    ASSERT_EQ(pu1.size(), 4U);
    EXPECT_EQ(pu1[0], (TimelineSlice { 1000, 5000, 0, false })); // idle until the wake-up
    EXPECT_EQ(pu1[1], (TimelineSlice { 5000, 5600, 20, false }));
    EXPECT_EQ(pu1[2], (TimelineSlice { 5600, 9000, 0, false }));
    EXPECT_EQ(pu1[3], (TimelineSlice { 9000, 9500, 20, false }));
    EXPECT_TRUE(d.wakes(0, 10'000).empty()) << "no arrow to a switch-in nobody saw";
}

TEST(TimelineData, AWakeUpIsAnArrowFromTheWakersPuToTheWakeesSwitchIn)
{
    const TimelineData d = TimelineData::build(handover(), {});
    const auto wakes = d.wakes(0, 10'000);
    ASSERT_EQ(wakes.size(), 1U);
    EXPECT_EQ(wakes[0].wakingNs, 3000U);
    EXPECT_EQ(wakes[0].fromPu, 0);
    EXPECT_EQ(wakes[0].waker, 10);
    EXPECT_EQ(wakes[0].runNs, 4000U);
    EXPECT_EQ(wakes[0].toPu, 1);
    EXPECT_EQ(wakes[0].wakee, 20);
    // An arrow is found from a span it begins or ends in, and not outside.
    EXPECT_EQ(d.wakes(2500, 3500).size(), 1U);
    EXPECT_EQ(d.wakes(3500, 4500).size(), 1U);
    EXPECT_TRUE(d.wakes(4500, 9000).empty());
    EXPECT_TRUE(d.wakes(0, 10'000, 0).empty()); // at most none
}

TEST(TimelineData, IdleStatesInterruptsAndMigrationsAreMarkedWhereTheyHappened)
{
    const TimelineData d = TimelineData::build(handover(), {});
    EXPECT_EQ(d.idleStateAt(1, 2000), 2);
    EXPECT_EQ(d.idleStateAt(1, 3450), std::nullopt); // left at 3400
    EXPECT_EQ(d.idleStateAt(1, 1150), std::nullopt); // not yet entered
    const auto pu1 = d.marks(1, 3200, 3300);
    ASSERT_EQ(pu1.size(), 1U);
    EXPECT_EQ(pu1[0].kind, TimelineMark::Kind::Irq);
    EXPECT_EQ(pu1[0].beginNs, 3100U);
    EXPECT_EQ(pu1[0].endNs, 3500U);
    const auto pu0 = d.marks(0, 0, 10'000);
    ASSERT_EQ(pu0.size(), 1U);
    EXPECT_EQ(pu0[0].kind, TimelineMark::Kind::Migration);
    EXPECT_EQ(pu0[0].pid, 20);
    EXPECT_EQ(pu0[0].fromPu, 1);
    EXPECT_EQ(pu0[0].beginNs, 7000U);
}

TEST(TimelineData, AClickFindsTheSliceUnderItAndNothingOutsideTheRecording)
{
    const TimelineData d = TimelineData::build(handover(), {});
    EXPECT_EQ(d.sliceAt(1, 4500), (TimelineSlice { 4000, 6000, 20, false }));
    EXPECT_EQ(d.sliceAt(1, 4000)->pid, 20); // a boundary belongs to what begins there
    EXPECT_EQ(d.sliceAt(1, 3999)->pid, 0);
    EXPECT_EQ(d.sliceAt(1, 500), std::nullopt);
    EXPECT_EQ(d.sliceAt(1, 7000), std::nullopt);
    EXPECT_EQ(d.sliceAt(5, 4500), std::nullopt); // no such lane
}

TEST(TimelineData, ZoomedOutAFrameHoldsAtMostAPiecePerPixelAndZoomedInEverySlice)
{
    // 200,000 switches on one PU between two tasks, 1 to 20 µs apart.
    std::mt19937 random(7);
    std::uniform_int_distribution<std::uint64_t> gap(1'000, 20'000);
    std::vector<TraceEvent> events;
    std::uint64_t ns = 0;
    for (int i = 0; i < 200'000; ++i) {
        ns += gap(random);
        events.push_back(switching(ns, 0, i % 2 == 0 ? 1 : 2, kPreempted, i % 2 == 0 ? 2 : 1));
    }
    const TimelineData d = TimelineData::build(events, {});
    const std::uint64_t span = d.endNs() - d.beginNs();
    const int pixels = 1000;
    const auto frame = d.visible(0, d.beginNs(), d.endNs(), span / pixels);
    EXPECT_LE(frame.size(), static_cast<std::size_t>(pixels + 2));
    EXPECT_GE(frame.size(), static_cast<std::size_t>(pixels / 2));
    // The pieces tile the span in order, without overlaps.
    for (std::size_t i = 1; i < frame.size(); ++i)
        EXPECT_LE(frame[i - 1].endNs, frame[i].beginNs);
    EXPECT_TRUE(frame.front().merged);
    // Zoomed in to 100 µs, every slice is there, none merged.
    const std::uint64_t from = d.beginNs() + span / 2;
    const auto close = d.visible(0, from, from + 100'000, 100'000 / pixels);
    ASSERT_FALSE(close.empty());
    for (const auto& s : close)
        EXPECT_FALSE(s.merged);
    for (std::size_t i = 1; i < close.size(); ++i)
        EXPECT_EQ(close[i - 1].endNs, close[i].beginNs);
    EXPECT_LE(close.front().beginNs, from);
    EXPECT_GE(close.back().endNs, from + 100'000);
}

TEST(TimelineData, AMergedPieceIsNamedByTheTaskRunningAtItsMiddle)
{
    // Task 1 runs 90% of the time in short bursts, task 2 the rest.
    std::vector<TraceEvent> events;
    std::uint64_t ns = 0;
    for (int i = 0; i < 1000; ++i) {
        events.push_back(switching(ns, 0, 2, kPreempted, 1));
        ns += 900;
        events.push_back(switching(ns, 0, 1, kPreempted, 2));
        ns += 100;
    }
    const TimelineData d = TimelineData::build(events, {});
    // Zoomed out to 10 µs a piece, the lane reads as task 1 nearly all along.
    std::uint64_t ones = 0;
    for (const auto& piece : d.visible(0, 0, ns, 10'000))
        ones += piece.pid == 1 ? piece.endNs - piece.beginNs : 0;
    EXPECT_GT(ones, (d.endNs() - d.beginNs()) * 8 / 10);
}
