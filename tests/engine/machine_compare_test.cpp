// SPDX-License-Identifier: MIT
// Machines side by side (ctxscope/machine_compare.h): cards written as results files and read
// back, compared with themselves, with a copy whose futex figures were doubled, and with a
// machine that lacks a class; the context facts that differ; the four formats.
#include "ctxscope/machine_compare.h"
#include "ctxscope/results_file.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/traced_run.h"
#include "ctxscope/units.h"

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ctxscope;

namespace {

RunResult runOf(const std::string& bench, BenchMode mode, Relation relation, double ns)
{
    RunResult r;
    r.bench = bench;
    r.op = "round trip";
    r.mode = mode;
    r.placement.relation = relation;
    r.placement.tasks = 2;
    r.repetitionMedians = { ns * 0.99, ns, ns * 1.01 };
    r.repetitions = 3;
    r.stats.p50 = ns;
    r.stats.count = 3;
    return r;
}

std::vector<RunResult> someRuns(double futexScale = 1, bool withCrossPackage = true)
{
    std::vector<RunResult> out { runOf("syscall", BenchMode::Thread, Relation::SamePu, 60),
        runOf("futex", BenchMode::Thread, Relation::SamePu, 2400 * futexScale),
        runOf("futex", BenchMode::Thread, Relation::SharedL3, 5200 * futexScale),
        runOf("futex", BenchMode::Process, Relation::SamePu, 2900 * futexScale),
        runOf("pipe", BenchMode::Thread, Relation::SamePu, 4100) };
    if (withCrossPackage)
        out.push_back(runOf("pipe", BenchMode::Thread, Relation::CrossPackage, 9100));
    return out;
}

SysInfo sysOf(const std::string& kernel)
{
    SysInfo s;
    s.hostName = "host";
    s.kernel = kernel;
    s.cpuModel = "Test CPU";
    s.microcode = "0x10";
    s.governor = "performance";
    s.smtActive = TriState::On;
    s.mitigations["spectre_v2"] = "Mitigation: Retpolines";
    s.idleStates = { { "POLL", 0, false }, { "C1", 2, false } };
    return s;
}

MachineCard cardOf(const std::string& path, const std::vector<RunResult>& runs, const SysInfo& sys)
{
    const auto topology = Topology::loadSynthetic("pack:1 core:2 pu:1");
    EXPECT_TRUE(topology) << topology.error().message;
    const nlohmann::json doc = makeReport(makeContext(sys, *topology, ClockInfo {}), runs, false);
    auto card = machineCardFromText(doc.dump(), path);
    EXPECT_TRUE(card) << card.error().message;
    return *card;
}

const MachineRow* rowOf(const MachineComparison& c, const std::string& bench, BenchMode mode, Relation relation)
{
    for (const MachineRow& r : c.rows)
        if (r.bench == bench && r.mode == mode && r.relation == relation)
            return &r;
    return nullptr;
}

} // namespace

TEST(MachineCompare, ACardAgainstItselfIsTheSameEverywhere)
{
    const MachineCard a = cardOf("/tmp/a.json", someRuns(), sysOf("6.1.0"));
    const auto c = compareMachines({ a, a }, 0);
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->rows.size(), 6U);
    for (const MachineRow& row : c->rows) {
        ASSERT_TRUE(row.cells[1].ratio) << row.bench;
        EXPECT_DOUBLE_EQ(*row.cells[1].ratio, 1.0);
        EXPECT_EQ(row.cells[1].verdict, MachineVerdict::Same) << row.bench << " " << toString(row.relation);
    }
    EXPECT_TRUE(c->differences.empty());
}

