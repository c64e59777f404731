// SPDX-License-Identifier: MIT
#include "ctxscope/protocol.h"
#include "ctxscope/thread_affinity.h"
#include "ctxscope/worker.h"

#include "worker_transcript.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace ctxscope;
using namespace ctxscope::protocol;
using ctxscope::test::Transcript;
using nlohmann::json;

TEST(Protocol, SpecRoundTripsThroughJson)
{
    BenchSpec spec;
    spec.bench = "ring";
    spec.mode = BenchMode::Process;
    spec.cpus = { 0, 1, 0 };
    spec.tasks = 3;
    spec.iterations = 500;
    spec.repetitions = 4;
    spec.policy = SchedPolicy::Fifo;
    const std::string line = commandLine(RunCommand { 7, spec });
    auto cmd = parseCommand(line);
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    const auto& run = std::get<RunCommand>(*cmd);
    EXPECT_EQ(run.id, 7U);
    EXPECT_EQ(run.spec.bench, "ring");
    EXPECT_EQ(run.spec.mode, BenchMode::Process);
    EXPECT_EQ(run.spec.cpus, spec.cpus);
    EXPECT_EQ(run.spec.tasks, 3);
    EXPECT_EQ(run.spec.iterations, 500U);
    EXPECT_EQ(run.spec.policy, SchedPolicy::Fifo);
}

TEST(Protocol, SpinTimeRoundTripsAndIsLeftOutWhenNotGiven)
{
    BenchSpec spec;
    spec.bench = "spin-futex";
    spec.cpus = { 0, 1 };
    spec.spinNs = 500;
    auto cmd = parseCommand(commandLine(RunCommand { 3, spec }));
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    EXPECT_EQ(std::get<RunCommand>(*cmd).spec.spinNs, 500U);
    spec.bench = "spin";
    spec.spinNs.reset();
    const std::string line = commandLine(RunCommand { 4, spec });
    EXPECT_EQ(line.find("spin_ns"), std::string::npos) << line;
    auto plain = parseCommand(line);
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_FALSE(std::get<RunCommand>(*plain).spec.spinNs.has_value());
}

TEST(Protocol, AnAllPairsMatrixWithoutATimeStartsWithShortRuns)
{
    auto cmd = parseCommand(R"({"type":"matrix","id":2,"bench":"spin","fill":"all-pairs"})");
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    const auto& m = std::get<MatrixCommand>(*cmd);
    EXPECT_EQ(m.bench, "spin");
    EXPECT_EQ(m.fill, MatrixMode::AllPairs);
    EXPECT_DOUBLE_EQ(m.options.minTimeSeconds, kAllPairsMinTimeSeconds);
}

TEST(Protocol, GarbageGetsAMessageNeverACrash)
{
    for (std::string_view bad : { "", "not json", "[1,2]", "{\"type\": 3}", "{\"type\":\"run\"}",
             "{\"type\":\"run\",\"id\":-1,\"spec\":{\"bench\":\"futex\"}}", "{\"type\":\"run\",\"id\":1}",
             "{\"type\":\"run\",\"id\":1,\"spec\":{\"bench\":\"futex\",\"mode\":\"fiber\"}}",
             "{\"type\":\"run\",\"id\":1,\"spec\":{\"bench\":\"futex\",\"cpus\":[\"zero\"]}}", "{\"type\":\"cancel\"}",
             "{\"type\":\"dance\"}", "{\"type\":\"run\",\"id\":1,\"spec\":[]}" }) {
        auto cmd = parseCommand(bad);
        ASSERT_FALSE(cmd.ok()) << bad;
        EXPECT_FALSE(cmd.error().message.empty()) << bad;
    }
    EXPECT_FALSE(parseCommand(std::string(kMaxLineBytes + 1, ' ')).ok());
}

