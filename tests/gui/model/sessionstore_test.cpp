// SPDX-License-Identifier: MIT
// The session document without a window: what it owns, what it announces, and that a
// session saved from it reads back into an equal one.
#include "resultsmodel.h"
#include "sessionstore.h"
#include "testresults.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

std::shared_ptr<const SweepCurves> sweepOf(std::size_t points)
{
    auto sweep = std::make_shared<SweepCurves>();
    sweep->label = QStringLiteral("futex · thread · same-pu (0,0)");
    for (std::size_t i = 0; i < points; ++i) {
        WorkingSetPoint p;
        p.wsBytes = std::uint64_t { 4096 } << i;
        p.roundTripRun = *ctxscope::testing::futexResult();
        sweep->points.push_back(p);
    }
    return sweep;
}

} // namespace

TEST(SessionStore, AnnouncesEachRunSweepAndMatrixItGains)
{
    SessionStore store;
    QSignalSpy runs(&store, &SessionStore::runAdded);
    QSignalSpy sweeps(&store, &SessionStore::sweepAdded);
    QSignalSpy changed(&store, &SessionStore::sweepChanged);
    QSignalSpy matrices(&store, &SessionStore::matrixAdded);
    store.addRun({ 7, ctxscope::testing::futexResult(), Qt::blue }, QStringLiteral("a.json"));
    store.addRun({ 8, nullptr, Qt::red }); // no result: not a run
    ASSERT_EQ(runs.size(), 1);
    EXPECT_EQ(runs.at(0).at(1).toString(), QStringLiteral("a.json"));
    ASSERT_NE(store.run(7), nullptr);
    EXPECT_EQ(store.run(8), nullptr);

    const std::size_t index = store.addSweep(sweepOf(1));
    store.replaceSweep(index, sweepOf(2)); // a live sweep grows
    store.replaceSweep(5, sweepOf(3)); // no such sweep: nothing happens
    EXPECT_EQ(sweeps.size(), 1);
    ASSERT_EQ(changed.size(), 1);
    EXPECT_EQ(store.sweeps()[index]->points.size(), 2U);

    store.addMatrix(std::make_shared<const MatrixResult>(), QStringLiteral("this machine"));
    EXPECT_EQ(matrices.size(), 1);
    EXPECT_EQ(store.matrices().front().origin, QStringLiteral("this machine"));
}

TEST(SessionStore, ClearingDropsMeasurementsButKeepsComparedFilesAndTheMachine)
{
    SessionStore store;
    store.addRun({ 1, ctxscope::testing::futexResult(), Qt::blue });
    store.addSweep(sweepOf(1));
    CompareSource lab;
    lab.host = QStringLiteral("lab");
    store.addCompared(lab, nlohmann::json { { "host_name", "lab" } });
    store.setMachineContext(SessionStore::kLocalMachine, nlohmann::json { { "host_name", "here" } });
    QSignalSpy cleared(&store, &SessionStore::measurementsCleared);
    store.clearMeasurements();
    EXPECT_EQ(cleared.size(), 1);
    EXPECT_TRUE(store.runs().empty());
    EXPECT_TRUE(store.sweeps().empty());
    EXPECT_EQ(store.compared().size(), 1U);
    EXPECT_EQ(store.machine().context["host_name"], "here");
    EXPECT_TRUE(store.machine(QStringLiteral("elsewhere")).context.is_null()) << "an unknown machine is empty";
}