TEST(MachineCompare, DoubledFutexRowsMatterAndNoOtherRowDoes)
{
    const MachineCard a = cardOf("/tmp/a.json", someRuns(), sysOf("6.1.0"));
    const MachineCard b = cardOf("/tmp/b.json", someRuns(2), sysOf("6.1.0"));
    const auto c = compareMachines({ a, b }, 0);
    ASSERT_TRUE(c) << c.error().message;
    int matters = 0;
    for (const MachineRow& row : c->rows) {
        const MachineCell& cell = row.cells[1];
        ASSERT_TRUE(cell.ratio);
        if (row.bench == "futex") {
            EXPECT_EQ(cell.verdict, MachineVerdict::Matters) << toString(row.relation);
            EXPECT_NEAR(*cell.ratio, 2.0, 1e-9);
            EXPECT_GT(cell.low, 1.9);
            EXPECT_LT(cell.high, 2.1);
            EXPECT_EQ(machineVerdictWhy(cell),
                fmt::format("Matters: the 95% interval of the ratio, {:.2f} to {:.2f}, lies wholly beyond 1.10 times "
                            "(or below 1/1.10).",
                    cell.low, cell.high));
            ++matters;
        } else {
            EXPECT_EQ(cell.verdict, MachineVerdict::Same) << row.bench;
            EXPECT_TRUE(machineVerdictWhy(cell).starts_with("The same: the 95% interval of the ratio, "));
        }
    }
    EXPECT_EQ(matters, 3);
    // The other way round: halved, which matters just as much.
    const auto reversed = compareMachines({ a, b }, 1);
    ASSERT_TRUE(reversed);
    const MachineRow* futex = rowOf(*reversed, "futex", BenchMode::Thread, Relation::SamePu);
    ASSERT_NE(futex, nullptr);
    EXPECT_NEAR(*futex->cells[0].ratio, 0.5, 1e-9);
    EXPECT_EQ(futex->cells[0].verdict, MachineVerdict::Matters);
    EXPECT_FALSE(futex->cells[1].ratio); // the baseline has no ratio
    EXPECT_EQ(machineVerdictWhy(futex->cells[1]), "");
    // Unclear: straddling the threshold, a side disturbed, a published figure.
    MachineCell cell;
    cell.ratio = 1.05;
    cell.low = 0.97;
    cell.high = 1.14;
    EXPECT_EQ(machineVerdictWhy(cell),
        "Unclear: the 95% interval of the ratio, 0.97 to 1.14, reaches across the 10% threshold: the repetitions vary "
        "too much to say whether the difference is 10% or more. More or longer repetitions narrow it (a survey's "
        "--budget; a run's or lesson's --repetitions and --min-time).");
    cell.disturbed = "the syscall run on CPUs 0 (same-pu)";
    EXPECT_EQ(machineVerdictWhy(cell),
        "Unclear: the syscall run on CPUs 0 (same-pu) was disturbed (other tasks or the hypervisor took its CPUs' "
        "time), so no conclusion is drawn from it.");
    cell.disturbed.clear();
    cell.low = cell.high = 1.05;
    EXPECT_EQ(machineVerdictWhy(cell),
        "Unclear: a side is one figure (a published one), which has no spread to judge a difference by.");
}

TEST(MachineCompare, AClassOneMachineLacksIsAbsent)
{
    const MachineCard a = cardOf("/tmp/two-packages.json", someRuns(), sysOf("6.1.0"));
    const MachineCard b = cardOf("/tmp/one-package.json", someRuns(1, false), sysOf("6.1.0"));
    const auto c = compareMachines({ a, b }, 0);
    ASSERT_TRUE(c);
    const MachineRow* cross = rowOf(*c, "pipe", BenchMode::Thread, Relation::CrossPackage);
    ASSERT_NE(cross, nullptr);
    EXPECT_TRUE(cross->cells[0].medianNs);
    EXPECT_FALSE(cross->cells[1].medianNs);
    EXPECT_FALSE(cross->cells[1].ratio);
    const std::string text = formatMachineComparison(*c, CompareFormat::Text);
    EXPECT_NE(text.find("absent"), std::string::npos) << text;
    EXPECT_EQ(c->labels, (std::vector<std::string> { "two-packages", "one-package" }));
}

