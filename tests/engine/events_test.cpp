// SPDX-License-Identifier: MIT
// Every worker event printed, parsed and printed again: the same bytes, the same kind, and
// the fields a controller uses intact. Lines the reader must refuse say why and how.
#include "ctxscope/events.h"
#include "ctxscope/protocol.h"
#include "sample_result.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>

using namespace ctxscope;
using namespace ctxscope::protocol;

namespace {

WorkingSetPoint samplePoint()
{
    WorkingSetPoint p;
    p.wsBytes = 65536;
    p.tasks = 2;
    p.switchesPerOp = 2;
    p.roundTrip = Quartiles { 3000, 3100, 3300 };
    p.touch = Quartiles { 400, 410, 430 };
    p.switchCostNs = 1140;
    p.switchCostLowNs = 1070;
    p.switchCostHighNs = 1240;
    p.warnings = { "the touch varies" };
    p.roundTripRun = test::sampleResult();
    p.roundTripRun.placement.cpus = { 0, 1 };
    p.roundTripRun.placement.relation = Relation::Smt;
    return p;
}

SweepResult sampleSweep()
{
    SweepResult s;
    s.spec.base.bench = "futex";
    s.spec.base.mode = BenchMode::Process;
    s.spec.pointsPerOctave = 2;
    s.placement = Placement { 2, { 0, 1 }, Relation::Smt, {} };
    s.plan.requestedTo = 1 << 20;
    s.plan.lastLevelCache = 1 << 18;
    s.plan.capped = true;
    s.caches = { CacheInfo { .level = 1, .size = 32768, .lineSize = 64, .pus = { 0 } },
        CacheInfo { .level = 3, .size = 1 << 18, .lineSize = 64, .pus = { 0, 1 } } };
    s.warnings = { "capped by memory" };
    s.points = { samplePoint(), samplePoint() };
    s.points[1].switchCostNs.reset();
    s.points[1].costNotPositive = true;
    return s;
}

MatrixResult sampleMatrix()
{
    MatrixResult m;
    m.bench = "pipe";
    m.matrixMode = MatrixMode::AllPairs;
    m.pus = { 0, 1 };
    m.cells = { MatrixCell { 0, 0, Relation::SamePu, 4000, 2000, true, 2000 },
        MatrixCell { 0, 1, Relation::Smt, 3000, std::nullopt, true, 1500 },
        MatrixCell { 1, 1, Relation::SamePu, 4000, 2000, false, 2000 } };
    m.failures = { "pair 1,1 was refused" };
    return m;
}

LessonResult sampleLesson()
{
    LessonResult l;
    l.id = "mode-switch";
    l.question = "What does entering the kernel cost?";
    l.steps = { LessonStep { "syscall", {} }, LessonStep { "vdso", {} } };
    l.failures = { "vdso: refused" };
    l.conclusion = { "A system call costs 100 ns here." };
    return l;
}

// A watching lesson (live-placement): its steps are phases, with notes.
LessonResult sampleWatchingLesson()
{
    LessonResult l;
    l.id = "live-placement";
    l.question = "What does re-pinning do?";
    l.steps = { LessonStep { "unpinned", {} }, LessonStep { "both threads on CPU 1", {} } };
    l.notes = { "This machine's allowed PUs pair in 1 class (shared-l3)." };
    l.phases = { LessonPhase { "unpinned", {}, std::nullopt, 4.02, "round trips", { 41000, 40500.5 }, { 82000, 81000 },
                     { 0.0021, 0.0019 }, 120.5, 3.5, true, { 0, 1 } },
        LessonPhase { "both threads on CPU 1", { 1, 1 }, Relation::SamePu, 4.01, "round trips", { 90000, 91000 },
            { 180000, 182000 }, {}, 2, 0, false, { 1 } } };
    l.conclusion = { "Pinned, the pair did more." };
    return l;
}

WatchSample sampleWatch()
{
    WatchSample s;
    s.pid = 1234;
    s.name = "server";
    s.kernel = true;
    s.seconds = 1.5;
    s.intervalS = 0.5;
    s.monoNs = 58'509'792'470'271;
    ThreadRates t;
    t.tid = 1240;
    t.name = "worker 1";
    t.state = 'S';
    t.cpu = 3;
    t.affinity = { 0, 1, 2, 3 };
    t.voluntaryPerS = 5120.5;
    t.involuntaryPerS = 12;
    t.cpuShare = 0.25;
    t.runqueueWaitPerS = 0.01;
    t.migrationsPerS = 4;
    s.threads.push_back(t);
    t.tid = 1241;
    t.cpu.reset();
    t.runqueueWaitPerS.reset();
    t.migrationsLowerBound = true;
    s.threads.push_back(t);
    s.appeared = { 1241 };
    s.ended = { { 1239, "old" } };
    s.systemSwitchesPerS = 24000;
    s.cpus = { { 0, 0.5 }, { 3, 1 } };
    return s;
}

ThreadSched sampleSched()
{
    ThreadSched s;
    s.switchIns = 40;
    s.unrecordedSwitchIns = 2;
    s.wake = WakeLatency { 38, 5200.5, 4096, 65536, 70000, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30, 6, 0, 0, 2 } };
    s.wakers = { SchedPeer { 1240, "worker 1", 30 }, SchedPeer { 0, "interrupt", 8 } };
    s.preemptors = { SchedPeer { 77, "kworker/1:0", 1 } };
    s.migrations = { SchedMigration { 0, 1, "shared-l3", 3 } };
    s.lostEvents = 5;
    return s;
}