TEST(SessionStore, WhatItSavesLoadsBackIntoAnEqualStore)
{
    SessionStore first;
    first.setMachineTopologyXml(SessionStore::kLocalMachine, "<topology/>");
    first.setMachineContext(SessionStore::kLocalMachine,
        nlohmann::json { { "host_name", "here" }, { "ctxscope", { { "sysinfo", { { "kernel", "6.1" } } } } } });
    first.addRun({ 1, ctxscope::testing::futexResult({ 0, 1 }), Qt::blue });
    first.addSweep(sweepOf(3));
    const Session saved = first.toSession(nlohmann::json(), "<shown/>");
    EXPECT_EQ(saved.topologyXml, "<topology/>") << "the session's own XML wins over the one shown";
    EXPECT_EQ(saved.sysinfo["kernel"], "6.1");
    const nlohmann::json live = { { "host_name", "live" } };
    EXPECT_EQ(first.toSession(live, {}).context["host_name"], "live") << "a connected worker describes the machine";

    auto read = sessionFromJson(sessionToJson(saved).dump());
    ASSERT_TRUE(read.ok()) << read.error().message;
    SessionStore second;
    second.addRun({ 99, ctxscope::testing::futexResult(), Qt::red }); // replaced by the load
    QSignalSpy cleared(&second, &SessionStore::measurementsCleared);
    QSignalSpy runs(&second, &SessionStore::runAdded);
    std::vector<ResultRow> rows;
    for (const RunResult& r : read->runs)
        rows.push_back({ 1000 + rows.size(), std::make_shared<const RunResult>(r), Qt::green });
    second.load(std::move(*read), std::move(rows), QStringLiteral("s.json"));
    EXPECT_EQ(cleared.size(), 1);
    ASSERT_EQ(second.runs().size(), 1U);
    EXPECT_EQ(runs.at(0).at(1).toString(), QStringLiteral("s.json"));
    EXPECT_EQ(second.runs().front().result->placement.cpus, (std::vector<int> { 0, 1 }));
    ASSERT_EQ(second.sweeps().size(), 1U);
    EXPECT_EQ(second.sweeps().front()->points.size(), 3U);
    EXPECT_EQ(second.machine().context["host_name"], "here");
}