TEST(MachineCompare, ListsTheContextFactsThatDiffer)
{
    SysInfo newer = sysOf("6.8.0");
    newer.mitigations["spectre_v2"] = "Vulnerable";
    newer.idleStates.push_back({ "C6", 133, false });
    newer.hypervisor = true;
    newer.hypervisorVendor = "KVM";
    newer.cpuDmaLatencyUs = 0; // a program held the CPUs shallow while b was measured
    SysInfo older = sysOf("6.1.0");
    older.cpuDmaLatencyUs = kNoCpuLatencyLimitUs;
    const MachineCard a = cardOf("/tmp/a.json", someRuns(), older);
    const MachineCard b = cardOf("/tmp/b.json", someRuns(), newer);
    const auto c = compareMachines({ a, b }, 0);
    ASSERT_TRUE(c);
    std::vector<std::string> what;
    for (const ContextDifference& d : c->differences)
        what.push_back(d.what);
    EXPECT_EQ(
        what, (std::vector<std::string> { "kernel", "mitigation spectre_v2", "idle states", "cpu_dma_latency", "VM" }));
    EXPECT_EQ(c->differences[0].values, (std::vector<std::string> { "6.1.0", "6.8.0" }));
    EXPECT_EQ(c->differences[2].values[1], "POLL 0 us, C1 2 us, C6 133 us");
    EXPECT_EQ(c->differences[3].values,
        (std::vector<std::string> {
            "none (no program limits it)", "0 us (a program holds every CPU in its shallowest idle state)" }));
    EXPECT_EQ(c->differences[4].values, (std::vector<std::string> { "bare metal", "VM (KVM)" }));
    const std::string text = formatMachineComparison(*c, CompareFormat::Text);
    EXPECT_NE(text.find("Context differences that can explain a difference:\n  kernel: a: 6.1.0; b: 6.8.0\n"),
        std::string::npos)
        << text;
}

TEST(MachineCompare, FormatsCarryTheSameTable)
{
    const MachineCard a = cardOf("/tmp/a.json", someRuns(), sysOf("6.1.0"));
    const MachineCard b = cardOf("/tmp/b.json", someRuns(2), sysOf("6.1.0"));
    const auto c = compareMachines({ a, b }, 0);
    ASSERT_TRUE(c);
    const std::string csv = formatMachineComparison(*c, CompareFormat::Csv);
    EXPECT_EQ(
        csv.rfind("benchmark,mode,relation,ws_bytes,machine,median_ns,ratio,ratio_low,ratio_high,verdict\n", 0), 0U);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 6 * 2);
    EXPECT_NE(csv.find("futex,thread,same-pu,0,b,4800.000,2.0000,"), std::string::npos) << csv;
    const std::string md = formatMachineComparison(*c, CompareFormat::Markdown);
    EXPECT_EQ(md.rfind("| benchmark | class | a | b | /a (95%) | verdict |\n| --- | --- | ---: |", 0), 0U) << md;
    const auto j = nlohmann::json::parse(formatMachineComparison(*c, CompareFormat::Json));
    EXPECT_EQ(j["machines"], nlohmann::json({ "a", "b" }));
    EXPECT_EQ(j["rows"].size(), 6U);
    EXPECT_EQ(j["rows"][1]["cells"][1]["verdict"], "matters");
    EXPECT_FALSE(compareFormatFromString("yaml"));
}

namespace {

// A survey card of the given version with one spin run on shared-l3 (its CPUs and line as given).
MachineCard surveyCardOf(const std::string& path, int version, std::vector<int> spinCpus,
    std::optional<SharedLine> line, const nlohmann::json& extra = nlohmann::json::object())
{
    auto runs = someRuns();
    RunResult spin = runOf("spin", BenchMode::Thread, Relation::SharedL3, 300);
    spin.placement.cpus = std::move(spinCpus);
    spin.line = std::move(line);
    runs.push_back(spin);
    const auto topology = Topology::loadSynthetic("pack:1 core:2 pu:1");
    nlohmann::json doc = makeReport(makeContext(sysOf("6.1.0"), *topology, ClockInfo {}), runs, false);
    doc["survey"] = extra;
    doc["survey"]["suite_version"] = version;
    auto card = machineCardFromText(doc.dump(), path);
    EXPECT_TRUE(card) << card.error().message;
    return *card;
}

const MachineFigure* figureOf(const MachineComparison& c, const std::string& what)
{
    for (const MachineFigure& f : c.figures)
        if (f.what == what)
            return &f;
    return nullptr;
}

} // namespace

