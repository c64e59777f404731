// SPDX-License-Identifier: MIT
// The inside-a-switch lesson and the traced VM sentence of pinning and spin-or-sleep: their
// conclusions computed from made-up trace summaries whose shares are known.
#include "lesson/handover_share.h"
#include "lesson_synthetic.h"

#include "ctxscope/lesson.h"
#include "ctxscope/value_json.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

using namespace ctxscope;
using test::anyContains;
using test::synthRun;

namespace {

constexpr const char* kVmWarning = "This is a virtual machine (hypervisor KVM): cross-vCPU wake-ups are dearer.";

TraceSegment seg(std::string name, std::string from, std::string to, bool cross, double meanNs, std::uint64_t count)
{
    return { std::move(name), std::move(from), std::move(to), cross, meanNs, meanNs, meanNs, count };
}

// A traced run of `ops` round trips at nsPerOp (untraced: untracedNsPerOp) cut into these steps.
TraceSummary summaryOf(std::uint64_t ops, double nsPerOp, double untracedNsPerOp, std::vector<TraceSegment> segments)
{
    TraceSummary s;
    s.ops = ops;
    s.nsPerOp = nsPerOp;
    s.untracedNsPerOp = untracedNsPerOp;
    s.handovers = 2 * ops;
    s.segments = std::move(segments);
    return s;
}

// Across CPUs: 600 + 6100 + 3000 x 1/2 + 4000 + 1000 = 13.2 µs per hand-over, the IPI 46% of it.
// "in user space" and the one-CPU step are no part of a cross-CPU hand-over.
TraceSummary acrossSummary()
{
    return summaryOf(500, 30000, 25000,
        { seg("wake call", "sys_enter", "sched_waking", true, 600, 1000),
            seg("IPI sent", "sched_waking", "ipi_send_cpu", true, 6100, 1000),
            seg("idle exit", "ipi_send_cpu", "cpu_idle", true, 3000, 500),
            seg("switch-in", "cpu_idle", "sched_switch", true, 4000, 1000),
            seg("return to user", "sched_switch", "sys_exit", true, 1000, 1000),
            seg("in user space", "sys_exit", "sys_enter", true, 9000, 1000),
            seg("waker runs on", "sched_waking", "sched_switch", false, 50000, 3) });
}

// On one PU: 400 + 1200 + 900 = 2.5 µs per hand-over, "waker runs on" 48% of it.
TraceSummary onePuSummary()
{
    return summaryOf(2000, 5500, 5000,
        { seg("wake call", "sys_enter", "sched_waking", false, 400, 4000),
            seg("waker runs on", "sched_waking", "sched_switch", false, 1200, 4000),
            seg("return to user", "sched_switch", "sys_exit", false, 900, 4000),
            seg("in user space", "sys_exit", "sys_enter", false, 300, 4000) });
}

RunResult futexOnePu(bool traced)
{
    RunResult r = synthRun("futex", BenchMode::Thread, { 0, 0 }, Relation::SamePu, { 5000, 5050, 4950 });
    if (traced)
        r.trace = onePuSummary();
    return r;
}

RunResult futexAcross(bool traced, bool vm = false)
{
    RunResult r = synthRun("futex", BenchMode::Thread, { 0, 1 }, Relation::CrossPackage, { 25000, 25500, 24800 });
    if (traced)
        r.trace = acrossSummary();
    if (vm)
        r.warnings.push_back(kVmWarning);
    return r;
}

} // namespace

TEST(HandoverShares, TheStepsOfOneKindAddUpToTheHandover)
{
    const auto shares = lesson::handoverShares(acrossSummary(), true);
    ASSERT_TRUE(shares);
    EXPECT_EQ(shares->handovers, 1000U);
    EXPECT_DOUBLE_EQ(shares->ns, 13200);
    ASSERT_EQ(shares->steps.size(), 5U) << "no 'in user space', no one-CPU step";
    EXPECT_EQ(shares->steps.front().name, "IPI sent");
    EXPECT_NEAR(shares->steps.front().share, 6100.0 / 13200, 1e-12);
    const auto* idle = shares->find("idle exit");
    ASSERT_NE(idle, nullptr);
    EXPECT_DOUBLE_EQ(idle->ns, 1500) << "taken by half the hand-overs: half its mean per hand-over";
    double sum = 0;
    for (const auto& s : shares->steps)
        sum += s.share;
    EXPECT_NEAR(sum, 1, 1e-12);
    EXPECT_EQ(lesson::stepText(shares->steps.front()), "IPI sent (sched_waking → ipi_send_cpu), 6.1 µs (46%)");
}

