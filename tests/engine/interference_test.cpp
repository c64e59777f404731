// SPDX-License-Identifier: MIT
// The interference arithmetic on counters made by hand (shares of a CPU's wall time, the
// benchmark's own time taken out, counters that go backwards), the one line and the sentences
// that name a cause, and the JSON object read back.
#include "ctxscope/value_json.h"
#include "report/interference_json.h"
#include "runner/assemble.h"
#include "runner/interference.h"
#include "sample_result.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using run::InterferenceMeter;

namespace {

// A snapshot of CPU 0 after `seconds`, with ticks for user, system, idle, irq, softirq, steal.
InterferenceMeter::Snapshot snap(double seconds, std::uint64_t user, std::uint64_t system, std::uint64_t idle,
    std::uint64_t irq, std::uint64_t softirq, std::uint64_t steal, std::uint64_t irqs)
{
    InterferenceMeter::Snapshot s;
    s.at = std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds)));
    os::CpuTimes c;
    c.cpu = 0;
    c.user = user;
    c.system = system;
    c.idle = idle;
    c.irq = irq;
    c.softirq = softirq;
    c.steal = steal;
    c.hasSteal = true;
    s.stat.all = c;
    s.stat.cpus.push_back(c);
    s.irqs.push_back({ 0, irqs });
    return s;
}

// CPU 1 beside CPU 0 in both snapshots, as CPU 0 was at the first, busy `ticks` of 100 between them.
void addCpu1(InterferenceMeter::Snapshot& a, InterferenceMeter::Snapshot& b, std::uint64_t ticks)
{
    os::CpuTimes one = a.stat.cpus[0];
    one.cpu = 1;
    a.stat.cpus.push_back(one);
    one.user += ticks;
    one.idle += 100 - ticks;
    b.stat.cpus.push_back(one);
}

Interference busy()
{
    Interference i;
    i.seconds = 1;
    i.cpus.push_back({ 0, 0.38, 0.002, 0.01, 0.02, 1210, 400, { 0.3, 0.45 } });
    i.topTasks.push_back({ 4321, 4321, "sh", false, 0.37, 0 });
    i.topTasks.push_back({ 15, 15, "ksoftirqd/0", true, 0.004, 0 });
    return i;
}

} // namespace

TEST(Interference, SharesOfTheCpusWallTimeWithoutTheBenchmarksOwnTime)
{
    const double tick = 1e9 / os::ticksPerSecond();
    // 100 ticks of wall time: 60 user + 10 system, 20 idle, 4 irq, 2 softirq, 4 steal.
    const auto a = snap(0, 1000, 500, 9000, 10, 10, 10, 5000);
    const auto b = snap(2, 1060, 510, 9020, 14, 12, 14, 7420);
    const auto c = InterferenceMeter::between(a, b, 0, 30 * tick); // the benchmark ran 30 ticks
    ASSERT_TRUE(c.has_value());
    EXPECT_NEAR(c->otherShare, 0.40, 1e-9); // (70 - 30) / 100
    EXPECT_NEAR(c->stealShare, 0.04, 1e-9);
    EXPECT_NEAR(c->irqShare, 0.04, 1e-9);
    EXPECT_NEAR(c->softirqShare, 0.02, 1e-9);
    EXPECT_NEAR(c->irqsPerS, 1210, 1e-6); // 2420 interrupts in 2 s
    // The benchmark's own time beyond the CPU's (a tick-sampled counter lags): no negative share.
    EXPECT_EQ(InterferenceMeter::between(a, b, 0, 90 * tick)->otherShare, 0);
    EXPECT_FALSE(InterferenceMeter::between(a, b, 1, 0).has_value()); // CPU 1 is not in the file
}

