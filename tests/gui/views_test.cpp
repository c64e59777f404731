// SPDX-License-Identifier: MIT
// The views fed from files the CLI wrote: working-set curves, the heatmap (and its clicks),
// the ladder and the comparison with another machine.
#include "compareplot.h"
#include "filemenu.h"
#include "heatmapplot.h"
#include "ladderplot.h"
#include "mainwindow.h"
#include "plotstyle.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "sessionstore.h"
#include "testresults.h"
#include "testtopologies.h"
#include "topologymappanel.h"
#include "viewsfixtures.h"
#include "workingsetplot.h"

#include "ctxscope/results_file.h"

#include <QApplication>
#include <QFile>
#include <QFontMetrics>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <iterator>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::resultsFixture;

namespace {
nlohmann::json readJson(const QString& path)
{
    QFile in(path);
    EXPECT_TRUE(in.open(QIODevice::ReadOnly)) << path.toStdString();
    return nlohmann::json::parse(in.readAll().toStdString());
}
} // namespace

TEST(Views, ASweepFileDrawsItsSwitchCostsWithErrorBarsAndTheCacheSizes)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    const Status opened = window.fileMenu()->openResults(resultsFixture("sweep-futex.json"));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    WorkingSetPlot* plot = window.plots()->workingSetPlot();
    EXPECT_EQ(window.plots()->tabs()->currentWidget(), plot);
    ASSERT_EQ(plot->sweeps().size(), 1U);
    const nlohmann::json doc = readJson(resultsFixture("sweep-futex.json"));
    std::vector<double> costs;
    for (const auto& entry : doc["benchmarks"])
        if (entry["switch_ns"].is_number())
            costs.push_back(entry["switch_ns"].get<double>());
    ASSERT_FALSE(costs.empty());
    const QCPGraph* graph = plot->graph(0, WsSeries::SwitchCost);
    ASSERT_NE(graph, nullptr);
    ASSERT_EQ(static_cast<std::size_t>(graph->dataCount()), costs.size());
    for (int i = 0; i < graph->dataCount(); ++i)
        EXPECT_DOUBLE_EQ(graph->data()->at(i)->value, costs[static_cast<std::size_t>(i)]);
    EXPECT_EQ(plot->plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    // Each series carries error bars on every point.
    int errorBars = 0;
    for (int i = 0; i < plot->plot()->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPErrorBars*>(plot->plot()->plottable(i)))
            errorBars += bars->dataCount();
    EXPECT_EQ(errorBars, graph->dataCount());
    // A marker per cache level the file names, labelled with its size.
    auto caches = sweepCachesFromJson(doc["sweep"]);
    ASSERT_TRUE(caches.ok());
    const auto markers = cacheMarkers(*caches);
    ASSERT_FALSE(markers.empty());
    QStringList expected;
    for (const CacheMarker& m : markers)
        expected << m.label;
    EXPECT_EQ(plot->markerLabels(), expected);

    plot->setSeriesShown(WsSeries::RoundTrip, true);
    plot->setSeriesShown(WsSeries::Touch, true);
    ASSERT_NE(plot->graph(0, WsSeries::RoundTrip), nullptr);
    EXPECT_EQ(plot->graph(0, WsSeries::RoundTrip)->dataCount(), static_cast<int>(doc["benchmarks"].size()));
    EXPECT_NE(plot->graph(0, WsSeries::Touch), nullptr);
}

TEST(Views, TheLadderShowsTheLatestRunOfEachBenchmarkFromTheResults)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    auto vdso = std::make_shared<RunResult>(*ctxscope::testing::futexResult());
    vdso->bench = "vdso";
    vdso->stats.p50 = 29.4;
    vdso->switchesPerOp = 0;
    window.store()->addRun({ 1, ctxscope::testing::futexResult(), Qt::blue });
    window.store()->addRun({ 2, vdso, Qt::red });
    const LadderPlot* ladder = window.plots()->ladderPlot();
    ASSERT_EQ(ladder->rungs().size(), 2U);
    EXPECT_EQ(ladder->rungs()[0].bench, QStringLiteral("vdso"));
    EXPECT_TRUE(ladder->barLabels()[0].startsWith(QStringLiteral("29.4 ns/op")));
    EXPECT_TRUE(ladder->barLabels()[1].contains(QStringLiteral("2 switches")));
    double drawn = 0;
    for (int i = 0; i < ladder->plot()->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(ladder->plot()->plottable(i)))
            for (int j = 0; j < bars->dataCount(); ++j)
                drawn += bars->data()->at(j)->value;
    EXPECT_DOUBLE_EQ(drawn, 29.4 + 8500);
    EXPECT_EQ(ladder->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
}