TEST(HandoverShares, AFewPreemptedHandoversDoNotStandForAll)
{
    TraceSummary s = acrossSummary();
    for (auto& seg : s.segments)
        if (seg.name == "switch-in")
            seg.meanNs = 400000; // a few of them waited milliseconds for a busy CPU
    const auto shares = lesson::handoverShares(s, true);
    ASSERT_TRUE(shares);
    EXPECT_DOUBLE_EQ(shares->ns, 13200) << "the medians, not the means";
    EXPECT_EQ(shares->steps.front().name, "IPI sent");
}

TEST(HandoverShares, AStepCutBetweenDifferentEventsIsOneStep)
{
    TraceSummary s = acrossSummary();
    for (auto& seg : s.segments)
        if (seg.name == "switch-in") {
            seg.p50Ns = 1000;
            seg.count = 500; // after the idle exit
        }
    // The other half found the CPU busy: the switch-in straight from the IPI, 8 µs.
    s.segments.push_back(seg("switch-in", "ipi_send_cpu", "sched_switch", true, 8000, 500));
    const auto shares = lesson::handoverShares(s, true);
    ASSERT_TRUE(shares);
    EXPECT_EQ(shares->handovers, 1000U) << "the two ways of the switch-in count together";
    EXPECT_DOUBLE_EQ(shares->ns, 600 + 6100 + 1500 + 4500 + 1000);
    const auto* in = shares->find("switch-in");
    ASSERT_NE(in, nullptr);
    EXPECT_EQ(in->count, 1000U);
    EXPECT_EQ(lesson::stepText(*in),
        "switch-in (ipi_send_cpu → sched_switch in most hand-overs, else from cpu_idle), 4.5 µs (33%)");
}

TEST(HandoverShares, NoHandoverOfThatKindIsNone)
{
    EXPECT_FALSE(lesson::handoverShares(onePuSummary(), true));
    EXPECT_FALSE(lesson::handoverShares(TraceSummary {}, false));
    const RunResult untraced = futexAcross(false);
    EXPECT_FALSE(lesson::handoverShares(untraced));
}

TEST(InsideASwitch, NamesTheLargestStepAndItsShareOfEachPlacement)
{
    const auto c = concludeLesson("inside-a-switch", { futexOnePu(true), futexAcross(true) });
    EXPECT_TRUE(anyContains(c, "On CPUs 0,1 (cross-package), a traced hand-over took 13.2 µs")) << c.front();
    EXPECT_TRUE(anyContains(c, "46% of it was IPI sent (sched_waking → ipi_send_cpu, 6.1 µs)"));
    EXPECT_TRUE(anyContains(c, "On CPUs 0,0 (same-pu), a traced hand-over took 2.5 µs"));
    EXPECT_TRUE(anyContains(c, "48% of it was waker runs on"));
    // 13.2 / 2.5; the IPI, the switch-in and the idle exit are the steps one PU never takes: 11.6 µs, 88%.
    EXPECT_TRUE(anyContains(c, "took 5.3 times as long as on one PU (13.2 µs against 2.5 µs)"));
    EXPECT_TRUE(anyContains(c, "(IPI sent, switch-in, idle exit) took 11.6 µs of it (88%)"));
    EXPECT_TRUE(anyContains(c,
        "Traced, the mean round trip was 10% dearer on CPUs 0,0 (same-pu) and 20% dearer on "
        "CPUs 0,1 (cross-package) than untraced"));
    EXPECT_TRUE(anyContains(c, "Untraced, a futex round trip (two hand-overs) cost 5 µs"));
    EXPECT_FALSE(anyContains(c, "virtual machine")) << "no VM warning on these results";
}