// An unpinned pair ran 80 ticks while CPU 0 was busy 90 and CPU 1 10: its time goes where the
// CPUs were busy (72 and 8), not half on each (which made CPU 0 look 35% taken by others).
TEST(Interference, AnUnpinnedTasksTimeFollowsWhereTheCpusWereBusy)
{
    const double tick = 1e9 / os::ticksPerSecond();
    auto a = snap(0, 1000, 0, 9000, 0, 0, 0, 0);
    auto b = snap(1, 1090, 0, 9010, 0, 0, 0, 0);
    addCpu1(a, b, 10);
    a.taskNs = { 0, 0 };
    b.taskNs = { static_cast<std::uint64_t>(80 * tick), static_cast<std::uint64_t>(2 * tick) };
    const InterferenceMeter meter({ { 1, 1, -1 }, { 1, 2, 1 } }); // the second is pinned to CPU 1
    auto own = meter.ownNsByCpu(a, b, { 0, 1 }, { { 0, 1 }, { 1 } });
    ASSERT_EQ(own.size(), 2U);
    EXPECT_NEAR(own[0] / tick, 72, 1e-6);
    EXPECT_NEAR(own[1] / tick, 8 + 2, 1e-6);
    own = meter.ownNsByCpu(a, b, { 0, 1 }, { { 0 }, { 1 } }); // seen only on CPU 0: all there
    EXPECT_NEAR(own[0] / tick, 80, 1e-6);
    own = meter.ownNsByCpu(a, b, { 0, 1 }, {}); // not seen anywhere: spread by busy time over all
    EXPECT_NEAR(own[0] / tick, 72, 1e-6);
    EXPECT_NEAR(own[1] / tick, 10, 1e-6);
    // What is left is what others took: 18 of CPU 0's 100 ticks.
    EXPECT_NEAR(InterferenceMeter::between(a, b, 0, own[0])->otherShare, 0.18, 1e-9);
}

// The app that drives the run (the ctxscope window) is counted apart from other tasks: its time
// is spread over the CPUs it may run on by the time each gave other tasks, and taken out of them.
TEST(Interference, TheControllersTimeIsItsOwnNotOtherTasks)
{
    const double tick = 1e9 / os::ticksPerSecond();
    // CPU 0: 100 ticks, 70 busy of which the benchmark 40; CPU 1: 100 ticks, 10 busy, no benchmark.
    auto a = snap(0, 1000, 0, 9000, 0, 0, 0, 0);
    auto b = snap(1, 1070, 0, 9030, 0, 0, 0, 0);
    addCpu1(a, b, 10);
    a.controllerNs = 1'000'000'000;
    b.controllerNs = a.controllerNs + static_cast<std::uint64_t>(8 * tick); // the app: 8 ticks
    const std::vector<double> own { 40 * tick };
    // Measured CPU 0 gave others 30 ticks, CPU 1 gave them 10: 6 of the app's 8 ticks on CPU 0.
    auto ns = InterferenceMeter::controllerNsByCpu(a, b, { 0 }, own, {});
    ASSERT_EQ(ns.size(), 1U);
    EXPECT_NEAR(ns[0] / tick, 6, 1e-6);
    const auto c = InterferenceMeter::between(a, b, 0, own[0], ns[0]);
    ASSERT_TRUE(c.has_value());
    EXPECT_NEAR(c->controllerShare, 0.06, 1e-9);
    EXPECT_NEAR(c->otherShare, 0.24, 1e-9); // (70 - 40 - 6) / 100
    // An app kept off CPU 0 (its affinity: CPU 1 only) took nothing of it.
    EXPECT_EQ(InterferenceMeter::controllerNsByCpu(a, b, { 0 }, own, { 1 })[0], 0);
    // Allowed only on the measured CPU: all of it there, never more than others took.
    EXPECT_NEAR(InterferenceMeter::controllerNsByCpu(a, b, { 0 }, own, { 0 })[0] / tick, 8, 1e-6);
    EXPECT_NEAR(InterferenceMeter::between(a, b, 0, own[0], 50 * tick)->controllerShare, 0.30, 1e-9);
    EXPECT_EQ(InterferenceMeter::between(a, b, 0, own[0], 50 * tick)->otherShare, 0);
}

TEST(Interference, CountersThatGoBackwardsGiveNoNegativeTime)
{
    auto a = snap(0, 1000, 500, 9000, 10, 10, 10, 5000);
    auto b = snap(1, 1050, 500, 9050, 10, 10, 10, 4000); // irq counts reset (a CPU came back online)
    a.stat.cpus[0].iowait = 50;
    const auto c = InterferenceMeter::between(a, b, 0, 0);
    ASSERT_TRUE(c.has_value());
    EXPECT_NEAR(c->otherShare, 0.5, 1e-9);
    EXPECT_EQ(c->irqsPerS, 0);
    // Less than a tick apart: rates, but no share can be told.
    const auto same = InterferenceMeter::between(a, a, 0, 0);
    ASSERT_TRUE(same.has_value());
    EXPECT_EQ(same->otherShare, 0);
}