// Every line of every category label fits its bar's slot, under its own bar.
void expectLabelsUnderTheirBars(const QCPAxis& axis, int count)
{
    const auto ticker = axis.ticker().dynamicCast<QCPAxisTickerText>();
    ASSERT_TRUE(ticker);
    ASSERT_EQ(ticker->ticks().size(), count);
    EXPECT_EQ(axis.tickLabelRotation(), 0) << "tilted labels sit between the groups";
    const QFontMetrics metrics(axis.tickLabelFont());
    const double slot = axis.axisRect()->width() / axis.range().size();
    for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
        EXPECT_DOUBLE_EQ(it.key(), static_cast<double>(std::distance(ticker->ticks().cbegin(), it) + 1));
        for (const QString& line : it.value().split(QLatin1Char('\n')))
            EXPECT_LT(metrics.horizontalAdvance(line), slot) << line.toStdString();
    }
}

TEST(Views, LadderLabelsBreakUnderTheirBarsWhenTheyDoNotFitSideBySide)
{
    LadderPlot ladder;
    std::vector<std::shared_ptr<const RunResult>> runs;
    for (const char* bench : { "coro-cxx20", "coro-fcontext", "coro-ucontext", "vdso", "syscall", "futex", "pipe" }) {
        auto r = std::make_shared<RunResult>(*ctxscope::testing::futexResult());
        r->bench = bench;
        r->stats.p50 = 10.0 + static_cast<double>(runs.size()) * 100;
        runs.push_back(r);
    }
    ladder.setRuns(runs);
    ladder.resize(1800, 500);
    ladder.show();
    ladder.plot()->replot(); // lays out the axis rect: its margins are known from here on
    ladder.resize(1800, 501);
    const auto labels = [&] { return ladder.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>()->ticks(); };
    EXPECT_EQ(labels().value(2.0), QStringLiteral("coro-fcontext")) << "seven names fit side by side in 1800 pixels";
    ladder.resize(560, 500); // what the plots get beside the map and a lesson
    ladder.plot()->replot();
    ladder.resize(560, 501);
    EXPECT_EQ(labels().value(2.0), QStringLiteral("coro-\nfcontext")) << "it would run into its neighbours";
    expectLabelsUnderTheirBars(*ladder.plot()->xAxis, 7);
    ladder.resize(1800, 500);
    EXPECT_EQ(labels().value(2.0), QStringLiteral("coro-fcontext"));
}

TEST(Views, CategoryLabelsBreakAfterSlashesSpacesAndDashes)
{
    const QFontMetrics metrics(QApplication::font());
    const int room = metrics.horizontalAdvance(QStringLiteral("futex/thread/"));
    EXPECT_EQ(wrapCategoryLabel(QStringLiteral("futex/thread/shared-l3"), metrics, room),
        QStringLiteral("futex/thread/\nshared-l3"));
    EXPECT_EQ(wrapCategoryLabel(QStringLiteral("futex/thread/shared-l3"), metrics, 1),
        QStringLiteral("futex/\nthread/\nshared-\nl3"));
    EXPECT_EQ(wrapCategoryLabel(QStringLiteral("vdso"), metrics, 1), QStringLiteral("vdso"));
}