// A session measured on this machine and on a server over ssh: each row keeps its machine,
// the saved file keeps the server's runs with its own context and topology (not under this
// machine's), and reading it back gives the same rows on the same machines.
TEST(SessionStore, RunsOfTwoMachinesAreSavedEachWithItsMachineAndReadBackSo)
{
    SessionStore first;
    first.setLocalWorkerContext({ { "host_name", "laptop" } });
    first.setMachineTopologyXml(QStringLiteral("lab-3"), "<topology of='lab-3'/>");
    first.setMachineContext(QStringLiteral("lab-3"), { { "host_name", "srv1" } });
    EXPECT_EQ(first.machineKeys(), (QStringList { SessionStore::kLocalMachine, QStringLiteral("lab-3") }));
    first.addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue });
    EXPECT_FALSE(first.runsSpanMachines());
    first.addRun({ 2, ctxscope::testing::futexResult({ 0, 1 }), Qt::red, QStringLiteral("lab-3") });
    first.addRun({ 3, ctxscope::testing::futexResult({ 1, 1 }), Qt::green });
    EXPECT_TRUE(first.runsSpanMachines());

    // Saved while lab-3 is shown: no live context for this machine, its last hello's is used.
    const Session saved = first.toSession(nlohmann::json(), "<topology of='laptop'/>");
    EXPECT_EQ(saved.context["host_name"], "laptop");
    EXPECT_EQ(saved.topologyXml, "<topology of='laptop'/>");
    ASSERT_EQ(saved.runs.size(), 2U);
    ASSERT_EQ(saved.machines.size(), 1U);
    EXPECT_EQ(saved.machines[0].name, "lab-3");
    EXPECT_EQ(saved.machines[0].context["host_name"], "srv1");
    EXPECT_EQ(saved.machines[0].topologyXml, "<topology of='lab-3'/>");
    ASSERT_EQ(saved.machines[0].runs.size(), 1U);
    EXPECT_EQ(saved.machines[0].runs[0].placement.cpus, (std::vector<int> { 0, 1 }));

    const nlohmann::json file = sessionToJson(saved);
    ASSERT_TRUE(file.contains("machines"));
    EXPECT_EQ(file["machines"][0]["machine"], "lab-3");
    auto read = sessionFromJson(file.dump());
    ASSERT_TRUE(read.ok()) << read.error().message;
    std::vector<ResultRow> rows;
    for (const RunResult& r : read->runs)
        rows.push_back({ 100 + rows.size(), std::make_shared<const RunResult>(r), Qt::green });
    for (const SessionMachine& m : read->machines)
        for (const RunResult& r : m.runs)
            rows.push_back(
                { 100 + rows.size(), std::make_shared<const RunResult>(r), Qt::green, QString::fromStdString(m.name) });
    SessionStore second;
    second.load(std::move(*read), std::move(rows), QStringLiteral("s.json"));
    ASSERT_EQ(second.runs().size(), 3U);
    EXPECT_EQ(second.runs()[2].machine, QStringLiteral("lab-3"));
    EXPECT_EQ(second.runs()[2].result->placement.cpus, (std::vector<int> { 0, 1 }));
    EXPECT_EQ(second.machine(QStringLiteral("lab-3")).context["host_name"], "srv1");
    EXPECT_EQ(second.machine(QStringLiteral("lab-3")).topologyXml, "<topology of='lab-3'/>");
    EXPECT_TRUE(second.machineKeys().contains(QStringLiteral("lab-3")));

    // A session measured elsewhere (its topology kept) stays described as that machine, even
    // with this machine's worker saying hello; without a topology of its own, the hello wins.
    SessionStore loaded;
    loaded.setMachineTopologyXml(SessionStore::kLocalMachine, "<topology of='elsewhere'/>");
    loaded.setMachineContext(SessionStore::kLocalMachine, { { "host_name", "elsewhere" } });
    loaded.setLocalWorkerContext({ { "host_name", "laptop" } });
    EXPECT_EQ(loaded.toSession(nlohmann::json(), {}).context["host_name"], "elsewhere");
    // Holding no runs, it simply stops being shown: the hello describes this machine again.
    EXPECT_EQ(loaded.detachLoadedMachine(), QString());
    EXPECT_TRUE(loaded.machine().topologyXml.empty());
    EXPECT_EQ(loaded.machineKeys(), QStringList { SessionStore::kLocalMachine });
    EXPECT_EQ(loaded.toSession(nlohmann::json(), {}).context["host_name"], "laptop");

    // Holding runs, it becomes a machine of the session named by its host (numbered when a
    // machine has that name), and its runs name it; this machine's context is the hello's.
    SessionStore held;
    held.setMachineContext(QStringLiteral("elsewhere"), { { "host_name", "a server of that name" } });
    held.setMachineTopologyXml(SessionStore::kLocalMachine, "<topology of='elsewhere'/>");
    held.setMachineContext(SessionStore::kLocalMachine, { { "host_name", "elsewhere" } });
    held.setLocalWorkerContext({ { "host_name", "laptop" } });
    held.addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue });
    QSignalSpy relabelled(&held, &SessionStore::runMachinesChanged);
    EXPECT_EQ(held.detachLoadedMachine(), QStringLiteral("elsewhere (2)"));
    EXPECT_EQ(relabelled.count(), 1);
    EXPECT_EQ(held.runs()[0].machine, QStringLiteral("elsewhere (2)"));
    EXPECT_EQ(held.machine(QStringLiteral("elsewhere (2)")).topologyXml, "<topology of='elsewhere'/>");
    EXPECT_EQ(held.contextOf(QStringLiteral("elsewhere (2)"))["host_name"], "elsewhere");
    EXPECT_EQ(held.contextOf(SessionStore::kLocalMachine)["host_name"], "laptop");
    EXPECT_EQ(held.detachLoadedMachine(), QString()); // once
    held.addRun({ 2, ctxscope::testing::futexResult({ 0, 1 }), Qt::red });
    const Session both = held.toSession(nlohmann::json(), "<topology of='laptop'/>");
    EXPECT_EQ(both.context["host_name"], "laptop");
    ASSERT_EQ(both.runs.size(), 1U);
    ASSERT_EQ(both.machines.size(), 1U);
    EXPECT_EQ(both.machines[0].name, "elsewhere (2)");
    EXPECT_EQ(both.machines[0].topologyXml, "<topology of='elsewhere'/>");

    // A second session of that machine (same host, same topology) joins it; the same host with
    // another topology is another machine of that name.
    for (const char* xml : { "<topology of='elsewhere'/>", "<topology of='another elsewhere'/>" }) {
        held.setMachineTopologyXml(SessionStore::kLocalMachine, xml);
        held.setMachineContext(SessionStore::kLocalMachine, { { "host_name", "elsewhere" } });
        held.addRun({ held.runs().size() + 10, ctxscope::testing::futexResult({ 1, 1 }), Qt::green });
        held.detachLoadedMachine();
    }
    EXPECT_EQ(held.runs()[2].machine, QStringLiteral("elsewhere (2)"));
    EXPECT_EQ(held.runs()[3].machine, QStringLiteral("elsewhere (3)"));

    // A session of this very host, shown from its file (hwloc's export differs after a kernel
    // update, say), was this machine's: its runs stay so.
    SessionStore mine;
    mine.setLocalWorkerContext({ { "host_name", "laptop" } });
    mine.setMachineTopologyXml(SessionStore::kLocalMachine, "<topology of='laptop, older kernel'/>");
    mine.setMachineContext(SessionStore::kLocalMachine, { { "host_name", "laptop" } });
    mine.addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue });
    EXPECT_EQ(mine.detachLoadedMachine(), QString());
    EXPECT_TRUE(mine.runs()[0].machine.isEmpty());
    EXPECT_TRUE(mine.machine().topologyXml.empty());
    EXPECT_EQ(mine.machineKeys(), QStringList { SessionStore::kLocalMachine });

    // The table names each row's machine.
    ResultsModel model;
    model.setResults(second.runs());
    EXPECT_EQ(model.data(model.index(0, ResultsModel::Machine)).toString(), QStringLiteral("this machine"));
    EXPECT_EQ(model.data(model.index(2, ResultsModel::Machine)).toString(), QStringLiteral("lab-3"));
    EXPECT_EQ(model.headerData(ResultsModel::Machine, Qt::Horizontal).toString(), QStringLiteral("Machine"));
}

