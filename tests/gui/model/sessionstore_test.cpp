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