// watch --trace: the same, each thread with its scheduler's view.
WatchSample sampleTracedWatch()
{
    WatchSample s = sampleWatch();
    for (ThreadRates& t : s.threads)
        t.sched = sampleSched();
    return s;
}

WatchSummary sampleWatchSummary()
{
    WatchSummary s;
    s.pid = 1234;
    s.name = "server";
    s.seconds = 10;
    s.samples = 20;
    s.ending = "process 1234 (server) ended";
    ThreadSummary t;
    t.tid = 1240;
    t.name = "worker 1";
    t.seconds = 10;
    t.voluntaryPerS = 5000;
    t.cpuShare = 0.2;
    t.runqueueWaitPerS = 0.02;
    t.migrationsPerS = 1.5;
    t.migrationsLowerBound = true;
    t.cpusSeen = { 0, 3 };
    t.affinity = { 0, 1, 2, 3 };
    t.ended = true;
    s.threads.push_back(t);
    t.tid = 1241;
    t.sched = sampleSched();
    s.threads.push_back(t);
    return s;
}

TraceSummary sampleTraceSummary()
{
    TraceSummary s;
    s.ops = 2000;
    s.nsPerOp = 41000.5;
    s.untracedNsPerOp = 38000;
    s.events = 26000;
    s.lostEvents = 3;
    s.losses = { TraceCpuLoss { 1, 3, 0, 3 } };
    s.handovers = 4000;
    s.segments = { TraceSegment { "IPI sent", "sched_waking", "ipi_send_cpu", true, 2100, 3900.5, 2400, 3990 },
        TraceSegment { "switch-in", "sched_waking", "sched_switch", false, 900, 1200, 950, 10 } };
    s.segmentNsPerOp = 39000;
    s.switchOuts = 4004;
    s.switchOutsPerOp = 2.002;
    s.rusageSwitchesPerOp = 2.001;
    s.notes = { "3 events were lost on CPU 1" };
    s.missingEvents = { "ipi_send_cpu" };
    s.tasks = { 4321, 4322 };
    s.cpus = { 0, 1 };
    s.targetStates = TraceTargetStates { 3000, 600, 390, 380, 10 };
    s.waitedBehind = { TraceOtherTask { 812, "busy", 1, 380, 1.5e9, false, false } };
    s.preempted = { TraceOtherTask { 900, "keep-awake", 1, 600, 0, false, true } };
    s.others = { TraceOtherTask { 812, "busy", 1, 0, 2.5e8, false, false } };
    s.cpuTime = { TraceCpuTime { 1, 5e8, 2.5e8, 1e6 } };
    s.keepAwakeTasks = { 900 };
    return s;
}

RunResult sampleTracedResult()
{
    RunResult r = test::sampleResult();
    r.trace = sampleTraceSummary();
    return r;
}

// Every kind of event, on two CPUs, with the largest values a field can hold.
Trace sampleTrace(std::size_t events)
{
    Trace t;
    for (std::size_t i = 0; i < events; ++i) {
        TraceEvent e;
        e.ns = 1'000'000'000'000ULL + i * 1700;
        e.cpu = static_cast<std::int32_t>(i % 2);
        e.kind = static_cast<TraceEventKind>(i % 15);
        e.pid = static_cast<std::int32_t>(4321 + i % 3);
        e.other = i % 7 == 0 ? -1 : static_cast<std::int32_t>(4321 + (i + 1) % 3);
        e.aux = static_cast<std::int32_t>(i % 2);
        e.value = i % 5 == 0 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(i);
        t.events.push_back(e);
    }
    t.comms = { { 4321, "ctxscope-cli" }, { 4322, "futex B" }, { 4323, "cc1plus" }, { 99, "absent" } };
    return t;
}