TEST(Protocol, SweepMatrixAndLessonCommandsRoundTrip)
{
    SweepCommand sweep { 5, {} };
    sweep.spec.base.bench = "pipe";
    sweep.spec.base.cpus = { 1, 0 };
    sweep.spec.base.wsBytes = 8192; // ignored by a sweep, but a spec carries it
    sweep.spec.fromBytes = 4096;
    sweep.spec.toBytes = 1U << 20;
    sweep.spec.pointsPerOctave = 2;
    auto s = parseCommand(commandLine(sweep));
    ASSERT_TRUE(s.ok()) << s.error().message;
    const auto& sc = std::get<SweepCommand>(*s);
    EXPECT_EQ(sc.id, 5U);
    EXPECT_EQ(sc.spec.base.bench, "pipe");
    EXPECT_EQ(sc.spec.base.cpus, (std::vector<int> { 1, 0 }));
    EXPECT_EQ(sc.spec.base.wsBytes, 8192U);
    EXPECT_EQ(sc.spec.fromBytes, 4096U);
    EXPECT_EQ(sc.spec.toBytes, std::optional<std::uint64_t>(1U << 20));
    EXPECT_EQ(sc.spec.pointsPerOctave, 2);

    // to_bytes left out: the engine picks the end from the caches.
    auto open = parseCommand(R"({"type":"sweep","id":6,"spec":{"bench":"futex"}})");
    ASSERT_TRUE(open.ok()) << open.error().message;
    EXPECT_FALSE(std::get<SweepCommand>(*open).spec.toBytes);
    EXPECT_EQ(std::get<SweepCommand>(*open).spec.fromBytes, 0U);

    auto m = parseCommand(
        commandLine(MatrixCommand { 7, "yield", BenchMode::Process, MatrixMode::AllPairs, RunBudget { 0.02, 2 } }));
    ASSERT_TRUE(m.ok()) << m.error().message;
    const auto& mc = std::get<MatrixCommand>(*m);
    EXPECT_EQ(mc.id, 7U);
    EXPECT_EQ(mc.bench, "yield");
    EXPECT_EQ(mc.mode, BenchMode::Process);
    EXPECT_EQ(mc.fill, MatrixMode::AllPairs);
    EXPECT_DOUBLE_EQ(mc.options.minTimeSeconds, 0.02);
    EXPECT_EQ(mc.options.repetitions, 2);
    auto defaults = parseCommand(R"({"type":"matrix","id":8,"bench":"futex"})");
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_EQ(std::get<MatrixCommand>(*defaults).fill, MatrixMode::Classes);
    EXPECT_EQ(std::get<MatrixCommand>(*defaults).mode, BenchMode::Thread);

    auto l = parseCommand(commandLine(LessonCommand { 9, "pinning", RunBudget { 0.05, 4, 2.5 } }));
    ASSERT_TRUE(l.ok()) << l.error().message;
    const auto& lc = std::get<LessonCommand>(*l);
    EXPECT_EQ(lc.id, 9U);
    EXPECT_EQ(lc.lesson, "pinning");
    EXPECT_DOUBLE_EQ(lc.options.minTimeSeconds, 0.05);
    EXPECT_EQ(lc.options.repetitions, 4);
    EXPECT_DOUBLE_EQ(lc.options.phaseSeconds, 2.5);
}

TEST(Protocol, TheSurveyCommandRoundTripsWithItsBudgetChecked)
{
    auto s = parseCommand(commandLine(SurveyCommand { 12, 7.5 }));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(std::get<SurveyCommand>(*s).id, 12U);
    EXPECT_DOUBLE_EQ(std::get<SurveyCommand>(*s).budgetSeconds, 7.5);
    auto defaults = parseCommand(R"({"type":"survey","id":13})");
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_DOUBLE_EQ(std::get<SurveyCommand>(*defaults).budgetSeconds, kSurveySeconds);
    for (const char* line :
        { R"({"type":"survey","id":14,"budget":0.5})", R"({"type":"survey","id":14,"budget":4000})" }) {
        auto refused = parseCommand(line);
        ASSERT_FALSE(refused.ok()) << line;
        EXPECT_NE(refused.error().message.find("'budget' should be between 1 and 3600 seconds"), std::string::npos)
            << refused.error().message;
    }
    auto text = parseCommand(R"({"type":"survey","id":15,"budget":"long"})");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().message.find("bad survey message"), std::string::npos) << text.error().message;
}