TEST(SessionStore, AMachineEntryWithoutItsNameOrRunsIsRefusedWithTheField)
{
    SessionStore store;
    store.setMachineContext(QStringLiteral("lab-3"), { { "host_name", "srv1" } });
    store.addRun({ 1, ctxscope::testing::futexResult({ 0, 1 }), Qt::red, QStringLiteral("lab-3") });
    const nlohmann::json good = sessionToJson(store.toSession(nlohmann::json(), {}));
    nlohmann::json doc = good;
    doc["machines"][0].erase("machine");
    auto read = sessionFromJson(doc.dump());
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("missing field 'machines[0].machine'"), std::string::npos)
        << read.error().message;
    doc = good;
    doc["machines"][0]["machine"] = "";
    read = sessionFromJson(doc.dump());
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("machines[0].machine: empty"), std::string::npos) << read.error().message;
    doc = good;
    doc["machines"][0]["machine"] = "(this machine)";
    read = sessionFromJson(doc.dump());
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("not a host as ssh takes one"), std::string::npos) << read.error().message;
    doc = good;
    doc["machines"][0].erase("benchmarks");
    read = sessionFromJson(doc.dump());
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("missing field 'machines[0].benchmarks'"), std::string::npos)
        << read.error().message;
    doc = good;
    doc["machines"][0]["benchmarks"][0]["stats"]["p50"] = "fast";
    read = sessionFromJson(doc.dump());
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("p50"), std::string::npos) << read.error().message;
    doc = good;
    doc["machines"] = "lab-3";
    EXPECT_FALSE(sessionFromJson(doc.dump()).ok());
    EXPECT_TRUE(sessionFromJson(good.dump()).ok());
}

TEST(SessionStore, TheResultsTableFollowingItIsAWellBehavedModel)
{
    SessionStore store;
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QObject::connect(&store, &SessionStore::runAdded, &model, [&model](const ResultRow& row) { model.addResult(row); });
    QObject::connect(&store, &SessionStore::measurementsCleared, &model, [&model] { model.clear(); });
    store.addRun({ 1, ctxscope::testing::futexResult(), Qt::blue });
    store.addRun({ 2, ctxscope::testing::futexResult({ 0, 1 }), Qt::red });
    EXPECT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.rowOfRun(2), 1);
    store.clearMeasurements();
    EXPECT_EQ(model.rowCount(), 0);
}