std::vector<Event> everyKind()
{
    ProgressEvent run = progressEvent(1, "measuring", 0.5);
    run.repetition = 2;
    run.repetitions = 5;
    ProgressEvent sweep = progressEvent(2, "touch", 0.25);
    sweep.point = 3;
    sweep.points = 12;
    sweep.wsBytes = 8192;
    ProgressEvent matrix = progressEvent(3, "measuring", 0.75);
    matrix.pair = 1;
    matrix.pairs = 3;
    matrix.cpus = std::pair(0, 1);
    ProgressEvent lesson = progressEvent(4, "futex thread, smt (0,1)", 1.0);
    lesson.step = 0;
    lesson.steps = 2;
    return {
        HelloEvent { kVersion, "1.2.3", 4242, "<topology/>", { { "host_name", "lab-3" } },
            { { "futex", "round trip", 2, 2, true }, { "ring", "one lap", 2, 4096, true } }, "tracing needs root",
            "BPF needs CAP_BPF" },
        run,
        sweep,
        matrix,
        lesson,
        SamplesEvent { 1, 2, 16384, { 812.5, 799, 1e6 } },
        ResultEvent { 1, test::sampleResult(), 0 },
        ResultEvent { 1,
            [] {
                RunResult r = test::sampleResult();
                r.samples.clear();
                return r;
            }(),
            3000 },
        ResultEvent { 1, sampleTracedResult(), 0 },
        TraceEventsEvent { 1, 8192, 20000, 26000, sampleTrace(30).events, sampleTrace(0).comms },
        SweepPointEvent { 2, 3, 12, samplePoint() },
        SweepResultEvent { 2, sampleSweep() },
        MatrixCellEvent { 3, 1, 3, sampleMatrix().cells[1], test::sampleResult(), {} },
        MatrixCellEvent { 3, 2, 3, std::nullopt, std::nullopt, "CPU 1 is outside the allowed set" },
        MatrixResultEvent { 3, sampleMatrix(), { "the reader shared a PU" }, 0 },
        LessonStepEvent { 4, 0, 2, "syscall", test::sampleResult(), {} },
        LessonStepEvent { 4, 1, 2, "vdso", std::nullopt, "refused" },
        LessonResultEvent { 4, sampleLesson(), { "shared" } },
        SurveyStepEvent { 11, 3, 20, "futex thread, one PU (CPU 0)", test::sampleResult() },
        SurveyResultEvent { 11,
            { { "suite_version", 1 }, { "budget_seconds", 100 }, { "cancelled", false },
                { "skipped", { { { "what", "the working-set knee" }, { "why", "not in this version" } } } } },
            { "the reader shared a PU" } },
        ProcessesEvent { 7, 1.0,
            { ProcessActivity { 1234, "server", 1000, true, false, 9, 5000.5, 12 },
                ProcessActivity { 2, "kthreadd", 0, false, true, 1, 0, 0 } } },
        WatchSampleEvent { 8, sampleWatch() },
        WatchSampleEvent { 8, sampleTracedWatch() },
        WatchDeltaEvent { 8, sampleTracedWatch(), { 1239 }, false },
        WatchSummaryEvent { 8, sampleWatchSummary() },
        PinnedEvent { 9, { PinChange { 1240, "worker 1", { 0, 1, 2, 3 }, { 2 } } } },
        LessonStepEvent { 10, 1, 3, "both threads on CPU 1", std::nullopt, {}, sampleWatchingLesson().phases[1] },
        LessonResultEvent { 10, sampleWatchingLesson(), {} },
        CancelledEvent { 5 },
        ErrorEvent { 6, "command 6 is still measuring" },
        ErrorEvent { std::nullopt, "not a JSON line" },
        ByeEvent {},
        // A condition's A/B (last, so the indices above stay): the side as is, then the condition's.
        ResultEvent { 12, test::sampleResult(), 0, true },
        ResultEvent { 12, test::sampleResult(), 0, false,
            ConditionAb { "keep-awake 0,1", 0.42, 0.4, 0.45, "matters",
                "With keep-awake 0,1, the futex op took 0.42x as long: it matters.",
                { "idle exit: 7.0 µs -> gone (0 of 9,812 hand-overs)" } } },
    };
}

Event parsed(const std::string& line)
{
    auto p = parseEvent(line);
    if (const auto* error = std::get_if<EventError>(&p)) {
        ADD_FAILURE() << error->message << " in " << line;
        return ByeEvent {};
    }
    return std::get<Event>(std::move(p));
}

} // namespace

TEST(Events, EveryKindPrintsParsesAndPrintsTheSameLine)
{
    std::set<std::size_t> kinds;
    for (const Event& event : everyKind()) {
        const std::string line = eventLine(event);
        const Event back = parsed(line);
        EXPECT_EQ(back.index(), event.index()) << line;
        EXPECT_EQ(eventLine(back), line);
        EXPECT_EQ(commandIdOf(back), commandIdOf(event)) << line;
        kinds.insert(event.index());
    }
    EXPECT_EQ(kinds.size(), std::variant_size_v<Event>) << "a kind of event is not covered";
}

