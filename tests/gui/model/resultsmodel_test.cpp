// SPDX-License-Identifier: MIT
#include "resultsmodel.h"
#include "testresults.h"

#include "ctxscope/units.h"

#include <QAbstractItemModelTester>
#include <QColor>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

QString cell(const ResultsModel& model, int row, int column, int role = Qt::DisplayRole)
{
    return model.data(model.index(row, column), role).toString();
}

} // namespace

TEST(ResultsModel, PassesTheModelTesterThroughAddsResetsAndClears)
{
    ResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.addResult({ 1, ctxscope::testing::futexResult(), QColor(Qt::blue) });
    model.addResult({ 2, ctxscope::testing::futexResult({ 0, 1 }), QColor(Qt::red) });
    model.addResult({ 3, nullptr, QColor(Qt::green) }); // no result: ignored
    EXPECT_EQ(model.rowCount(), 2);
    model.setResults({ { 7, ctxscope::testing::futexResult(), QColor(Qt::black) } });
    EXPECT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.rowOfRun(7), 0);
    EXPECT_EQ(model.rowOfRun(1), -1);
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(ResultsModel, ShowsOneRowPerRunWithStatisticsSelfChecksAndWarnings)
{
    ResultsModel model;
    const auto result = ctxscope::testing::futexResult();
    model.addResult({ 42, result, QColor(0x00, 0x72, 0xB2) });
    ASSERT_EQ(model.columnCount(), ResultsModel::ColumnCount);
    EXPECT_EQ(cell(model, 0, ResultsModel::Bench), QStringLiteral("futex"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Mode), QStringLiteral("thread"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Cpus), QStringLiteral("0,0"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Relation), QStringLiteral("same-pu"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Median), QString::fromStdString(formatDuration(8500)));
    // Per switch always says how many switches an op holds.
    EXPECT_EQ(cell(model, 0, ResultsModel::PerSwitch),
        QString::fromStdString(formatDuration(4250)) + QStringLiteral(" (÷2)"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Min), QString::fromStdString(formatDuration(8200)));
    EXPECT_EQ(cell(model, 0, ResultsModel::P99), QString::fromStdString(formatDuration(12800)));
    EXPECT_EQ(cell(model, 0, ResultsModel::Cv), QStringLiteral("0.17%")); // of the repetition medians
    EXPECT_EQ(cell(model, 0, ResultsModel::Voluntary), QStringLiteral("1.10"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Involuntary), QStringLiteral("0.90"));
    EXPECT_EQ(cell(model, 0, ResultsModel::Migrations), QStringLiteral("0"));
    EXPECT_TRUE(cell(model, 0, ResultsModel::Warnings).startsWith(QStringLiteral("⚠ 2")));
    // The tooltip holds every warning, whole.
    const QString tip = cell(model, 0, ResultsModel::Warnings, Qt::ToolTipRole);
    for (const std::string& w : result->warnings)
        EXPECT_TRUE(tip.contains(QString::fromStdString(w).toHtmlEscaped())) << w;
    EXPECT_EQ(
        model.data(model.index(0, ResultsModel::Bench), Qt::DecorationRole).value<QColor>(), QColor(0x00, 0x72, 0xB2));
    EXPECT_EQ(model.data(model.index(0, 0), ResultsModel::IdRole).toULongLong(), 42U);
    EXPECT_DOUBLE_EQ(model.data(model.index(0, ResultsModel::Median), ResultsModel::SortRole).toDouble(), 8500);
}

TEST(ResultsModel, AnOpWithoutSwitchesHasNoPerSwitchFigure)
{
    auto r = std::make_shared<RunResult>(*ctxscope::testing::futexResult({ 0 }));
    r->bench = "syscall";
    r->switchesPerOp = 0;
    r->perSwitchNs.reset();
    r->placement.tasks = 1;
    ResultsModel model;
    model.addResult({ 1, r, QColor(Qt::blue) });
    EXPECT_TRUE(cell(model, 0, ResultsModel::PerSwitch).contains(QStringLiteral("no switch")));
}

TEST(ResultsModel, TheInterferenceColumnSaysWhoElseRanAndFlagsADisturbedRun)
{
    ResultsModel model;
    auto quiet = std::make_shared<RunResult>(*ctxscope::testing::futexResult());
    auto busy = std::make_shared<RunResult>(*quiet);
    auto unread = std::make_shared<RunResult>(*quiet);
    quiet->interference = Interference { { { 0, 0.004, 0, 0, 0, 250, 40, { 0.004 } } }, {}, 1.0 };
    busy->interference = Interference { { { 0, 0.38, 0.002, 0.01, 0.02, 1210, 400, { 0.3, 0.45 } } },
        { { 4321, 4321, "sh", false, 0.37 } }, 1.0 };
    unread->interference.reset();
    model.setResults({ { 1, quiet, QColor() }, { 2, busy, QColor() }, { 3, unread, QColor() } });
    EXPECT_EQ(cell(model, 0, ResultsModel::Interference), QStringLiteral("quiet"));
    EXPECT_EQ(cell(model, 1, ResultsModel::Interference), QStringLiteral("⚠ 38% other"));
    EXPECT_EQ(cell(model, 2, ResultsModel::Interference), QStringLiteral("—"));
    const QString tip = cell(model, 1, ResultsModel::Interference, Qt::ToolTipRole);
    EXPECT_TRUE(tip.contains(QStringLiteral("busiest: sh (PID 4321) 37.0%"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("by repetition: 30.0%, 45.0%"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("The run was disturbed"))) << tip.toStdString();
    EXPECT_DOUBLE_EQ(model.data(model.index(1, ResultsModel::Interference), ResultsModel::SortRole).toDouble(), 0.38);
}