TEST(Protocol, RunningProgramCommandsRoundTrip)
{
    auto p = parseCommand(commandLine(ProcessesCommand { 3, 0.5 }));
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_DOUBLE_EQ(std::get<ProcessesCommand>(*p).seconds, 0.5);
    auto w = parseCommand(commandLine(WatchCommand { 4, 1234, 0.25, 10 }));
    ASSERT_TRUE(w.ok()) << w.error().message;
    const auto& wc = std::get<WatchCommand>(*w);
    EXPECT_EQ(wc.id, 4U);
    EXPECT_EQ(wc.pid, 1234);
    EXPECT_DOUBLE_EQ(wc.interval, 0.25);
    EXPECT_DOUBLE_EQ(wc.duration, 10);
    auto defaults = parseCommand(R"({"type":"watch","id":5,"pid":77})");
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_DOUBLE_EQ(std::get<WatchCommand>(*defaults).interval, 0.5);
    EXPECT_DOUBLE_EQ(std::get<WatchCommand>(*defaults).duration, 0);
    for (const bool process : { false, true }) {
        auto pin = parseCommand(commandLine(PinCommand { 6, 1240, process, { 0, 2 } }));
        ASSERT_TRUE(pin.ok()) << pin.error().message;
        const auto& pc = std::get<PinCommand>(*pin);
        EXPECT_EQ(pc.target, 1240);
        EXPECT_EQ(pc.process, process);
        EXPECT_EQ(pc.cpus, (std::vector<int> { 0, 2 }));
        EXPECT_EQ(pc.kernelThreads, KernelThreads::Refuse);
    }
}

// A traced run and a traced watch: the options come back, and a line without them stays as
// an older controller wrote it.
TEST(Protocol, TheTraceOptionsOfRunAndWatchRoundTrip)
{
    BenchSpec spec;
    spec.bench = "futex";
    const std::string plain = commandLine(RunCommand { 1, spec });
    EXPECT_EQ(plain.find("trace"), std::string::npos) << plain;
    auto untraced = parseCommand(plain);
    ASSERT_TRUE(untraced.ok()) << untraced.error().message;
    EXPECT_FALSE(std::get<RunCommand>(*untraced).trace);
    auto run = parseCommand(commandLine(RunCommand { 2, spec, RunTrace { 5000, 4096, 1000 } }));
    ASSERT_TRUE(run.ok()) << run.error().message;
    const auto& trace = std::get<RunCommand>(*run).trace;
    ASSERT_TRUE(trace);
    EXPECT_EQ(trace->ops, 5000U);
    EXPECT_EQ(trace->bufferKbPerCpu, 4096U);
    EXPECT_EQ(trace->windowEvents, 1000U);
    EXPECT_TRUE(trace->out.empty());
    auto toFile = parseCommand(commandLine(RunCommand { 5, spec, RunTrace { 0, 0, 1000, "/tmp/run 5.dat" } }));
    ASSERT_TRUE(toFile.ok()) << toFile.error().message;
    EXPECT_EQ(std::get<RunCommand>(*toFile).trace->out, "/tmp/run 5.dat");
    // The backend goes on the line only when it is not ftrace (a line as protocol 9 wrote it).
    EXPECT_EQ(commandLine(RunCommand { 5, spec, RunTrace {} }).find("backend"), std::string::npos);
    for (const TraceBackend backend : { TraceBackend::Bpf, TraceBackend::Auto }) {
        RunTrace how;
        how.backend = backend;
        auto cut = parseCommand(commandLine(RunCommand { 7, spec, how }));
        ASSERT_TRUE(cut.ok()) << cut.error().message;
        EXPECT_EQ(std::get<RunCommand>(*cut).trace->backend, backend);
    }
    auto defaults = parseCommand(R"({"type":"run","id":3,"spec":{"bench":"futex"},"trace":{}})");
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_EQ(std::get<RunCommand>(*defaults).trace->windowEvents, kDefaultTraceWindowEvents);
    EXPECT_EQ(std::get<RunCommand>(*defaults).trace->ops, 0U);
    EXPECT_EQ(std::get<RunCommand>(*defaults).trace->backend, TraceBackend::Ftrace);
    auto watch = parseCommand(commandLine(WatchCommand { 4, 1234, 0.5, 0, true }));
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    EXPECT_TRUE(std::get<WatchCommand>(*watch).trace);
    EXPECT_EQ(commandLine(WatchCommand { 4, 1234, 0.5, 0 }).find("trace"), std::string::npos);
    EXPECT_EQ(std::get<WatchCommand>(*watch).events, 0U);
    auto withEvents = parseCommand(commandLine(WatchCommand { 6, 1234, 0.5, 0, true, 20000 }));
    ASSERT_TRUE(withEvents.ok()) << withEvents.error().message;
    EXPECT_EQ(std::get<WatchCommand>(*withEvents).events, 20000U);
    EXPECT_EQ(commandLine(WatchCommand { 4, 1234, 0.5, 0, true }).find("events"), std::string::npos);
    const std::pair<std::string_view, std::string_view> bad[] = {
        { R"({"type":"watch","id":1,"pid":5,"events":100})", "'events' needs \"trace\": true" },
        { R"({"type":"watch","id":1,"pid":5,"trace":true,"events":300000})", "'events' should be at most 200000" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex"},"trace":true})", "'trace' should be an object" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex"},"trace":{"events":2000000}})",
            "'trace.events' should be at most 1000000" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex"},"trace":{"ops":-5}})",
            "'trace.ops' should be a whole number of ops" },
        { R"({"type":"watch","id":1,"pid":5,"trace":"yes"})", "'trace' should be true or false" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex"},"trace":{"backend":"kernel"}})",
            "'trace.backend' should be \"ftrace\", \"bpf\" or \"auto\"" },
    };
    for (const auto& [line, why] : bad) {
        auto cmd = parseCommand(line);
        ASSERT_FALSE(cmd.ok()) << line;
        EXPECT_NE(cmd.error().message.find(why), std::string::npos) << line << " -> " << cmd.error().message;
    }
}