// A lesson's outcomes live in the session: announced as they change, cleared with the
// measurements, saved and loaded with the session; a session saved without lessons (every
// file written before they were kept) loads with none and saves as it was.
TEST(SessionStore, KeepsLessonOutcomesAndSavesThemWithTheSession)
{
    SessionStore store;
    QSignalSpy added(&store, &SessionStore::lessonAdded);
    QSignalSpy changed(&store, &SessionStore::lessonChanged);
    LessonRecord lesson { "placement", { { "futex · same-pu", "" }, { "futex · other-core", "" } }, {}, false };
    const std::size_t index = store.addLesson(lesson);
    lesson.steps[0].outcome = "median 1.2 µs per op";
    lesson.steps[1].outcome = "failed: the worker stopped";
    lesson.conclusion = { "Sharing a core costs the most." };
    lesson.finished = true;
    store.replaceLesson(index, lesson);
    store.replaceLesson(7, lesson); // no such lesson: nothing happens
    EXPECT_EQ(added.size(), 1);
    EXPECT_EQ(changed.size(), 1);

    const Session saved = store.toSession(nlohmann::json(), "<shown/>");
    auto read = sessionFromJson(sessionToJson(saved).dump());
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_EQ(read->lessons.size(), 1U);
    EXPECT_EQ(read->lessons[0].id, "placement");
    EXPECT_EQ(read->lessons[0].steps[0].outcome, "median 1.2 µs per op");
    EXPECT_EQ(read->lessons[0].conclusion, lesson.conclusion);
    EXPECT_TRUE(read->lessons[0].finished);
    SessionStore second;
    QSignalSpy loaded(&second, &SessionStore::lessonAdded);
    second.load(std::move(*read), {}, QStringLiteral("s.json"));
    EXPECT_EQ(loaded.size(), 1);
    EXPECT_EQ(second.lessons().at(0).steps.at(1).outcome, "failed: the worker stopped");

    second.clearMeasurements();
    EXPECT_TRUE(second.lessons().empty());
    const nlohmann::json without = sessionToJson(second.toSession(nlohmann::json(), "<shown/>"));
    EXPECT_FALSE(without.contains("lessons")) << "a session without lessons is written as before";
    auto old = sessionFromJson(without.dump());
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_TRUE(old->lessons.empty());

    nlohmann::json broken = sessionToJson(saved);
    broken["lessons"][0]["steps"][1].erase("outcome");
    auto refused = sessionFromJson(broken.dump());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("lessons[0].steps[1].outcome"), std::string::npos)
        << refused.error().message;
}

// What quitting asks about. Runs measured here and lessons count; runs read from a
// file do not; saving (markSaved), opening a session and clearing leave nothing unsaved.
TEST(SessionStore, CountsTheRunsAndLessonsMeasuredSinceTheLastSaveOrOpen)
{
    SessionStore store;
    EXPECT_EQ(store.unsavedRuns(), 0);
    store.addRun({ 1, ctxscope::testing::futexResult(), Qt::blue });
    store.addRun({ 2, ctxscope::testing::futexResult(), Qt::red }, QStringLiteral("read.json"));
    store.addLesson(LessonRecord {});
    EXPECT_EQ(store.unsavedRuns(), 1);
    EXPECT_EQ(store.unsavedLessons(), 1);
    store.markSaved();
    EXPECT_EQ(store.unsavedRuns(), 0);
    EXPECT_EQ(store.unsavedLessons(), 0);
    store.addLesson(LessonRecord {});
    store.clearMeasurements();
    EXPECT_EQ(store.unsavedLessons(), 0);
    store.addRun({ 3, ctxscope::testing::futexResult(), Qt::blue });
    auto read = sessionFromJson(sessionToJson(store.toSession(nlohmann::json(), "<shown/>")).dump());
    ASSERT_TRUE(read.ok()) << read.error().message;
    store.load(std::move(*read), {}, QStringLiteral("s.json"));
    EXPECT_EQ(store.unsavedRuns(), 0) << "an opened session is as its file has it";
}