TEST(MachineCompare, SurveyFiguresMatchByClassAndVersionOneCardsSaySo)
{
    TraceSummary trace;
    trace.ops = 1000;
    trace.nsPerOp = 6000;
    trace.handovers = 2000;
    // "in user space" twice with the same events: the wakee's side of 2,000 hand-overs, then the
    // waker's of 3. The figure is the one most hand-overs took.
    trace.segments = { { "IPI sent", "sched_waking", "ipi_send_cpu", true, 1200, 1500, 1250, 2000 },
        { "in user space", "sys_exit", "sys_enter", false, 800, 900, 820, 2000 },
        { "in user space", "sys_exit", "sys_enter", false, 24000, 30000, 25000, 3 },
        { "waiting behind cc1plus", "sched_waking", "sched_switch", true, 45000, 60000, 50000, 5 } };
    const nlohmann::json a {
        { "working_set",
            { { "points", { { { "ws_bytes", 4096 } }, { { "ws_bytes", 262144 } } } }, { "knee_bytes", 262144 } } },
        { "traced", { { { "relation", "shared-l3" }, { "cpus", { 0, 2 } }, { "trace", traceSummaryToJson(trace) } } } }
    };
    const nlohmann::json b { { "working_set",
        { { "points", { { { "ws_bytes", 4096 } }, { { "ws_bytes", 16777216 } } } }, { "knee_bytes", nullptr } } } };
    // Two machines of different shapes: the shared-l3 pair is CPUs 0,2 on one and 4,9 (node 1) on
    // the other; a version 1 card has no line and no figures.
    const MachineCard cardA = surveyCardOf("/tmp/a.json", 2, { 0, 2 }, SharedLine { 0, 0, 0, 0, "", { 0, 0 } }, a);
    const MachineCard cardB = surveyCardOf("/tmp/b.json", 2, { 4, 9 }, SharedLine { 0, 4, 1, 1, "", { 1, 1 } }, b);
    const MachineCard cardC = surveyCardOf("/tmp/c.json", 1, { 0, 1 }, std::nullopt);
    EXPECT_EQ(cardA.surveyVersion, 2);
    EXPECT_EQ(cardC.surveyVersion, 1);
    const auto c = compareMachines({ cardA, cardB, cardC }, 0);
    ASSERT_TRUE(c) << c.error().message;
    const MachineFigure* knee = figureOf(*c, "working-set knee (futex, one PU)");
    ASSERT_NE(knee, nullptr);
    EXPECT_EQ(knee->values, (std::vector<std::string> { "256 KiB", "none up to 16 MiB", "not in suite version 1" }));
    const MachineFigure* line = figureOf(*c, "spin line");
    ASSERT_NE(line, nullptr);
    EXPECT_EQ(line->relation, Relation::SharedL3);
    EXPECT_EQ(line->values[0], "line on node 0 (both tasks' node), first touched by task 0");
    EXPECT_EQ(line->values[1], "line on node 1 (both tasks' node), first touched by task 0");
    EXPECT_EQ(line->values[2].rfind("not reported (suite version 1", 0), 0U) << line->values[2];
    const MachineFigure* ipi = figureOf(*c, "segment IPI sent (sched_waking -> ipi_send_cpu)");
    ASSERT_NE(ipi, nullptr);
    EXPECT_EQ(ipi->relation, Relation::SharedL3);
    EXPECT_EQ(ipi->values, (std::vector<std::string> { formatDuration(1200), "not traced", "not in suite version 1" }));
    const MachineFigure* user = figureOf(*c, "segment in user space (sys_exit -> sys_enter)");
    ASSERT_NE(user, nullptr);
    EXPECT_EQ(user->values[0], formatDuration(800));
    // A way that under 1% of the hand-overs took says how few, here and in the survey's line.
    const MachineFigure* behind = figureOf(*c, "segment waiting behind cc1plus (sched_waking -> sched_switch)");
    ASSERT_NE(behind, nullptr);
    EXPECT_EQ(behind->values[0], formatDuration(45000) + " (5 of 2,000 hand-overs)");
    EXPECT_NE(segmentsText(trace).find("waiting behind cc1plus " + formatDuration(45000) + " (5 of 2,000 hand-overs)"),
        std::string::npos)
        << segmentsText(trace);
    EXPECT_NE(segmentsText(trace).find("IPI sent " + formatDuration(1200) + ";"), std::string::npos);
    const std::string text = formatMachineComparison(*c, CompareFormat::Text);
    EXPECT_NE(text.find("Survey figures, matched by relation class"), std::string::npos) << text;
    EXPECT_EQ(text.find("CPU 4"), std::string::npos) << text;
    const auto j = nlohmann::json::parse(formatMachineComparison(*c, CompareFormat::Json));
    EXPECT_EQ(j["figures"].size(), c->figures.size());
    EXPECT_EQ(j["figures"][0]["relation"], nullptr);
    // Cards without a version 2 survey have no figures at all.
    const auto old = compareMachines({ cardC, cardC }, 0);
    ASSERT_TRUE(old);
    EXPECT_TRUE(old->figures.empty());
    EXPECT_EQ(formatMachineComparison(*old, CompareFormat::Text).find("Survey figures"), std::string::npos);
}