// The opt-in for kernel threads and PID 1 goes through the line only when given: a pin without
// it reads as a refusal, whatever the controller meant.
TEST(Protocol, ThePinsKernelThreadsOptInRoundTripsAndIsAbsentByDefault)
{
    const std::string plain = commandLine(PinCommand { 6, 2, false, { 0 } });
    EXPECT_EQ(plain.find("kernel_threads"), std::string::npos) << plain;
    const std::string asked = commandLine(PinCommand { 7, 2, false, { 0 }, KernelThreads::Move });
    EXPECT_NE(asked.find(R"("kernel_threads":true)"), std::string::npos) << asked;
    auto pin = parseCommand(asked);
    ASSERT_TRUE(pin.ok()) << pin.error().message;
    EXPECT_EQ(std::get<PinCommand>(*pin).kernelThreads, KernelThreads::Move);
    auto no = parseCommand(R"({"type":"pin","id":1,"pid":1,"cpus":[0],"kernel_threads":false})");
    ASSERT_TRUE(no.ok()) << no.error().message;
    EXPECT_EQ(std::get<PinCommand>(*no).kernelThreads, KernelThreads::Refuse);
    auto bad = parseCommand(R"({"type":"pin","id":1,"tid":2,"cpus":[0],"kernel_threads":"yes"})");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("kernel_threads"), std::string::npos) << bad.error().message;
}

TEST(Protocol, MalformedRunningProgramCommandsAreRefusedByName)
{
    const std::pair<std::string_view, std::string_view> cases[] = {
        { R"({"type":"processes"})", "needs a non-negative integer \"id\"" },
        { R"({"type":"processes","id":1,"seconds":0})", "'seconds' should be between 0.05 and 60 seconds" },
        { R"({"type":"processes","id":1,"seconds":"one"})", "'seconds' should be a number" },
        { R"({"type":"watch","id":1})", "missing field 'pid'" },
        { R"({"type":"watch","id":1,"pid":-4})", "'pid'" },
        { R"({"type":"watch","id":1,"pid":"1234"})", "'pid'" },
        { R"({"type":"watch","id":1,"pid":1,"interval":0})", "'interval' should be between 0.05 and 3600 seconds" },
        { R"({"type":"watch","id":1,"pid":1,"duration":-1})", "'duration' should be between" },
        { R"({"type":"pin","id":1,"cpus":[0]})", "needs either \"tid\" (one thread) or \"pid\"" },
        { R"({"type":"pin","id":1,"tid":5,"pid":5,"cpus":[0]})", "needs either \"tid\"" },
        { R"({"type":"pin","id":1,"tid":5})", "missing field 'cpus'" },
        { R"({"type":"pin","id":1,"tid":5,"cpus":[]})", "field 'cpus' is empty" },
        { R"({"type":"pin","id":1,"tid":5,"cpus":[-1]})", "field 'cpus' should hold CPU numbers" },
        { R"({"type":"pin","id":1,"tid":5,"cpus":["0"]})", "field 'cpus' should hold CPU numbers" },
        { R"({"type":"pin","id":1,"tid":5,"cpus":"0-3"})", "field 'cpus' should be an array" },
        { R"({"type":"pin","id":1,"tid":99999999999,"cpus":[0]})", "'tid' is not a task id" },
    };
    for (const auto& [line, why] : cases) {
        auto cmd = parseCommand(line);
        ASSERT_FALSE(cmd.ok()) << line;
        EXPECT_NE(cmd.error().message.find(why), std::string::npos) << line << " -> " << cmd.error().message;
    }
}