namespace {

// `n` made-up switches on two CPUs, 1 µs apart, with their tasks' names.
std::shared_ptr<const TraceWindow> windowOf(std::size_t n, std::uint64_t recorded)
{
    auto window = std::make_shared<TraceWindow>();
    for (std::size_t i = 0; i < n; ++i) {
        TraceEvent e;
        e.ns = 1'000'000 + 1000 * i;
        e.cpu = static_cast<std::int32_t>(i % 2);
        e.pid = static_cast<std::int32_t>(100 + i % 3);
        e.other = static_cast<std::int32_t>(100 + (i + 1) % 3);
        e.kind = i % 5 == 0 ? TraceEventKind::Waking : TraceEventKind::Switch;
        e.aux = e.kind == TraceEventKind::Waking ? 1 : -1;
        e.value = static_cast<std::int64_t>(i % 7);
        window->events.push_back(e);
    }
    window->comms = { { 100, "futex-a" }, { 101, "futex-b" }, { 102, "cc1plus" } };
    window->recorded = recorded;
    return window;
}

bool sameEvents(const std::vector<TraceEvent>& a, const std::vector<TraceEvent>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const TraceEvent& x, const TraceEvent& y) {
        return x.ns == y.ns && x.cpu == y.cpu && x.pid == y.pid && x.other == y.other && x.aux == y.aux
            && x.value == y.value && x.kind == y.kind;
    });
}

} // namespace

// A reopened session shows each traced run's timeline: its events are saved with the run (the
// last kSessionTraceEvents of them), on this machine and on a server, and read back in order.
TEST(SessionStore, ATracedRunsEventsAreSavedWithItAndReadBack)
{
    SessionStore first;
    first.setMachineContext(QStringLiteral("lab-3"), { { "host_name", "srv1" } });
    auto traced = std::make_shared<RunResult>(*ctxscope::testing::futexResult({ 0, 1 }));
    traced->trace = TraceSummary {};
    traced->trace->tasks = { 100, 101 };
    const auto small = windowOf(2000, 2000);
    const auto large = windowOf(kSessionTraceEvents + 5000, 400'000);
    first.addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue }); // untraced
    first.addRun({ 2, traced, Qt::red, QStringLiteral("lab-3"), large });
    first.addRun({ 3, traced, Qt::green, QString(), small });
    const nlohmann::json file = sessionToJson(first.toSession(nlohmann::json(), "<t/>"));
    ASSERT_TRUE(file.contains("trace_windows"));
    auto read = sessionFromJson(file.dump());
    ASSERT_TRUE(read.ok()) << read.error().message;
    // The file's order: this machine's runs (1, 3), then lab-3's (2).
    ASSERT_EQ(read->traceWindows.size(), 3U);
    EXPECT_EQ(read->traceWindows[0], nullptr);
    ASSERT_NE(read->traceWindows[1], nullptr);
    EXPECT_TRUE(sameEvents(read->traceWindows[1]->events, small->events));
    EXPECT_EQ(read->traceWindows[1]->comms, small->comms);
    ASSERT_NE(read->traceWindows[2], nullptr);
    ASSERT_EQ(read->traceWindows[2]->events.size(), kSessionTraceEvents); // bounded: the last ones
    EXPECT_TRUE(sameEvents(read->traceWindows[2]->events,
        std::vector<TraceEvent>(large->events.end() - kSessionTraceEvents, large->events.end())));
    EXPECT_EQ(read->traceWindows[2]->recorded, 400'000U);
    EXPECT_TRUE(read->runs[1].trace.has_value()); // and the segments with the run
    // A session without traced runs is written as before.
    SessionStore plain;
    plain.addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue });
    EXPECT_FALSE(sessionToJson(plain.toSession(nlohmann::json(), "<t/>")).contains("trace_windows"));
    // An entry naming no run of the file is refused with where it is.
    nlohmann::json bad = file;
    bad["trace_windows"][0]["run"] = 7;
    auto refused = sessionFromJson(bad.dump());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("trace_windows[0]"), std::string::npos) << refused.error().message;
}