TEST(MachineCompare, ReadsLessonFilesAndRefusesOtherJson)
{
    const nlohmann::json runs = makeReport(nlohmann::json::object(), someRuns(), false)["benchmarks"];
    const nlohmann::json lesson { { "id", "pinning" }, { "conclusion", "..." }, { "results", runs } };
    const auto card = machineCardFromText(lesson.dump(), "dir/lesson.json");
    ASSERT_TRUE(card) << card.error().message;
    EXPECT_EQ(card->kind, "lesson");
    EXPECT_FALSE(card->hasContext);
    EXPECT_EQ(card->label, "lesson");
    const auto other = machineCardFromText(R"({"version": 1, "runs": []})", "session.json");
    ASSERT_FALSE(other);
    EXPECT_EQ(other.error().message,
        "session.json: not a ctxscope results file or machine card (it has neither \"benchmarks\" with a "
        "\"context\" nor a lesson's \"results\")");
    EXPECT_FALSE(machineCardFromText("{\"context\": {", "cut.json"));
    EXPECT_FALSE(compareMachines({ *card }, 0));
}

TEST(MachineCompare, ArticleCardsHoldThePublishedFiguresWithTheirSource)
{
    const auto tsuna = articleCards("tsuna");
    ASSERT_EQ(tsuna.size(), 6U);
    const auto table = articleCards("2022");
    ASSERT_EQ(table.size(), 5U);
    EXPECT_EQ(articleCards("all").size(), 11U);
    EXPECT_TRUE(articleCards("other").empty());
    const MachineCard& x5550 = tsuna[3];
    EXPECT_EQ(x5550.label, "2010 Intel X5550");
    EXPECT_NE(x5550.source.find("tsunanet"), std::string::npos);
    // 52 ns/syscall; 1300 ns per process switch pinned on one core: a 2600 ns round trip.
    const auto c = compareMachines({ x5550, table[4] }, 0);
    ASSERT_TRUE(c);
    const MachineRow* syscall = rowOf(*c, "syscall", BenchMode::Thread, Relation::SamePu);
    ASSERT_NE(syscall, nullptr);
    EXPECT_DOUBLE_EQ(*syscall->cells[0].medianNs, 52);
    EXPECT_DOUBLE_EQ(*syscall->cells[1].medianNs, 121.6); // Kunpeng 920, CPU 0
    const MachineRow* pinned = rowOf(*c, "futex", BenchMode::Process, Relation::SamePu);
    ASSERT_NE(pinned, nullptr);
    EXPECT_DOUBLE_EQ(*pinned->cells[0].medianNs, 2600);
    EXPECT_DOUBLE_EQ(*pinned->cells[1].medianNs, 2798);
    // One figure has no spread: never a verdict.
    EXPECT_EQ(pinned->cells[1].verdict, MachineVerdict::Unclear);
    // tsuna has no unpinned thread figure; the 2022 table does.
    const MachineRow* freeThreads = rowOf(*c, "futex", BenchMode::Thread, Relation::Unpinned);
    ASSERT_NE(freeThreads, nullptr);
    EXPECT_FALSE(freeThreads->cells[0].medianNs);
    EXPECT_DOUBLE_EQ(*freeThreads->cells[1].medianNs, 2 * 2345.0);
    ASSERT_EQ(c->notes.size(), 2U);
    EXPECT_EQ(c->notes[0].rfind("Published figures (2010 Intel X5550), not measured here: tsuna", 0), 0U);
    std::vector<std::string> what;
    for (const ContextDifference& d : c->differences)
        what.push_back(d.what);
    // The Kunpeng's kernel is not published: beside the X5550's it is no difference.
    EXPECT_EQ(what, (std::vector<std::string> { "CPU" }));
}