TEST(WorkerSession, WatchesPinsAndListsProgramsWhileAWatchRuns)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    Transcript out;
    WorkerSession session(*topo, [&](const std::string& l) { out.add(l); });
    const long self = static_cast<long>(::getpid());
    EXPECT_TRUE(session.handleLine(commandLine(WatchCommand { 1, self, 0.05, 0 })));
    auto sample = out.waitFor("watch_sample", std::chrono::seconds(10));
    ASSERT_TRUE(sample);
    EXPECT_EQ(sample->id, 1U);
    EXPECT_EQ(sample->body.at("pid"), self);
    // A pin goes through at once while the watch runs: this thread, to where it already may run.
    const std::vector<int> mine = threadAffinity(0);
    EXPECT_TRUE(session.handleLine(commandLine(PinCommand { 2, static_cast<long>(::gettid()), false, mine })));
    auto pinned = out.waitFor("pinned", std::chrono::seconds(5));
    ASSERT_TRUE(pinned);
    EXPECT_EQ(pinned->id, 2U);
    EXPECT_EQ(pinned->body.at("changes").at(0).at("after"), formatCpuList(mine));
    // Another job is refused while the watch runs; a cancel ends the watch with its summary.
    EXPECT_TRUE(session.handleLine(commandLine(ProcessesCommand { 3, 0.1 })));
    auto busy = out.waitFor("error", std::chrono::seconds(5));
    ASSERT_TRUE(busy);
    EXPECT_EQ(busy->id, 3U);
    EXPECT_TRUE(session.handleLine(commandLine(CancelCommand { 1 })));
    auto summary = out.waitFor("watch_summary", std::chrono::seconds(5));
    ASSERT_TRUE(summary);
    EXPECT_EQ(summary->id, 1U);
    EXPECT_GE(summary->body.at("samples").get<int>(), 1);
    EXPECT_TRUE(summary->body.at("ending").is_null());

    EXPECT_TRUE(session.handleLine(commandLine(ProcessesCommand { 4, 0.1 })));
    auto list = out.waitFor("processes", std::chrono::seconds(10));
    ASSERT_TRUE(list);
    EXPECT_EQ(list->id, 4U);
    EXPECT_FALSE(list->body.at("processes").empty());
    // A PID that does not run: an error for the watch's id.
    EXPECT_TRUE(session.handleLine(commandLine(WatchCommand { 5, 1 << 30, 0.1, 0 })));
    auto missing = out.waitFor("error", std::chrono::seconds(5));
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->id, 5U);
    EXPECT_NE(missing->body.at("message").get<std::string>().find("no process with PID"), std::string::npos);
    session.finish(true);
}

TEST(Protocol, MalformedSweepMatrixAndLessonCommandsAreRefusedByName)
{
    const std::pair<std::string_view, std::string_view> cases[] = {
        { R"({"type":"sweep","spec":{"bench":"futex"}})", "needs a non-negative integer \"id\"" },
        { R"({"type":"sweep","id":"one","spec":{"bench":"futex"}})", "needs a non-negative integer \"id\"" },
        { R"({"type":"sweep","id":1})", "missing field 'spec'" },
        { R"({"type":"sweep","id":1,"spec":"futex"})", "field 'spec' should be an object" },
        { R"({"type":"sweep","id":1,"spec":{}})", "missing field 'spec.bench'" },
        { R"({"type":"sweep","id":1,"spec":{"bench":"futex"},"from_bytes":"4K"})", "'from_bytes' should be" },
        { R"({"type":"sweep","id":1,"spec":{"bench":"futex"},"to_bytes":-4096})", "'to_bytes' should be" },
        { R"({"type":"sweep","id":1,"spec":{"bench":"futex"},"points_per_octave":1.5})", "'points_per_octave'" },
        { R"({"type":"sweep","id":1,"spec":{"bench":"futex","ws_bytes":true}})", "'spec.ws_bytes'" },
        { R"({"type":"run","id":1,"spec":{"bench":"spin-futex","spin_ns":"2us"}})",
            "'spec.spin_ns' should be a number" },
        { R"({"type":"run","id":1,"spec":{"bench":"spin-futex","spin_ns":-5}})",
            "'spec.spin_ns' should be a whole number of nanoseconds" },
        { R"({"type":"run","id":1,"spec":{"bench":"spin-futex","spin_ns":1.5}})",
            "'spec.spin_ns' should be a whole number of nanoseconds" },
        { R"({"type":"matrix","id":2})", "missing field 'bench'" },
        { R"({"type":"matrix","id":2,"bench":3})", "field 'bench' should be a string" },
        { R"({"type":"matrix","id":2,"bench":"futex","fill":"diagonal"})", "fill should be classes or all-pairs" },
        { R"({"type":"matrix","id":2,"bench":"futex","mode":"fiber"})", "mode should be thread or process" },
        { R"({"type":"matrix","id":2,"bench":"futex","min_time":"long"})", "'min_time' should be a number" },
        { R"({"type":"matrix","id":-2,"bench":"futex"})", "needs a non-negative integer \"id\"" },
        { R"({"type":"lesson","id":3})", "missing field 'lesson'" },
        { R"({"type":"lesson","id":3,"lesson":["pinning"]})", "field 'lesson' should be a string" },
        { R"({"type":"lesson","id":3,"lesson":"pinning","repetitions":"three"})", "'repetitions' should be" },
        { R"({"type":"lesson","lesson":"pinning"})", "needs a non-negative integer \"id\"" },
        { R"({"type":"lesson","id":3,"lesson":"live-placement","phase":0.2})", "'phase' should be between 1 and 600" },
    };
    for (const auto& [line, why] : cases) {
        auto cmd = parseCommand(line);
        ASSERT_FALSE(cmd.ok()) << line;
        EXPECT_NE(cmd.error().message.find(why), std::string::npos) << line << " -> " << cmd.error().message;
    }
}