TEST(Interference, ARunTooShortForTheTickCountersGetsNoFigure)
{
    // /proc/stat counts 10 ms ticks, each end off by up to one: a 6 ms matrix pair read 40% on
    // a quiet CPU. Measured for less than 0.3 s, a run has no interference object rather than a
    // false "disturbed".
    InterferenceMeter meter({});
    meter.begin();
    meter.mark(true);
    EXPECT_FALSE(meter.finish({ 0 }, {}).has_value());
}

TEST(Interference, OneLineNamesWhoTookHowMuch)
{
    EXPECT_EQ(interferenceLine(busy()),
        "interference on CPU 0: other tasks 38.0%, steal 0.2%, 1,210 interrupts/s; busiest: sh (PID 4321) 37.0%, "
        "ksoftirqd/0 (PID 15, kernel thread) 0.4%");
    Interference quiet;
    quiet.cpus.push_back({ 0, 0.004, 0, 0, 0, 250, 10, {} });
    EXPECT_EQ(interferenceLine(quiet), "interference on CPU 0: quiet (other tasks 0.4%, steal 0.0%, 250 interrupts/s)");
    EXPECT_TRUE(busy().disturbed());
    EXPECT_FALSE(quiet.disturbed());
    EXPECT_DOUBLE_EQ(busy().maxRepetitionOtherShare(), 0.45);
}

TEST(Interference, TheSpreadWarningNamesTheCause)
{
    RunResult r;
    r.repetitions = 5;
    r.repetitionCv = 0.165;
    EXPECT_NE(run::spreadWarning(r).find("could not be read"), std::string::npos);
    r.interference = busy();
    EXPECT_NE(run::spreadWarning(r).find("other tasks took 38.0% of CPU 0, busiest sh (PID 4321)"), std::string::npos);
    r.interference->cpus[0].otherShare = 0.01;
    r.interference->cpus[0].stealShare = 0.12;
    EXPECT_NE(run::spreadWarning(r).find("the hypervisor stole 12.0% of CPU 0"), std::string::npos);
    r.interference->cpus[0].stealShare = 0.0;
    const std::string neither = run::spreadWarning(r);
    EXPECT_NE(neither.find("neither other tasks (1.0%) nor the hypervisor (0.0%)"), std::string::npos) << neither;
    EXPECT_NE(neither.find("longer minimum time"), std::string::npos);
    EXPECT_EQ(disturbedWarning(*r.interference), "");
    EXPECT_NE(disturbedWarning(busy()).find("The run was disturbed: other tasks took 38.0%"), std::string::npos);
}

// A run on CPUs 0 and 1 where others took 38% of CPU 0 and 20% of CPU 1: the cause names the
// busiest task on CPU 0, never one that ran on CPU 1.
TEST(Interference, TheCauseNamesTheBusiestTaskOnTheDisturbedCpu)
{
    Interference i = busy();
    i.cpus.push_back({ 1, 0.20, 0, 0, 0, 300, 50, { 0.2 } });
    i.topTasks.insert(i.topTasks.begin(), { 777, 778, "make", false, 0.20, 1 });
    EXPECT_EQ(interferenceCause(i), "other tasks took 38.0% of CPU 0, busiest sh (PID 4321)");
    i.topTasks.erase(i.topTasks.begin() + 1, i.topTasks.end()); // only CPU 1's task is known
    EXPECT_EQ(interferenceCause(i), "other tasks took 38.0% of CPU 0");
    i.topTasks.front().cpu = -1; // a file of the first version: no CPU given, the busiest is named
    EXPECT_EQ(interferenceCause(i), "other tasks took 38.0% of CPU 0, busiest make (PID 777)");
}