namespace {

// A version 2 survey card whose futex runs take `futexScale` times the usual and whose shared-l3
// pair was traced: the wakee's CPU left `state` for `idleNs` in every hand-over.
MachineCard tracedSurveyCard(const std::string& path, double futexScale, const char* state, double idleNs)
{
    TraceSummary trace;
    trace.ops = 1000;
    trace.handovers = 2000;
    trace.segments = { { "IPI sent", "sched_waking", "ipi_send_cpu", true, 1200, 1500, 1250, 2000 },
        { "idle exit", "ipi_send_cpu", "cpu_idle", true, idleNs, idleNs, idleNs, 2000 },
        { "switch-in", "cpu_idle", "sched_switch", true, 800 * futexScale, 900, 850, 2000 } };
    trace.idleStates = { TraceIdleState { 1, state, std::nullopt, "", 2000, idleNs, idleNs } };
    const auto topology = Topology::loadSynthetic("pack:1 core:2 pu:1");
    nlohmann::json doc = makeReport(makeContext(sysOf("6.1.0"), *topology, ClockInfo {}), someRuns(futexScale), false);
    doc["survey"] = { { "suite_version", 2 },
        { "traced",
            { { { "relation", "shared-l3" }, { "cpus", { 0, 1 } }, { "trace", traceSummaryToJson(trace) } } } } };
    auto card = machineCardFromText(doc.dump(), path);
    EXPECT_TRUE(card) << card.error().message;
    return *card;
}

} // namespace

// Where a futex row matters and both machines traced its class, compare names the step that
// moved most; the idle exit as an idle-exit difference with the states left. A row that does
// not matter has no cause.
TEST(MachineCompare, ARowThatMattersNamesTheTracedStepThatMovedMost)
{
    const MachineCard a = tracedSurveyCard("/tmp/a.json", 1, "HLT", 2000);
    const MachineCard b = tracedSurveyCard("/tmp/b.json", 2, "C6", 9000);
    const auto c = compareMachines({ a, b }, 0);
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_EQ(c->causes.size(), 1U) << testing::PrintToString(c->causes);
    EXPECT_EQ(c->causes[0],
        "futex thread, shared-l3: 2.00 times as long on b as on a; of the traced hand-over's steps, idle exit "
        "(ipi_send_cpu -> cpu_idle) moved most: "
            + formatDuration(2000) + " on a, " + formatDuration(9000)
            + " on b: an idle-exit difference (the wakee's CPU left HLT on a, C6 on b).");
    EXPECT_NE(formatMachineComparison(*c, CompareFormat::Text).find("What moved in the traced hand-overs"),
        std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(formatMachineComparison(*c, CompareFormat::Json))["causes"].size(), 1U);

    // The switch-in moved most (the idle exit alike): named, not called an idle-exit difference.
    const MachineCard slowSwitch = tracedSurveyCard("/tmp/s.json", 8, "HLT", 2000);
    const auto s = compareMachines({ a, slowSwitch }, 0);
    ASSERT_TRUE(s);
    ASSERT_EQ(s->causes.size(), 1U);
    EXPECT_NE(s->causes[0].find("switch-in (cpu_idle -> sched_switch) moved most"), std::string::npos) << s->causes[0];
    EXPECT_EQ(s->causes[0].find("idle-exit difference"), std::string::npos) << s->causes[0];

    // The same machine twice: nothing matters, nothing to explain.
    const auto same = compareMachines({ a, a }, 0);
    ASSERT_TRUE(same);
    EXPECT_TRUE(same->causes.empty());
}

