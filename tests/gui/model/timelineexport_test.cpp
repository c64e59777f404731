// SPDX-License-Identifier: MIT
// The Perfetto export of a timeline: every slice, interrupt, migration and wake-up of the
// recording becomes one trace event on its PU's tracks, with the times in µs.
#include "timelineexport.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

TraceEvent event(std::uint64_t ns, int cpu, TraceEventKind kind, std::int32_t pid, std::int32_t other = -1,
    std::int32_t aux = -1, std::int64_t value = 0)
{
    return { ns, cpu, pid, other, aux, value, kind };
}

// 10 on PU 0 wakes 20 asleep on PU 1 (an interrupt on PU 1 meanwhile), 20 later runs on PU 0.
std::vector<TraceEvent> recording()
{
    using K = TraceEventKind;
    return {
        event(1000, 0, K::Switch, 0, 10),
        event(1100, 1, K::Switch, 20, 0, -1, 1),
        event(3000, 0, K::Waking, 10, 20, 1),
        event(3100, 1, K::IrqEntry, 0, -1, -1, 7),
        event(3500, 1, K::IrqExit, 0, -1, -1, 7),
        event(4000, 1, K::Switch, 0, 20),
        event(5000, 0, K::Switch, 10, 0, -1, 1),
        event(6000, 1, K::Switch, 20, 30, -1, 1),
        event(7000, 0, K::Switch, 0, 20),
    };
}

std::vector<nlohmann::json> ofPhase(const nlohmann::json& trace, const char* ph)
{
    std::vector<nlohmann::json> out;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == ph)
            out.push_back(e);
    return out;
}

} // namespace

TEST(TimelineExport, EverySliceInterruptMigrationAndWakeUpIsAnEventOnItsPu)
{
    const TimelineData data = TimelineData::build(recording(), { { 10, "waker" }, { 20, "wakee" }, { 30, "busy" } });
    const nlohmann::json trace = perfettoTrace(data, { "futex across CPUs 0,1" });
    EXPECT_EQ(trace["displayTimeUnit"], "ns");
    EXPECT_EQ(trace["metadata"]["ctxscope"][0], "futex across CPUs 0,1");
    std::size_t slices = 0;
    for (int pu : data.pus())
        slices += data.visible(pu, data.beginNs(), data.endNs() + 1, 0).size();
    std::size_t interrupts = 0;
    bool wakee = false;
    for (const auto& e : ofPhase(trace, "X")) {
        if (e["cat"] == "irq") {
            ++interrupts;
            EXPECT_EQ(e["pid"], 1);
            EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 3.1); // µs
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 0.4);
            continue;
        }
        --slices;
        // The wakee's run on PU 1 after its wake-up: 4 µs to 6 µs.
        if (e["name"] == "wakee (20)" && e["pid"] == 1 && e["ts"].get<double>() == 4.0) {
            wakee = true;
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2.0);
        }
    }
    EXPECT_EQ(slices, 0U); // each slice once
    EXPECT_EQ(interrupts, 1U);
    EXPECT_TRUE(wakee);
    // The wake-up: an arrow from PU 0 at sched_waking to PU 1 at the switch-in, one id.
    const auto starts = ofPhase(trace, "s");
    const auto ends = ofPhase(trace, "f");
    ASSERT_EQ(starts.size(), data.wakes(data.beginNs(), data.endNs() + 1).size());
    ASSERT_FALSE(starts.empty());
    EXPECT_EQ(starts[0]["pid"], 0);
    EXPECT_DOUBLE_EQ(starts[0]["ts"].get<double>(), 3.0);
    EXPECT_EQ(ends[0]["pid"], 1);
    EXPECT_DOUBLE_EQ(ends[0]["ts"].get<double>(), 4.0);
    EXPECT_EQ(starts[0]["id"], ends[0]["id"]);
    // 20 arrived on PU 0 from PU 1: a migration.
    bool migrated = false;
    for (const auto& e : ofPhase(trace, "i"))
        migrated = migrated || (e["pid"] == 0 && e["name"] == "migrated from CPU 1");
    EXPECT_TRUE(migrated);
    // Each PU is a process named after it.
    int named = 0;
    for (const auto& e : ofPhase(trace, "M"))
        named += e["name"] == "process_name" && e["args"]["name"] == "CPU " + std::to_string(e["pid"].get<int>());
    EXPECT_EQ(named, 2);
}