TEST(WorkerSession, ScriptedSessionWithGarbageCancelAndARun)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    const int cpu = topo->allowedPus().front();
    Transcript out;
    WorkerSession session(*topo, [&](const std::string& l) { out.add(l); });
    session.sendHello();
    auto hello = out.waitFor("hello", std::chrono::seconds(5));
    ASSERT_TRUE(hello);
    EXPECT_EQ(hello->body.at("protocol"), kVersion);
    EXPECT_NE(hello->body.at("topology_xml").get<std::string>().find("<topology"), std::string::npos);

    EXPECT_TRUE(session.handleLine("{{{ garbage"));
    auto err = out.waitFor("error", std::chrono::seconds(5));
    ASSERT_TRUE(err);
    EXPECT_FALSE(err->id.has_value());

    // A long futex run, cancelled: the worker says so and takes the next run at once.
    EXPECT_TRUE(session.handleLine(json { { "type", "run" }, { "id", 1 },
        { "spec", { { "bench", "futex" }, { "cpus", { cpu, cpu } }, { "min_time", 30 }, { "repetitions", 3 } } } }
                                       .dump()));
    EXPECT_TRUE(session.handleLine("{\"type\":\"cancel\",\"id\":1}"));
    auto cancelled = out.waitFor("cancelled", std::chrono::seconds(5));
    ASSERT_TRUE(cancelled);
    EXPECT_EQ(cancelled->id, 1U);

    EXPECT_TRUE(session.handleLine(json { { "type", "run" }, { "id", 2 },
        { "spec", { { "bench", "syscall" }, { "cpus", { cpu } }, { "iterations", 2000 }, { "repetitions", 1 } } } }
                                       .dump()));
    auto result = out.waitFor("result", std::chrono::seconds(30));
    ASSERT_TRUE(result);
    EXPECT_EQ(result->id, 2U);
    auto parsed = resultFromJson(result->body.at("result"));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->bench, "syscall");
    EXPECT_GT(parsed->stats.p50, 0);

    EXPECT_FALSE(session.handleLine("{\"type\":\"quit\"}"));
    session.finish(true);
    EXPECT_TRUE(out.waitFor("bye", std::chrono::seconds(5)));
}