// Issue 44: tracing adds work, so a traced run faster than the untraced one is a disturbance,
// never a negative cost ("53% cheaper").
TEST(InsideASwitch, ATracedRunFasterThanUntracedIsADisturbanceNotACost)
{
    RunResult across = futexAcross(true);
    across.trace->untracedNsPerOp = 2 * across.trace->nsPerOp;
    const auto c = concludeLesson("inside-a-switch", { futexOnePu(true), across });
    EXPECT_TRUE(anyContains(c, "Traced, the mean round trip was 10% dearer on CPUs 0,0 (same-pu) than untraced"));
    EXPECT_TRUE(anyContains(c, "The traced round trip was faster than the untraced one on CPUs 0,1 (cross-package)"));
    EXPECT_TRUE(anyContains(c, "one of the two runs was disturbed; this is not a cost of tracing"));
    EXPECT_FALSE(anyContains(c, "cheaper"));
}

TEST(InsideASwitch, TheDominantStepFollowsTheNumbers)
{
    RunResult across = futexAcross(true);
    for (auto& s : across.trace->segments)
        if (s.name == "switch-in")
            s.p50Ns = 20000; // now 600 + 6100 + 1500 + 20000 + 1000 = 29.2 µs, the switch-in 68%
    const auto c = concludeLesson("inside-a-switch", { across });
    EXPECT_TRUE(anyContains(c, "a traced hand-over took 29.2 µs"));
    EXPECT_TRUE(anyContains(c, "68% of it was switch-in"));
    EXPECT_TRUE(anyContains(c, "next came IPI sent (sched_waking → ipi_send_cpu), 6.1 µs (21%)"));
}

// The verdict card's line: the untraced ratio with its interval, and the traced hand-over's
// largest step across CPUs; without a trace the ratio alone; with one placement, none.
TEST(InsideASwitch, TheHeadlineGivesTheRatioAndTheLargestStepAcrossCpus)
{
    const auto h = lessonHeadline("inside-a-switch", { futexOnePu(true), futexAcross(true) });
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->kind, LessonHeadline::Kind::Differs);
    EXPECT_EQ(h->text, "Across packages: 5.01× slower; IPI sent is 46% of a hand-over");
    EXPECT_LT(h->low, 5.01);
    EXPECT_GT(h->high, 5.01);
    const auto untraced = lessonHeadline("inside-a-switch", { futexOnePu(false), futexAcross(false) });
    ASSERT_TRUE(untraced.has_value());
    EXPECT_EQ(untraced->text, "Across packages: 5.01× slower than on one PU");
    EXPECT_FALSE(lessonHeadline("inside-a-switch", { futexAcross(true) }).has_value());
}

TEST(InsideASwitch, WithoutATraceItGivesTheUntracedComparisonAndSaysSo)
{
    const auto c = concludeLesson("inside-a-switch", { futexOnePu(false), futexAcross(false) });
    EXPECT_TRUE(anyContains(c, "across CPUs it cost 5")) << c.front();
    EXPECT_TRUE(anyContains(c, "No placement was traced"));
    EXPECT_FALSE(anyContains(c, "traced hand-over took"));
    EXPECT_EQ(concludeLesson("inside-a-switch", {}).front(),
        "No experiment of this lesson could run here; see the failures.");
}

TEST(InsideASwitch, ATraceWithoutHandoversAndTheTracesNotesAreSaid)
{
    RunResult across = futexAcross(true);
    across.trace->segments.clear();
    across.trace->notes = { "the trace lost 12 events on CPU 1" };
    const auto c = concludeLesson("inside-a-switch", { across });
    EXPECT_TRUE(anyContains(c, "holds no hand-over between the two threads"));
    EXPECT_TRUE(anyContains(c, "The trace on CPUs 0,1 (cross-package) says: the trace lost 12 events on CPU 1"));
}