TEST(Events, TheFieldsAControllerUsesComeBack)
{
    const auto events = everyKind();
    const auto hello = std::get<HelloEvent>(parsed(eventLine(events[0])));
    EXPECT_EQ(hello.protocol, kVersion);
    EXPECT_EQ(hello.ctxscopeVersion, "1.2.3");
    EXPECT_EQ(hello.pid, 4242);
    EXPECT_EQ(hello.context.at("host_name"), "lab-3");
    EXPECT_EQ(hello.hostName, "lab-3"); // read from the context
    ASSERT_EQ(hello.benchmarks.size(), 2U);
    EXPECT_EQ(hello.benchmarks[1].maxTasks, 4096);

    const auto samples = std::get<SamplesEvent>(parsed(eventLine(events[5])));
    EXPECT_EQ(samples.first, 16384U);
    EXPECT_EQ(samples.nsPerOp, (std::vector<double> { 812.5, 799, 1e6 }));

    const auto result = std::get<ResultEvent>(parsed(eventLine(events[6])));
    EXPECT_EQ(result.result.samples, test::sampleResult().samples);
    EXPECT_DOUBLE_EQ(*result.result.perSwitchNs, 1250.5);
    EXPECT_EQ(std::get<ResultEvent>(parsed(eventLine(events[7]))).samplesOmitted, 3000U);

    const auto sweep = std::get<SweepResultEvent>(parsed(eventLine(events[11]))).sweep;
    ASSERT_EQ(sweep.caches.size(), 2U);
    EXPECT_EQ(sweep.caches[1].pus, (std::vector<int> { 0, 1 }));
    ASSERT_EQ(sweep.points.size(), 2U);
    EXPECT_TRUE(sweep.points[1].costNotPositive);
    EXPECT_EQ(sweep.placement.relation, Relation::Smt);

    const auto failedPair = std::get<MatrixCellEvent>(parsed(eventLine(events[13])));
    EXPECT_FALSE(failedPair.cell);
    EXPECT_EQ(failedPair.error, "CPU 1 is outside the allowed set");
    const auto matrix = std::get<MatrixResultEvent>(parsed(eventLine(events[14])));
    EXPECT_EQ(matrix.matrix.cells.size(), 3U);
    EXPECT_EQ(matrix.matrix.matrixMode, MatrixMode::AllPairs);
    EXPECT_EQ(matrix.warnings, std::vector<std::string> { "the reader shared a PU" });

    const auto lesson = std::get<LessonResultEvent>(parsed(eventLine(events[17]))).lesson;
    ASSERT_EQ(lesson.steps.size(), 2U);
    EXPECT_EQ(lesson.steps[1].label, "vdso");
    EXPECT_EQ(lesson.conclusion, sampleLesson().conclusion);
}

TEST(Events, TheHelloSaysWhyTheWorkerMayNotTrace)
{
    const auto hello = std::get<HelloEvent>(parsed(eventLine(everyKind()[0])));
    EXPECT_EQ(hello.tracing, "tracing needs root");
    EXPECT_EQ(hello.bpf, "BPF needs CAP_BPF");
    // An older worker's hello has no "tracing": it reads as allowed, and the version check refuses it.
    EXPECT_EQ(std::get<HelloEvent>(parsed(R"({"type":"hello","protocol":3})")).tracing, "");
    EXPECT_EQ(std::get<HelloEvent>(parsed(R"({"type":"hello","protocol":3})")).bpf, "");
}

TEST(Events, ATracedRunsSegmentsComeBackInItsResult)
{
    const auto back = std::get<ResultEvent>(parsed(resultLine(3, sampleTracedResult()))).result;
    ASSERT_TRUE(back.trace);
    const TraceSummary& t = *back.trace;
    const TraceSummary sent = sampleTraceSummary();
    EXPECT_EQ(t.ops, sent.ops);
    EXPECT_EQ(t.nsPerOp, sent.nsPerOp);
    EXPECT_EQ(t.untracedNsPerOp, sent.untracedNsPerOp);
    EXPECT_EQ(t.lostEvents, 3U);
    ASSERT_EQ(t.losses.size(), 1U);
    EXPECT_EQ(t.losses[0].cpu, 1);
    ASSERT_EQ(t.segments.size(), 2U);
    EXPECT_EQ(t.segments[0].name, "IPI sent");
    EXPECT_EQ(t.segments[0].toEvent, "ipi_send_cpu");
    EXPECT_TRUE(t.segments[0].crossCpu);
    EXPECT_EQ(t.segments[0].p90Ns, 3900.5);
    EXPECT_EQ(t.segments[1].count, 10U);
    EXPECT_FALSE(t.segments[1].crossCpu);
    EXPECT_EQ(t.switchOuts, 4004U);
    EXPECT_EQ(t.rusageSwitchesPerOp, std::optional<double>(2.001));
    EXPECT_EQ(t.tasks, (std::vector<long> { 4321, 4322 }));
    EXPECT_EQ(t.notes, sent.notes);
    EXPECT_EQ(t.targetStates.idle, 3000U);
    EXPECT_EQ(t.targetStates.preempting, 600U);
    EXPECT_EQ(t.targetStates.waiting, 390U);
    EXPECT_EQ(t.targetStates.waitingBehindOthers, 380U);
    EXPECT_EQ(t.targetStates.unknown, 10U);
    ASSERT_EQ(t.waitedBehind.size(), 1U);
    EXPECT_EQ(t.waitedBehind[0].comm, "busy");
    EXPECT_EQ(t.waitedBehind[0].pid, 812);
    EXPECT_EQ(t.waitedBehind[0].ns, 1.5e9);
    EXPECT_EQ(t.waitedBehind[0].handovers, 380U);
    ASSERT_EQ(t.preempted.size(), 1U);
    EXPECT_TRUE(t.preempted[0].keepAwake);
    ASSERT_EQ(t.others.size(), 1U);
    EXPECT_EQ(t.others[0].cpu, 1);
    ASSERT_EQ(t.cpuTime.size(), 1U);
    EXPECT_EQ(t.cpuTime[0].otherNs, 2.5e8);
    EXPECT_EQ(t.cpuTime[0].keepAwakeNs, 1e6);
    EXPECT_EQ(t.keepAwakeTasks, (std::vector<long> { 900 }));
    // An untraced result has no trace block at all.
    EXPECT_FALSE(std::get<ResultEvent>(parsed(resultLine(3, test::sampleResult()))).result.trace);
    EXPECT_EQ(resultLine(3, test::sampleResult()).find("\"trace\""), std::string::npos);
}