TEST(Protocol, ResultLinesStayWithinTheLineLimitTheReaderEnforces)
{
    RunResult r;
    r.bench = "syscall";
    r.op = "one raw syscall(SYS_getppid)";
    r.placement.tasks = 1;
    r.placement.cpus = { 0 };
    r.opsPerSample = 20;
    r.iterations = 2'000'000;
    r.repetitions = 1;
    r.stats.p50 = 412.25;
    r.stats.count = 100'000;
    r.samples.assign(100'000, 412.123456789); // ~1.3 MB of JSON
    r.totalSamples = r.samples.size();

    const std::string line = resultLine(3, r);
    EXPECT_LE(line.size(), kMaxLineBytes);
    auto message = parseMessage(line);
    ASSERT_TRUE(message.ok()) << message.error().message;
    EXPECT_EQ(message->body["result"]["samples_omitted"], 100'000);
    auto back = resultFromJson(message->body["result"]);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_TRUE(back->samples.empty());
    EXPECT_EQ(back->totalSamples, 100'000U);

    r.samples.resize(1000); // small results keep their samples
    auto small = parseMessage(resultLine(4, r));
    ASSERT_TRUE(small.ok());
    EXPECT_EQ(small->body["result"]["samples"].size(), 1000U);
}

TEST(Protocol, AWholeRepetitionOfSamplesIsSplitIntoLinesTheReaderAccepts)
{
    // An in-thread coroutine run publishes a repetition's samples at its end: 10^5 of them
    // came as one 1.1 MB line once, which the app refused. The longest a double prints.
    std::vector<double> ns(100'000, -1.2345678901234567e-300);
    for (std::size_t i = 0; i < ns.size(); i += 7)
        ns[i] = static_cast<double>(i) + 0.123456789012345;
    const SampleBatch batch { 2, 500, std::span<const double>(ns) };
    const std::vector<std::string> lines = samplesLines(9, batch);
    ASSERT_EQ(lines.size(), (ns.size() + kMaxSamplesPerLine - 1) / kMaxSamplesPerLine);
    std::vector<double> back;
    for (const std::string& line : lines) {
        EXPECT_LE(line.size(), kMaxLineBytes);
        auto message = parseMessage(line);
        ASSERT_TRUE(message.ok()) << message.error().message;
        EXPECT_EQ(message->type, "samples");
        EXPECT_EQ(message->body["repetition"], 2);
        EXPECT_EQ(message->body["first"], 500 + back.size()) << "indices continue from line to line";
        for (const auto& v : message->body["ns_per_op"])
            back.push_back(v.get<double>());
    }
    // Each streamed sample is the measured one to 6 significant digits (the result keeps them all).
    ASSERT_EQ(back.size(), ns.size());
    for (std::size_t i = 0; i < ns.size(); ++i)
        ASSERT_LE(std::fabs(back[i] - ns[i]), 5e-6 * std::fabs(ns[i])) << i << ": " << back[i] << " for " << ns[i];
    EXPECT_TRUE(samplesLines(9, SampleBatch { 0, 0, {} }).empty());
}

TEST(Protocol, StreamedSamplesArePrintedToSixSignificantDigits)
{
    // What the app parses while a run measures: a sample of ~8 characters, not a double's 17.
    const std::vector<double> ns { 7916.729529208116, 0.123456789, 98765432.1, 3.0, 0.0, 1e-310 };
    const std::vector<std::string> lines = samplesLines(1, SampleBatch { 0, 0, std::span<const double>(ns) });
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_NE(lines[0].find("[7916.73,0.123457,98765400.0,3.0,0.0,1e-310]"), std::string::npos) << lines[0];
}

TEST(WorkerSession, TakesTheNextRunAsSoonAsTheResultIsOut)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    const int cpu = topo->allowedPus().front();
    Transcript out;
    std::mutex mutex;
    std::condition_variable cv;
    bool resultOut = false;
    bool sending = false;
    WorkerSession session(*topo, [&](const std::string& l) {
        out.add(l);
        auto m = parseMessage(l);
        if (!m || m->type != "result" || m->id != 1U)
            return;
        // Hold the run's thread just after its result went out, while the controller
        // sends the next run: that run must be taken, not refused as "in progress".
        std::unique_lock lock(mutex);
        resultOut = true;
        cv.notify_all();
        cv.wait_for(lock, std::chrono::seconds(5), [&] { return sending; });
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    });
    const auto run = [cpu](int id) {
        return json {
            { "type", "run" }, { "id", id },
            { "spec", { { "bench", "syscall" }, { "cpus", { cpu } }, { "iterations", 2000 }, { "repetitions", 1 } } }
        }.dump();
    };
    EXPECT_TRUE(session.handleLine(run(1)));
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return resultOut; }));
        sending = true;
        cv.notify_all();
    }
    EXPECT_TRUE(session.handleLine(run(2)));
    auto first = out.waitFor("result", std::chrono::seconds(5));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->id, 1U);
    auto second = out.waitFor("result", std::chrono::seconds(30));
    ASSERT_TRUE(second) << "the second run was not taken";
    EXPECT_EQ(second->id, 2U);
    session.finish(false);
}