// Issue 44: a survey's traced segments get verdicts against the baseline, as the bars do. One
// traced run a side has no interval, so "matters" needs medians more than 10% apart with the
// larger beyond the smaller's p90 (a busy loop's 3 ms wait against a 30 µs switch-in), or a
// step one side took in at least 10% of its hand-overs and the other never; else "unclear".
TEST(MachineCompare, SurveySegmentsGetVerdictsAgainstTheBaseline)
{
    const auto cardWith = [](const std::string& path, std::vector<TraceSegment> segments) {
        TraceSummary trace;
        trace.ops = 1000;
        trace.nsPerOp = 60000;
        trace.handovers = 2000;
        trace.segments = std::move(segments);
        const nlohmann::json survey { { "traced",
            { { { "relation", "shared-l3" }, { "cpus", { 0, 1 } }, { "trace", traceSummaryToJson(trace) } } } } };
        return surveyCardOf(path, 2, { 0, 1 }, SharedLine { 0, 0, 0, 0, "", { 0, 0 } }, survey);
    };
    const MachineCard quiet = cardWith("/tmp/quiet.json",
        { { "switch-in", "ipi_send_cpu", "sched_switch", true, 29800, 41000, 31000, 2000 },
            { "IPI sent", "sched_waking", "ipi_send_cpu", true, 1200, 1500, 1250, 2000 },
            { "idle exit", "ipi_send_cpu", "cpu_idle", true, 5000, 9000, 6000, 1990 },
            { "waiting behind rcu_preempt", "sched_waking", "sched_switch", true, 42900, 42900, 42900, 1 } });
    const MachineCard busy = cardWith("/tmp/busy.json",
        { { "switch-in", "ipi_send_cpu", "sched_switch", true, 3'060'000, 3'900'000, 3'100'000, 1500 },
            { "IPI sent", "sched_waking", "ipi_send_cpu", true, 1300, 1600, 1350, 2000 },
            { "waiting behind python3", "sched_waking", "sched_switch", true, 2'380'000, 3'000'000, 2'400'000, 500 },
            { "preempting python3", "ipi_send_cpu", "sched_switch", true, 4000, 6000, 4500, 8 },
            { "waiting behind rcu_preempt", "sched_waking", "sched_switch", true, 13300, 13300, 13300, 400 } });
    const auto c = compareMachines({ quiet, busy }, 0);
    ASSERT_TRUE(c) << c.error().message;
    const auto verdictOf = [&](const std::string& what) {
        const MachineFigure* f = figureOf(*c, what);
        EXPECT_NE(f, nullptr) << what;
        return f ? std::pair(f->verdicts, f->whys)
                 : std::pair(std::vector<std::string> {}, std::vector<std::string> {});
    };
    // 3.06 ms against 29.8 µs, beyond its p90 of 41 µs.
    const auto [switchIn, switchWhy] = verdictOf("segment switch-in (ipi_send_cpu -> sched_switch)");
    EXPECT_EQ(switchIn, (std::vector<std::string> { "", "matters" }));
    EXPECT_NE(switchWhy[1].find("lies beyond quiet's p90"), std::string::npos) << switchWhy[1];
    // 1.3 against 1.2 µs: within 10%, and within the p90.
    const auto [ipi, ipiWhy] = verdictOf("segment IPI sent (sched_waking -> ipi_send_cpu)");
    EXPECT_EQ(ipi, (std::vector<std::string> { "", "unclear" }));
    EXPECT_NE(ipiWhy[1].find("no interval"), std::string::npos) << ipiWhy[1];
    // A step only one side took: 25% of busy's hand-overs, 99.5% of quiet's, and 0.4% of busy's.
    EXPECT_EQ(verdictOf("segment waiting behind python3 (sched_waking -> sched_switch)").first,
        (std::vector<std::string> { "", "matters" }));
    EXPECT_EQ(
        verdictOf("segment idle exit (ipi_send_cpu -> cpu_idle)").first, (std::vector<std::string> { "", "matters" }));
    const auto [rare, rareWhy] = verdictOf("segment preempting python3 (ipi_send_cpu -> sched_switch)");
    EXPECT_EQ(rare, (std::vector<std::string> { "", "unclear" }));
    EXPECT_NE(rareWhy[1].find("too few"), std::string::npos) << rareWhy[1];
    // Both sides took it, one of them in under 1% of its hand-overs: a median of a handful.
    const auto [few, fewWhy] = verdictOf("segment waiting behind rcu_preempt (sched_waking -> sched_switch)");
    EXPECT_EQ(few, (std::vector<std::string> { "", "unclear" }));
    EXPECT_NE(fewWhy[1].find("only 1 of the 2,000 hand-overs"), std::string::npos) << fewWhy[1];
    // The tables show the verdict beside the value; the JSON carries both and the sentence.
    const MachineFigure* f = figureOf(*c, "segment switch-in (ipi_send_cpu -> sched_switch)");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(figureValueText(*f, 1), f->values[1] + " · matters");
    EXPECT_EQ(figureValueText(*f, 0), f->values[0]);
    const std::string text = formatMachineComparison(*c, CompareFormat::Text);
    EXPECT_NE(text.find(f->values[1] + " · matters"), std::string::npos) << text;
    const auto j = nlohmann::json::parse(formatMachineComparison(*c, CompareFormat::Json));
    bool found = false;
    for (const auto& figure : j["figures"])
        if (figure["what"] == f->what) {
            found = true;
            EXPECT_EQ(figure["verdicts"][1], "matters");
            EXPECT_FALSE(figure["whys"][1].get<std::string>().empty());
        }
    EXPECT_TRUE(found);
}