TEST(Views, AMatrixFileFillsTheHeatmapAndAClickPlacesThePairOnTheMap)
{
    MainWindow window;
    window.resize(1280, 800);
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    const Status opened = window.fileMenu()->openResults(resultsFixture("matrix-futex.json"));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    HeatmapPlot* heat = window.plots()->heatmapPlot();
    const nlohmann::json doc = readJson(resultsFixture("matrix-futex.json"));
    const auto& pus = doc["matrix"]["pus"];
    ASSERT_EQ(heat->grid().size(), static_cast<int>(pus.size()));
    for (const auto& cell : doc["matrix"]["cells"]) {
        const int x = heat->grid().indexOfPu(cell["cpus"][1].get<int>());
        const int y = heat->grid().indexOfPu(cell["cpus"][0].get<int>());
        EXPECT_DOUBLE_EQ(heat->colorMap()->data()->cell(x, y), cell["median_ns"].get<double>());
        const QString tip = heat->toolTipAt(x, y);
        EXPECT_TRUE(tip.contains(QString::fromStdString(cell["relation"].get<std::string>()))) << tip.toStdString();
        EXPECT_TRUE(tip.contains(QStringLiteral("P#%1").arg(cell["cpus"][0].get<int>())));
    }
    window.show();
    window.plots()->showView(QStringLiteral("heatmap"));
    heat->plot()->replot();
    QSignalSpy clicked(heat, &HeatmapPlot::pairClicked);
    const int last = heat->grid().size() - 1;
    const QPoint pixel(static_cast<int>(heat->plot()->xAxis->coordToPixel(last)),
        static_cast<int>(heat->plot()->yAxis->coordToPixel(0)));
    QTest::mouseClick(heat->plot(), Qt::LeftButton, {}, pixel);
    ASSERT_EQ(clicked.count(), 1);
    const int a = pus[0].get<int>(), b = pus[static_cast<std::size_t>(last)].get<int>();
    EXPECT_EQ(clicked.at(0).at(0).toInt(), a);
    EXPECT_EQ(clicked.at(0).at(1).toInt(), b);
    EXPECT_EQ(window.mapPanel()->map()->selection(), (std::vector<int> { a, b }));
}

// A 2x2 matrix with one pair filled from its class: the legend of the rings is drawn, and
// outside the cells (inset at the top right, it covered the top row).
TEST(Views, TheHeatmapLegendSitsBesideTheCells)
{
    const Topology topo = ctxscope::testing::synthetic("pack:1 core:2 pu:1");
    auto matrix = std::make_shared<MatrixResult>();
    matrix->bench = "futex";
    matrix->pus = topo.allowedPus();
    ASSERT_EQ(matrix->pus.size(), 2U);
    const int a = matrix->pus[0], b = matrix->pus[1];
    matrix->cells = { { a, a, Relation::SamePu, 3000, std::nullopt, true, std::nullopt },
        { a, b, Relation::SharedL2, 9000, std::nullopt, true, std::nullopt },
        { b, b, Relation::SamePu, 3000, std::nullopt, false, std::nullopt } };
    HeatmapPlot heat;
    heat.resize(640, 480);
    heat.show();
    heat.setMatrix(matrix);
    heat.plot()->replot();
    QCPLegend* legend = heat.plot()->legend;
    ASSERT_TRUE(legend->visible()) << "one cell is filled from its class: the rings need their legend";
    const QRect cells = heat.plot()->axisRect()->rect();
    EXPECT_FALSE(legend->outerRect().intersects(cells))
        << "legend " << legend->outerRect().y() << "+" << legend->outerRect().height() << ", cells from " << cells.y();
    EXPECT_GT(legend->outerRect().height(), 0);
}