TEST(Protocol, AMatrixOfHundredsOfPusStaysWithinTheLineLimit)
{
    // 256 PUs filled by class: 32896 cells, far more than one line may hold.
    MatrixResult m;
    m.bench = "futex";
    for (int pu = 0; pu < 256; ++pu)
        m.pus.push_back(pu);
    for (int a = 0; a < 256; ++a)
        for (int b = a; b < 256; ++b) {
            const bool measured = (a == 0 && (b == 0 || b == 1 || b == 128));
            const Relation r = a == b ? Relation::SamePu : b < 128 ? Relation::SharedL3 : Relation::CrossPackage;
            m.cells.push_back(MatrixCell { a, b, r, 1000.0 + b, 500.0 + b, measured, 500.0 + b });
        }
    const std::string line = matrixResultLine(9, m, {});
    EXPECT_LE(line.size(), kMaxLineBytes);
    auto message = parseMessage(line);
    ASSERT_TRUE(message.ok()) << message.error().message;
    const json& matrix = message->body.at("matrix");
    EXPECT_EQ(matrix.at("cells").size(), 3U) << "the measured cells stay";
    EXPECT_EQ(matrix.at("filled_omitted"), m.cells.size() - 3);
    EXPECT_EQ(matrix.at("pus").size(), 256U);

    m.pus.resize(4); // a small machine gets every cell
    m.cells.resize(10);
    auto small = parseMessage(matrixResultLine(10, m, { "a warning" }));
    ASSERT_TRUE(small.ok());
    EXPECT_EQ(small->body["matrix"]["cells"].size(), 10U);
    EXPECT_FALSE(small->body["matrix"].contains("filled_omitted"));
    EXPECT_EQ(small->body["warnings"], json::array({ "a warning" }));
}

TEST(Protocol, TheConditionsRoundTripAndAreLeftOutWhenNotGiven)
{
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { 0, 1 };
    spec.keepAwakeCpus = { 1 };
    spec.pmQosUs = 0;
    auto cmd = parseCommand(commandLine(RunCommand { 8, spec }));
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    EXPECT_EQ(std::get<RunCommand>(*cmd).spec.keepAwakeCpus, std::vector<int> { 1 });
    EXPECT_EQ(std::get<RunCommand>(*cmd).spec.pmQosUs, 0);
    EXPECT_TRUE(std::get<RunCommand>(*cmd).asIsFirst); // an A/B unless told otherwise
    auto alone = parseCommand(commandLine(RunCommand { 8, spec, std::nullopt, false }));
    ASSERT_TRUE(alone.ok()) << alone.error().message;
    EXPECT_FALSE(std::get<RunCommand>(*alone).asIsFirst);
    spec.keepAwakeCpus.clear();
    spec.pmQosUs.reset();
    const std::string line = commandLine(RunCommand { 9, spec });
    EXPECT_EQ(line.find("keep_awake"), std::string::npos) << line;
    EXPECT_EQ(line.find("pm_qos_us"), std::string::npos) << line;
    auto plain = parseCommand(line);
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_FALSE(std::get<RunCommand>(*plain).spec.conditioned());
}

TEST(Protocol, MalformedConditionsAreRefusedInOneSentence)
{
    const std::pair<const char*, const char*> cases[] = {
        { R"({"type":"run","id":1,"spec":{"bench":"futex","keep_awake":[-1]}})",
            "field 'spec.keep_awake' should hold CPU numbers" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex","keep_awake":"0,1"}})", "keep_awake" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex","pm_qos_us":-5}})",
            "field 'spec.pm_qos_us' should be a whole number of microseconds" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex","pm_qos_us":1.5}})",
            "field 'spec.pm_qos_us' should be a whole number of microseconds" },
        { R"({"type":"run","id":1,"spec":{"bench":"futex","pm_qos_us":3000000000}})",
            "field 'spec.pm_qos_us' should be at most 2000000000 microseconds" },
    };
    for (const auto& [line, why] : cases) {
        auto cmd = parseCommand(line);
        ASSERT_FALSE(cmd.ok()) << line;
        EXPECT_NE(cmd.error().message.find(why), std::string::npos) << cmd.error().message;
        EXPECT_EQ(cmd.error().message.find('\n'), std::string::npos) << cmd.error().message;
    }
}
