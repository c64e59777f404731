// SPDX-License-Identifier: MIT
#include "distributionplot.h"
#include "filemenu.h"
#include "liveplot.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "sessionstore.h"
#include "sessionviews.h"
#include "testresults.h"
#include "testtopologies.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

TEST(ResultsFile, SavedResultsOpenAgainAsRowsAndCurves)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("runs.json"));
    const auto original = ctxscope::testing::futexResult({ 0, 1 });
    {
        MainWindow window;
        window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
        EXPECT_FALSE(window.fileMenu()->saveResults(path).ok()) << "nothing to save yet";
        window.store()->addRun({ 1, original, QColor(Qt::blue) });
        const Status saved = window.fileMenu()->saveResults(path);
        ASSERT_TRUE(saved.ok()) << saved.error().message;
        ASSERT_TRUE(window.fileMenu()->saveResults(dir.filePath(QStringLiteral("runs.csv"))).ok());
    }
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    const Status opened = window.fileMenu()->openResults(path);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ASSERT_EQ(window.resultsModel()->rowCount(), 1);
    const ResultRow& row = window.resultsModel()->results().front();
    EXPECT_EQ(row.result->bench, original->bench);
    EXPECT_EQ(row.result->placement.cpus, original->placement.cpus);
    EXPECT_DOUBLE_EQ(row.result->stats.p50, original->stats.p50);
    EXPECT_EQ(row.result->warnings, original->warnings);
    const auto samples = window.plots()->livePlot()->samples(row.id);
    ASSERT_EQ(samples.size(), original->samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
        EXPECT_DOUBLE_EQ(samples[i], original->samples[i]);
    ASSERT_NE(window.plots()->livePlot()->samplesGraph(row.id), nullptr);
    EXPECT_NE(window.plots()->distributionPlot()->graph(row.id), nullptr);

    const Status broken = window.fileMenu()->openResults(dir.filePath(QStringLiteral("runs.csv")));
    EXPECT_FALSE(broken.ok()) << "a CSV is not a results file";
    EXPECT_EQ(window.resultsModel()->rowCount(), 1);
}

TEST(ResultsFile, ThePlotOnShowExportsAsPngSvgAndPdf)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    MainWindow window;
    window.resize(1200, 800);
    window.plots()->distributionPlot()->addResult(
        1, ctxscope::testing::futexResult(), QStringLiteral("futex"), Qt::blue);
    window.plots()->showDistribution();
    for (const char* name : { "plot.png", "plot.svg", "plot.pdf" }) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        const Status s = window.fileMenu()->exportPlot(path);
        ASSERT_TRUE(s.ok()) << name << ": " << s.error().message;
        EXPECT_GT(QFileInfo(path).size(), 1000) << name;
    }
}

TEST(ResultsFile, AFileOfManyRunsPutsItsNewestEightOnTheStageAndTheRestUnderEarlierRuns)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("runs.json"));
    constexpr quint64 kRuns = 10;
    {
        MainWindow window;
        window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
        for (quint64 id = 1; id <= kRuns; ++id)
            window.store()->addRun({ id, ctxscope::testing::futexResult({ 0, 1 }), QColor(Qt::blue) });
        ASSERT_TRUE(window.fileMenu()->saveResults(path).ok());
    }
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    ASSERT_TRUE(window.fileMenu()->openResults(path).ok());
    const auto& rows = window.resultsModel()->results();
    ASSERT_EQ(rows.size(), kRuns);
    LivePlot& live = *window.plots()->livePlot();
    for (std::size_t i = 0; i < rows.size(); ++i)
        EXPECT_EQ(live.isShown(rows[i].id), i >= kRuns - SessionViews::kFileStageRuns) << "row " << i + 1;
    window.plots()->earlierRunsSwitch()->setChecked(true);
    for (const ResultRow& row : rows)
        EXPECT_TRUE(live.isShown(row.id));
}