// A traced run's window of events, cut into lines the reader takes, comes back whole and in
// order: every field of every event, and the names of the tasks it mentions.
TEST(Events, ATracedRunsEventsComeBackWholeAcrossLines)
{
    const Trace trace = sampleTrace(50'000);
    const std::size_t window = 20'000;
    const auto lines = traceEventsLines(5, trace, window);
    ASSERT_GE(lines.size(), 3U) << "20,000 events take more than one line";
    std::vector<TraceEvent> back;
    for (const std::string& line : lines) {
        EXPECT_LE(line.size(), kMaxLineBytes);
        const auto part = std::get<TraceEventsEvent>(parsed(line));
        EXPECT_EQ(part.id, 5U);
        EXPECT_EQ(part.first, back.size());
        EXPECT_EQ(part.window, window);
        EXPECT_EQ(part.recorded, 50'000U);
        EXPECT_EQ(part.comms.count(4322), 1U);
        EXPECT_EQ(part.comms.count(99), 0U) << "a task no event of the line mentions";
        back.insert(back.end(), part.events.begin(), part.events.end());
    }
    ASSERT_EQ(back.size(), window);
    for (std::size_t i = 0; i < window; ++i) {
        const TraceEvent& want = trace.events[trace.events.size() - window + i];
        ASSERT_EQ(back[i].ns, want.ns) << i;
        ASSERT_EQ(back[i].cpu, want.cpu) << i;
        ASSERT_EQ(back[i].kind, want.kind) << i;
        ASSERT_EQ(back[i].pid, want.pid) << i;
        ASSERT_EQ(back[i].other, want.other) << i;
        ASSERT_EQ(back[i].aux, want.aux) << i;
        ASSERT_EQ(back[i].value, want.value) << i;
    }
    EXPECT_TRUE(traceEventsLines(5, Trace {}, window).empty());
    EXPECT_EQ(traceEventsLines(5, trace, 10).size(), 1U);
}

TEST(Events, MalformedTraceEventsSayWhy)
{
    const std::string head = R"({"type":"trace_events","id":1,"first":0,"window":1,"recorded":1,"t0_ns":5,)";
    const std::string kinds = R"("kinds":["sched_switch"],)";
    const std::string one = R"("cpu":[0],"kind":[0],"pid":[1],"other":[2],"aux":[-1],"value":[0],"comms":{}})";
    const std::pair<std::string, std::string_view> cases[] = {
        { head + R"("kinds":["sched_dance"],"dt_ns":[0],)" + one, "does not know" },
        { head + kinds + R"("dt_ns":[0,1],)" + one, "holds 1 values, not 2" },
        { head + kinds + R"("dt_ns":[-1],)" + one, "dt_ns' should hold whole numbers" },
        { head + R"("kinds":["sched_switch"],"dt_ns":[0],"cpu":[0],"kind":[1],"pid":[1],"other":[2],"aux":[-1],"value":[0],"comms":{}})",
            "kind' should hold whole numbers from 0 to 0" },
        { head + kinds
                + R"("dt_ns":[0],"cpu":[0],"kind":[0],"pid":[1],"other":[2],"aux":[-1],"value":[0],"comms":{"x":"a"}})",
            "comms' should map task ids to names" },
    };
    for (const auto& [line, why] : cases) {
        const auto p = parseEvent(line);
        const auto* error = std::get_if<EventError>(&p);
        ASSERT_NE(error, nullptr) << line;
        EXPECT_EQ(error->kind, EventError::Kind::Malformed) << line;
        EXPECT_EQ(error->lost, "trace events") << line;
        EXPECT_NE(error->message.find(why), std::string::npos) << line << " -> " << error->message;
    }
}

TEST(Events, WatchingLessonPhasesComeBackWhole)
{
    const LessonResult sent = sampleWatchingLesson();
    const auto step = std::get<LessonStepEvent>(
        parsed(eventLine(LessonStepEvent { 10, 0, 2, "unpinned", std::nullopt, {}, sent.phases[0] })));
    ASSERT_TRUE(step.phase);
    EXPECT_FALSE(step.result);
    EXPECT_EQ(step.phase->workPerS, sent.phases[0].workPerS);
    EXPECT_EQ(step.phase->runqueueWaitPerS, sent.phases[0].runqueueWaitPerS);
    EXPECT_FALSE(step.phase->relation);
    EXPECT_TRUE(step.phase->migrationsLowerBound);
    const auto lesson = std::get<LessonResultEvent>(parsed(eventLine(LessonResultEvent { 10, sent, {} }))).lesson;
    EXPECT_EQ(lesson.notes, sent.notes);
    ASSERT_EQ(lesson.phases.size(), 2U);
    EXPECT_EQ(lesson.phases[1].cpus, (std::vector<int> { 1, 1 }));
    EXPECT_EQ(lesson.phases[1].relation, Relation::SamePu);
    EXPECT_TRUE(lesson.phases[1].runqueueWaitPerS.empty());
    EXPECT_EQ(lesson.phases[1].cpusSeen, std::vector<int> { 1 });
    EXPECT_EQ(lesson.phases[1].unit, "round trips");
    // A phase with an unknown relation class is refused with where it was.
    const std::string bad = R"({"type":"lesson_step","id":1,"step":0,"steps":1,"label":"x","phase":{"label":"x",)"
                            R"("cpus":[],"relation":"far","seconds":1,"unit":"u","work_per_s":[],"switches_per_s":[],)"
                            R"("runqueue_wait_per_s":[],"involuntary_per_s":0,"migrations_per_s":0,)"
                            R"("migrations_lower_bound":false,"cpus_seen":[]}})";
    const auto refused = parseEvent(bad);
    ASSERT_TRUE(std::holds_alternative<EventError>(refused));
    EXPECT_NE(std::get<EventError>(refused).message.find("relation"), std::string::npos);
}

TEST(Events, RunningProgramsComeBackWhole)
{
    const auto watch = std::get<WatchSampleEvent>(parsed(eventLine(WatchSampleEvent { 8, sampleWatch() })));
    EXPECT_EQ(watch.id, 8U);
    EXPECT_TRUE(watch.sample.kernel);
    EXPECT_EQ(watch.sample.monoNs, 58'509'792'470'271U) << "the clock a traced watch's events share";
    ASSERT_EQ(watch.sample.threads.size(), 2U);
    const ThreadRates& t = watch.sample.threads[0];
    EXPECT_EQ(t.name, "worker 1");
    EXPECT_EQ(t.state, 'S');
    EXPECT_EQ(t.cpu, 3);
    EXPECT_EQ(t.affinity, (std::vector<int> { 0, 1, 2, 3 }));
    EXPECT_DOUBLE_EQ(t.voluntaryPerS, 5120.5);
    EXPECT_EQ(t.runqueueWaitPerS, std::optional<double>(0.01));
    EXPECT_FALSE(watch.sample.threads[1].cpu.has_value());
    EXPECT_FALSE(watch.sample.threads[1].runqueueWaitPerS.has_value());
    EXPECT_TRUE(watch.sample.threads[1].migrationsLowerBound);
    EXPECT_EQ(watch.sample.appeared, std::vector<long> { 1241 });
    ASSERT_EQ(watch.sample.ended.size(), 1U);
    EXPECT_EQ(watch.sample.ended[0].name, "old");
    EXPECT_EQ(watch.sample.systemSwitchesPerS, std::optional<double>(24000));
    ASSERT_EQ(watch.sample.cpus.size(), 2U);
    EXPECT_EQ(watch.sample.cpus[1].cpu, 3);

    const auto summary = std::get<WatchSummaryEvent>(parsed(eventLine(WatchSummaryEvent { 8, sampleWatchSummary() })));
    EXPECT_EQ(summary.summary.ending, "process 1234 (server) ended");
    ASSERT_EQ(summary.summary.threads.size(), 2U);
    EXPECT_EQ(summary.summary.threads[0].cpusSeen, (std::vector<int> { 0, 3 }));
    EXPECT_TRUE(summary.summary.threads[0].ended);

    // watch --trace: each thread's scheduler figures.
    const auto traced = std::get<WatchSampleEvent>(parsed(eventLine(WatchSampleEvent { 8, sampleTracedWatch() })));
    ASSERT_TRUE(traced.sample.threads[1].sched);
    const ThreadSched& sched = *traced.sample.threads[1].sched;
    EXPECT_EQ(sched.switchIns, 40U);
    EXPECT_EQ(sched.wake.p99Ns, 65536);
    EXPECT_EQ(sched.wake.log2Hist, sampleSched().wake.log2Hist);
    ASSERT_EQ(sched.wakers.size(), 2U);
    EXPECT_EQ(sched.wakers[1].name, "interrupt");
    ASSERT_EQ(sched.migrations.size(), 1U);
    EXPECT_EQ(sched.migrations[0].relation, "shared-l3");
    EXPECT_FALSE(watch.sample.threads[0].sched) << "an untraced watch has no sched block";
    EXPECT_EQ(traced.sample.backendFallback, "") << "no fallback: the line has none";
    // A default watch that could not use BPF says why, in watch_sample and in watch_delta.
    WatchSample fellBack = sampleTracedWatch();
    fellBack.backend = SchedBackend::Ftrace;
    fellBack.backendFallback = "the kernel refused the BPF programs: Permission denied";
    const std::string fellBackLine = eventLine(WatchSampleEvent { 8, fellBack });
    EXPECT_NE(fellBackLine.find(R"("backend_fallback":"the kernel refused)"), std::string::npos) << fellBackLine;
    const auto read = std::get<WatchSampleEvent>(parsed(fellBackLine));
    EXPECT_EQ(read.sample.backend, SchedBackend::Ftrace);
    EXPECT_EQ(read.sample.backendFallback, fellBack.backendFallback);
    const auto delta = std::get<WatchDeltaEvent>(parsed(eventLine(WatchDeltaEvent { 8, fellBack, {}, false })));
    EXPECT_EQ(delta.sample.backendFallback, fellBack.backendFallback);
    ASSERT_TRUE(summary.summary.threads[1].sched);
    EXPECT_EQ(summary.summary.threads[1].sched->preemptors[0].tid, 77);

    const auto pinned = std::get<PinnedEvent>(parsed(eventLine(PinnedEvent { 9, { { 1240, "w", { 0, 1 }, { 1 } } } })));
    ASSERT_EQ(pinned.changes.size(), 1U);
    EXPECT_EQ(pinned.changes[0].before, (std::vector<int> { 0, 1 }));
    EXPECT_EQ(pinned.changes[0].after, std::vector<int> { 1 });
}

TEST(Events, MalformedRunningProgramMessagesSayWhy)
{
    const std::pair<std::string_view, std::string_view> cases[] = {
        { R"({"type":"processes","id":1,"interval_s":1})", "missing field 'processes'" },
        { R"({"type":"processes","id":1,"interval_s":1,"processes":[{"pid":1}]})", "missing field 'processes.name'" },
        { R"({"type":"processes","id":1,"interval_s":1,"processes":[3]})", "processes is not a JSON object" },
        { R"({"type":"watch_sample","id":1,"pid":1,"name":"x","seconds":1,"interval_s":1,"threads":[],"appeared":[],"ended":[]})",
            "missing field 'system'" },
        { R"({"type":"watch_sample","id":1,"pid":1,"name":"x","seconds":1,"interval_s":1,"threads":[{"tid":1,"name":"a","state":"SS"}],"appeared":[],"ended":[],"system":{"cpus":[]}})",
            "threads.state' should be one letter" },
        { R"({"type":"watch_sample","id":1,"pid":1,"name":"x","seconds":1,"interval_s":1,"threads":[],"appeared":[-1],"ended":[],"system":{"cpus":[]}})",
            "'appeared' should hold thread ids" },
        { R"({"type":"watch_summary","id":1,"pid":1,"name":"x","seconds":1,"samples":1,"threads":[{"tid":1,"name":"a","seconds":1,"voluntary_per_s":-1}]})",
            "voluntary_per_s' should not be negative" },
        { R"({"type":"pinned","id":1,"changes":[{"tid":1,"name":"a","before":"0-x","after":"1"}]})",
            "changes.before' should be a CPU list" },
    };
    for (const auto& [line, why] : cases) {
        const auto p = parseEvent(line);
        const auto* error = std::get_if<EventError>(&p);
        ASSERT_NE(error, nullptr) << line;
        EXPECT_EQ(error->kind, EventError::Kind::Malformed) << line;
        EXPECT_NE(error->message.find(why), std::string::npos) << line << " -> " << error->message;
    }
}

TEST(Events, TheWorkerLinesAreTheEventsLines)
{
    // The worker writes through the events: its line functions give the same bytes.
    const RunResult r = test::sampleResult();
    EXPECT_EQ(resultLine(7, r), eventLine(ResultEvent { 7, r, 0 }));
    EXPECT_EQ(cancelledLine(7), R"({"id":7,"type":"cancelled"})");
    EXPECT_EQ(byeLine(), R"({"type":"bye"})");
    EXPECT_EQ(errorLine(std::nullopt, "bad"), R"({"id":null,"message":"bad","type":"error"})");
    EXPECT_EQ(progressLine(1, Progress { "measuring", 1, 3, 0.5 }),
        R"({"fraction":0.5,"id":1,"repetition":1,"repetitions":3,"stage":"measuring","type":"progress"})");
}

TEST(Events, LinesThatAreNoEventSayWhy)
{
    const auto error = [](std::string_view line) { return std::get<EventError>(parseEvent(line)); };
    EXPECT_EQ(error("garbage {").kind, EventError::Kind::NotAMessage);
    const EventError unknown = error(R"({"type":"dance","id":3})");
    EXPECT_EQ(unknown.kind, EventError::Kind::UnknownType);
    EXPECT_EQ(unknown.type, "dance");
    EXPECT_EQ(unknown.id, 3U);
    const EventError samples = error(R"({"type":"samples","id":1,"ns_per_op":"many"})");
    EXPECT_EQ(samples.kind, EventError::Kind::Malformed);
    EXPECT_TRUE(samples.lost.empty()) << "bad samples do not end a run";
    EXPECT_NE(samples.message.find("ns_per_op"), std::string::npos) << samples.message;
    const EventError result = error(R"({"type":"result","id":1,"result":{"bench":"futex"}})");
    EXPECT_EQ(result.kind, EventError::Kind::Malformed);
    EXPECT_EQ(result.lost, "result");
    EXPECT_EQ(result.id, 1U);
    EXPECT_EQ(error(R"({"type":"sweep_point","id":2,"index":0,"points":1,"point":{}})").lost, "sweep point");
    EXPECT_EQ(error(R"({"type":"progress","id":1,"cpus":[0]})").kind, EventError::Kind::Malformed);
    // A survey's run or its end that cannot be read fails the survey: waiting would wait for ever.
    EXPECT_EQ(
        error(R"({"type":"survey_step","id":2,"step":0,"steps":1,"label":"syscall","result":{}})").lost, "survey run");
    EXPECT_EQ(error(R"({"type":"survey_result","id":2,"survey":[1]})").lost, "survey");
    // A hello from another version still parses, so the version check can explain.
    const auto old = std::get<HelloEvent>(std::get<Event>(parseEvent(R"({"type":"hello","protocol":1})")));
    EXPECT_EQ(old.protocol, 1);
    EXPECT_EQ(old.ctxscopeVersion, "?");
}

namespace {

// The rows of docs/protocol.md's message table for one direction ("| worker → |" or "| → worker |").
std::vector<std::string> protocolDocRows(const std::string& direction)
{
    std::ifstream in(std::string(ctxscope::test::docsDir()) + "/protocol.md");
    EXPECT_TRUE(in) << ctxscope::test::docsDir() << "/protocol.md cannot be read";
    std::vector<std::string> rows;
    for (std::string line; std::getline(in, line);)
        if (line.rfind(direction, 0) == 0)
            rows.push_back(line);
    return rows;
}

bool documented(const std::vector<std::string>& rows, const std::string& type)
{
    return std::any_of(rows.begin(), rows.end(), [&](const std::string& row) {
        return row.find("| `" + type + "`") != std::string::npos || row.find("/ `" + type + "`") != std::string::npos;
    });
}

} // namespace

// docs/protocol.md is the one description of the stream: every message the engine writes and
// every command it reads has a row there, so the two cannot drift apart.
TEST(Events, EveryMessageTypeIsDocumented)
{
    const auto fromWorker = protocolDocRows("| worker → |");
    ASSERT_FALSE(fromWorker.empty());
    for (const Event& event : everyKind()) {
        const std::string type = nlohmann::json::parse(eventLine(event)).at("type").get<std::string>();
        EXPECT_TRUE(documented(fromWorker, type)) << "docs/protocol.md has no 'worker →' row for `" << type << "`";
    }
    const auto toWorker = protocolDocRows("| → worker |");
    ASSERT_FALSE(toWorker.empty());
    const std::vector<Command> commands { RunCommand { 1, {} }, SweepCommand { 2, {} },
        MatrixCommand { 3, "futex", BenchMode::Thread, MatrixMode::Classes, RunBudget {} },
        LessonCommand { 4, "mode-switch", RunBudget {} }, SurveyCommand { 9, 20 }, ProcessesCommand { 6, 1.0 },
        WatchCommand { 7, 1234, 0.5, 0 }, PinCommand { 8, 1240, false, { 0 } }, CancelCommand { 5 }, QuitCommand {},
        WatchFocusCommand { 7, { 1240 }, false } };
    for (const Command& command : commands) {
        const std::string type = nlohmann::json::parse(commandLine(command)).at("type").get<std::string>();
        EXPECT_TRUE(documented(toWorker, type)) << "docs/protocol.md has no '→ worker' row for `" << type << "`";
    }
}

TEST(Events, AConditionsAbSidesComeBack)
{
    const auto events = everyKind();
    const auto asIs = std::get<ResultEvent>(parsed(eventLine(events[events.size() - 2])));
    EXPECT_TRUE(asIs.asIs);
    EXPECT_FALSE(asIs.ab);
    const auto with = std::get<ResultEvent>(parsed(eventLine(events.back())));
    EXPECT_FALSE(with.asIs);
    ASSERT_TRUE(with.ab);
    EXPECT_EQ(with.ab->condition, "keep-awake 0,1");
    EXPECT_DOUBLE_EQ(with.ab->ratio, 0.42);
    EXPECT_EQ(with.ab->verdict, "matters");
    EXPECT_EQ(with.ab->movedSteps.size(), 1U);
    const auto plain = std::get<ResultEvent>(parsed(eventLine(events[6])));
    EXPECT_FALSE(plain.asIs);
    EXPECT_FALSE(plain.ab);
    nlohmann::json line = nlohmann::json::parse(eventLine(events[6]));
    line["ab"] = { { "side", "before" } };
    const auto bad = parseEvent(line.dump());
    ASSERT_TRUE(std::holds_alternative<EventError>(bad));
    EXPECT_NE(std::get<EventError>(bad).message.find("'ab.side'"), std::string::npos)
        << std::get<EventError>(bad).message;
}