TEST(Views, TheHeatmapOf256PusMarksTheMeasuredCellsAndAnswersHoverAndClick)
{
    const Topology topo = ctxscope::testing::synthetic("pack:2 l3:4 core:16 pu:2");
    auto matrix = std::make_shared<MatrixResult>();
    matrix->bench = "futex";
    matrix->pus = topo.allowedPus();
    const auto representatives = representativePairs(topo);
    for (std::size_t i = 0; i < matrix->pus.size(); ++i)
        for (std::size_t j = i; j < matrix->pus.size(); ++j) {
            const int a = matrix->pus[i], b = matrix->pus[j];
            const Relation rel = *relationOf(topo, a, b);
            bool measured = false;
            for (const PuPair& p : representatives)
                measured = measured || (p.a == a && p.b == b);
            matrix->cells.push_back(
                { a, b, rel, 2000.0 * (1 + static_cast<int>(rel)), std::nullopt, measured, std::nullopt });
        }
    HeatmapPlot heat;
    heat.resize(900, 800);
    heat.show();
    heat.setMatrix(matrix);
    heat.plot()->replot();
    EXPECT_EQ(heat.colorMap()->data()->keySize(), 256);
    // A ring on each measured cell, in both halves of the symmetric map.
    int rings = 0;
    for (const PuPair& p : representatives)
        rings += p.a == p.b ? 1 : 2;
    ASSERT_EQ(heat.measuredMarks()->dataCount(), rings);
    const QString tip = heat.toolTipAt(heat.grid().indexOfPu(255), heat.grid().indexOfPu(0));
    EXPECT_TRUE(tip.contains(QStringLiteral("P#0 ↔ P#255"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("cross-package")));
    EXPECT_TRUE(tip.contains(QStringLiteral("filled from its class")));
    QSignalSpy clicked(&heat, &HeatmapPlot::pairClicked);
    const QPoint pixel(static_cast<int>(heat.plot()->xAxis->coordToPixel(200)),
        static_cast<int>(heat.plot()->yAxis->coordToPixel(10)));
    QTest::mouseClick(heat.plot(), Qt::LeftButton, {}, pixel);
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.at(0).at(0).toInt(), matrix->pus[10]);
    EXPECT_EQ(clicked.at(0).at(1).toInt(), matrix->pus[200]);
}

TEST(Views, AnotherMachinesFileOverlaysMatchedByBenchModeAndClass)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    window.store()->addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue });
    const Status opened = window.fileMenu()->compareWith(resultsFixture("other-machine.json"));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    const ComparePlot* compare = window.plots()->comparePlot();
    EXPECT_EQ(window.plots()->tabs()->currentWidget(), compare);
    ASSERT_EQ(compare->sources().size(), 2U);
    const QString legend = compare->sources()[1].legend();
    EXPECT_TRUE(legend.contains(QStringLiteral("lab-epyc-7"))) << legend.toStdString();
    EXPECT_TRUE(legend.contains(QStringLiteral("AMD EPYC 7763 64-Core Processor"))) << legend.toStdString();
    EXPECT_TRUE(legend.contains(QStringLiteral("bare metal"))) << legend.toStdString();
    // The file's futex same-pu run (on its own CPU numbers) sits beside ours; its other
    // classes stand alone.
    const nlohmann::json doc = readJson(resultsFixture("other-machine.json"));
    std::map<std::string, double> theirs;
    for (const auto& entry : doc["benchmarks"])
        theirs[entry["name"].get<std::string>()] = entry["real_time"].get<double>();
    ASSERT_TRUE(theirs.count("futex/thread/same-pu"));
    const auto& rows = compare->rows();
    ASSERT_EQ(rows.size(), theirs.size());
    EXPECT_EQ(rows[0].key, "futex/thread/same-pu");
    EXPECT_DOUBLE_EQ(*rows[0].medianNs[0], 8500);
    EXPECT_DOUBLE_EQ(*rows[0].medianNs[1], theirs["futex/thread/same-pu"]);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_FALSE(rows[i].medianNs[0].has_value()) << rows[i].key;
        EXPECT_DOUBLE_EQ(*rows[i].medianNs[1], theirs[rows[i].key]);
    }
    ASSERT_NE(compare->bars(1), nullptr);
    EXPECT_EQ(compare->bars(1)->dataCount(), static_cast<int>(theirs.size()));
    EXPECT_EQ(compare->bars(0)->dataCount(), 1);
    EXPECT_EQ(compare->bars(1)->name(), legend);
    // Beside the map at 1280, every group's label sits under its group, the last one too.
    window.resize(1280, 800);
    window.show();
    compare->plot()->replot();
    compare->plot()->resize(compare->plot()->size() + QSize(0, 1)); // the axis's margins are known now
    expectLabelsUnderTheirBars(*compare->plot()->xAxis, static_cast<int>(rows.size()));
}