TEST(InsideASwitch, PlansOnePuAndTheFarthestClassBothTraced)
{
    std::ifstream in(std::string(ctxscope::test::fixturesDir()) + "/topology/good/two-packages-two-numa.xml");
    const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto machine = Topology::loadXmlBuffer(xml);
    ASSERT_TRUE(machine.ok()) << machine.error().message;
    auto plan = planLesson("inside-a-switch", *machine, {}, PlanTopology::WorkersHello);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    ASSERT_EQ(plan->size(), 2U);
    EXPECT_EQ((*plan)[0].spec.cpus[0], (*plan)[0].spec.cpus[1]);
    EXPECT_NE((*plan)[1].label.find("cross-numa"), std::string::npos) << (*plan)[1].label;
    for (const LessonStep& s : *plan) {
        EXPECT_TRUE(s.traceable) << s.label;
        EXPECT_EQ(s.spec.bench, "futex");
    }
    ASSERT_NE(findLesson("inside-a-switch"), nullptr);
    EXPECT_TRUE(findLesson("inside-a-switch")->traces);
    // Pinning and spin-or-sleep trace only when asked, and then one step: the farthest futex.
    for (const char* id : { "pinning", "spin-or-sleep" }) {
        auto p = planLesson(id, *machine, {}, PlanTopology::WorkersHello);
        ASSERT_TRUE(p.ok());
        std::vector<const LessonStep*> traceable;
        for (const LessonStep& s : *p)
            if (s.traceable)
                traceable.push_back(&s);
        ASSERT_EQ(traceable.size(), 1U) << id;
        EXPECT_EQ(traceable.front()->spec.bench, "futex") << id;
        EXPECT_NE(traceable.front()->label.find("cross-numa"), std::string::npos) << traceable.front()->label;
        EXPECT_FALSE(findLesson(id)->traces) << id;
    }
}

TEST(TracedVmNote, PinningQuotesTheMeasuredIpiInsteadOfAssertingIt)
{
    RunResult one = futexOnePu(false);
    one.warnings.push_back(kVmWarning);
    const auto asserted = concludeLesson("pinning", { one, futexAcross(false, true) });
    EXPECT_TRUE(anyContains(asserted, "goes through the hypervisor")) << "no trace: the old sentence";
    const auto measured = concludeLesson("pinning", { one, futexAcross(true, true) });
    EXPECT_FALSE(anyContains(measured, "goes through the hypervisor"));
    EXPECT_TRUE(anyContains(measured,
        "tracing the futex hand-over on CPUs 0,1 (cross-package) measured what another vCPU costs: sending the IPI to "
        "the other vCPU took 6.1 µs of the 13.2 µs hand-over (46%)."));
}

TEST(TracedVmNote, SpinOrSleepQuotesTheLargestStepWhenNoIpiWasSent)
{
    RunResult across = futexAcross(true, true);
    auto& segs = across.trace->segments;
    segs.erase(std::remove_if(segs.begin(), segs.end(), [](const TraceSegment& s) { return s.name == "IPI sent"; }),
        segs.end());
    // 600 + 1500 + 4000 + 1000 = 7.1 µs; the switch-in 56%.
    const auto c = concludeLesson("spin-or-sleep", { across });
    EXPECT_TRUE(anyContains(c, "measured what another vCPU costs: switch-in took 4 µs of the 7.1 µs hand-over (56%)."))
        << c.back();
    // Not on a VM: no VM sentence at all, traced or not.
    EXPECT_FALSE(anyContains(concludeLesson("spin-or-sleep", { futexAcross(true, false) }), "virtual machine"));
}

TEST(TracedVmNote, TheTraceGoesIntoTheResultsJsonEntry)
{
    EXPECT_FALSE(resultToJson(futexAcross(false)).contains("trace"));
    const auto j = resultToJson(futexAcross(true));
    ASSERT_TRUE(j.contains("trace"));
    EXPECT_EQ(j["trace"]["segments"].size(), 7U);
    EXPECT_EQ(j["trace"]["segments"][1]["name"], "IPI sent");
}