// "the ctxscope window: 2%": the line names the app apart; a run it disturbed says so, and sends
// nobody to look for a quieter machine.
TEST(Interference, TheAppIsNamedApartAndNeverBlamedOnTheMachine)
{
    Interference i;
    i.seconds = 1;
    i.controllerPid = 4242;
    i.controllerComm = "ctxscope";
    i.cpus.push_back({ 0, 0.004, 0, 0, 0, 250, 10, {}, 0.02 });
    EXPECT_EQ(interferenceLine(i),
        "interference on CPU 0: other tasks 0.4%, the ctxscope window 2.0%, steal 0.0%, 250 interrupts/s");
    EXPECT_FALSE(i.disturbed());
    EXPECT_EQ(interferenceCause(i), "");
    i.cpus[0].controllerShare = 0.15;
    ASSERT_TRUE(i.disturbed());
    EXPECT_EQ(interferenceCause(i), "the ctxscope window itself took 15.0% of CPU 0");
    const std::string warning = disturbedWarning(i);
    EXPECT_NE(warning.find("the ctxscope window itself took 15.0% of CPU 0"), std::string::npos) << warning;
    EXPECT_EQ(warning.find("quiet machine"), std::string::npos) << warning;
    EXPECT_EQ(warning.find("other tasks"), std::string::npos) << warning;
    i.cpus[0].otherShare = 0.30; // the machine as well: both named, and a quiet machine asked for
    EXPECT_EQ(
        interferenceCause(i), "other tasks took 30.0% of CPU 0 and the ctxscope window itself took 15.0% of CPU 0");
    EXPECT_NE(disturbedWarning(i).find("quiet machine"), std::string::npos);
    // Without a controller nothing is said of a window.
    Interference none;
    none.cpus.push_back({ 0, 0.004, 0, 0, 0, 250, 10, {}, 0 });
    EXPECT_EQ(interferenceLine(none).find("window"), std::string::npos);
    // And it travels in files; older files have neither field.
    const auto j = report::interferenceToJson(i);
    EXPECT_EQ(j["controller"]["comm"], "ctxscope");
    report::FieldReader in(j, "interference");
    const Interference back = report::interferenceFromJson(in);
    ASSERT_TRUE(in.ok()) << in.error();
    EXPECT_EQ(interferenceLine(back), interferenceLine(i));
    EXPECT_FALSE(report::interferenceToJson(none).contains("controller"));
}

TEST(Interference, JsonRoundTripAndBadShares)
{
    const auto j = report::interferenceToJson(busy());
    EXPECT_EQ(j["cpus"][0]["other_share"], 0.38);
    EXPECT_EQ(j["top_tasks"][0]["comm"], "sh");
    EXPECT_EQ(j["disturbed"], true);
    report::FieldReader in(j, "interference");
    const Interference back = report::interferenceFromJson(in);
    ASSERT_TRUE(in.ok()) << in.error();
    EXPECT_EQ(interferenceLine(back), interferenceLine(busy()));
    EXPECT_EQ(back.topTasks[0].cpu, 0);
    auto older = j; // written before tasks named their CPU
    older["top_tasks"][0].erase("cpu");
    report::FieldReader olderIn(older, "interference");
    EXPECT_EQ(report::interferenceFromJson(olderIn).topTasks[0].cpu, -1);
    EXPECT_TRUE(olderIn.ok()) << olderIn.error();
    auto bad = j;
    bad["cpus"][0]["steal_share"] = 1.5;
    report::FieldReader badIn(bad, "interference");
    (void)report::interferenceFromJson(badIn);
    EXPECT_EQ(badIn.error(), "field 'interference.cpus.steal_share' should be a fraction between 0 and 1");
}

TEST(Interference, TravelsInEveryResultEntry)
{
    RunResult in = test::sampleResult();
    EXPECT_FALSE(resultToJson(in).contains("interference")); // none measured: none written
    in.interference = busy();
    const auto j = resultToJson(in);
    EXPECT_EQ(j["interference"]["cpus"][0]["irqs_per_s"], 1210);
    EXPECT_EQ(j["interference"]["top_tasks"][0]["pid"], 4321);
    const auto out = resultFromJson(nlohmann::json::parse(j.dump()));
    ASSERT_TRUE(out.ok()) << out.error().message;
    ASSERT_TRUE(out->interference.has_value());
    EXPECT_EQ(interferenceLine(*out->interference), interferenceLine(busy()));
    auto bad = j;
    bad["interference"]["top_tasks"][0]["share"] = "much";
    const auto refused = resultFromJson(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("interference.top_tasks.share"), std::string::npos)
        << refused.error().message;
}
