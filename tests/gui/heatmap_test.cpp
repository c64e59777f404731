// SPDX-License-Identifier: MIT
// The heatmap of a spin matrix (one-way hand-overs, values printed in small matrices) and of
// a 512-PU one (a click still places the pair on the map).
#include "heatmapplot.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "sessionstore.h"
#include "testtopologies.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"

#include "ctxscope/placement.h"
#include "ctxscope/units.h"

#include <QFontMetricsF>
#include <QTest>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

// Every pair of the topology's PUs measured, the round trip growing with the relation class.
std::shared_ptr<MatrixResult> allPairs(const Topology& topology, const std::string& bench)
{
    auto matrix = std::make_shared<MatrixResult>();
    matrix->bench = bench;
    matrix->matrixMode = MatrixMode::AllPairs;
    matrix->pus = topology.allowedPus();
    for (std::size_t i = 0; i < matrix->pus.size(); ++i)
        for (std::size_t j = i; j < matrix->pus.size(); ++j) {
            const int a = matrix->pus[i], b = matrix->pus[j];
            const Relation relation = *relationOf(topology, a, b);
            matrix->cells.push_back(
                { a, b, relation, 100.0 * (2 + static_cast<int>(relation)) + a, std::nullopt, true, std::nullopt });
        }
    return matrix;
}

double cellWidthPixels(const HeatmapPlot& heat)
{
    return std::abs(heat.plot()->xAxis->coordToPixel(1) - heat.plot()->xAxis->coordToPixel(0));
}

} // namespace

TEST(Heatmap, ASpinMatrixShowsOneWayHandOversAndPrintsThemInEveryCellOfSixteenPus)
{
    const Topology topology = synthetic("pack:1 l3:2 core:4 pu:2");
    const auto matrix = allPairs(topology, "spin");
    ASSERT_EQ(matrix->pus.size(), 16U);
    HeatmapPlot heat;
    heat.resize(900, 800);
    heat.show();
    heat.setMatrix(matrix);
    heat.plot()->replot();
    EXPECT_EQ(heat.value(), HeatValue::OneWay);
    EXPECT_EQ(heat.colorMap()->colorScale()->axis()->label(), QStringLiteral("one-way hand-over"));
    ASSERT_EQ(heat.cellLabels().size(), 16 * 16);
    const double cellWidth = cellWidthPixels(heat);
    for (const QCPItemText* label : heat.cellLabels()) {
        const auto x = static_cast<int>(label->position->key());
        const auto y = static_cast<int>(label->position->value());
        const MatrixCell* cell = heat.grid().cellAt(x, y);
        ASSERT_NE(cell, nullptr);
        // The round trip is two hand-overs: the cell shows half of it, colour and text.
        EXPECT_DOUBLE_EQ(heat.colorMap()->data()->cell(x, y), cell->medianNs / 2);
        EXPECT_EQ(label->text(), QString::fromStdString(formatDuration(cell->medianNs / 2)));
        EXPECT_TRUE(label->visible());
        EXPECT_LE(QFontMetricsF(label->font()).horizontalAdvance(label->text()), cellWidth)
            << "value wider than its cell";
    }
    const QString tip = heat.toolTipAt(heat.grid().indexOfPu(15), heat.grid().indexOfPu(0));
    EXPECT_TRUE(tip.contains(
        QString::fromStdString(formatDuration(heat.grid().cellAt(15, 0)->medianNs / 2)) + QStringLiteral(" one way")))
        << tip.toStdString();

    heat.setValue(HeatValue::RoundTrip);
    heat.plot()->replot();
    EXPECT_DOUBLE_EQ(heat.colorMap()->data()->cell(15, 0), heat.grid().cellAt(15, 0)->medianNs);
}

TEST(Heatmap, ValuesStayInTheCellsOnlyWhileTheyFit)
{
    const auto matrix = allPairs(synthetic("pack:1 l3:2 core:4 pu:2"), "futex");
    HeatmapPlot heat;
    heat.show();
    heat.setMatrix(matrix);
    EXPECT_EQ(heat.value(), HeatValue::RoundTrip); // a sleeping handoff opens with its round trip
    heat.resize(300, 260); // cells of a few pixels: no room for a number
    heat.plot()->replot();
    ASSERT_FALSE(heat.cellLabels().isEmpty());
    EXPECT_FALSE(heat.cellLabels().front()->visible());
    heat.resize(1000, 900);
    heat.plot()->replot();
    EXPECT_TRUE(heat.cellLabels().front()->visible());

    heat.setMatrix(allPairs(synthetic("pack:1 core:17 pu:1"), "futex"));
    heat.plot()->replot();
    EXPECT_TRUE(heat.cellLabels().isEmpty()); // 17 PUs: the colours and the tooltip carry the values
}

TEST(Heatmap, ClickingACellOfA512PuMatrixPlacesThePairOnTheMap)
{
    const Topology topology = synthetic("pack:2 l3:8 core:16 pu:2");
    MainWindow window;
    window.resize(1920, 1200); // at 1280 x 800 a cell of 512 is under a pixel wide
    window.setTopology(topology);
    window.store()->addMatrix(allPairs(topology, "spin"), QStringLiteral("a test matrix"));
    window.plots()->showView(QStringLiteral("heatmap")); // as opening a matrix file does
    window.show();
    HeatmapPlot* heat = window.plots()->heatmapPlot();
    heat->plot()->replot();
    ASSERT_EQ(heat->grid().size(), 512);
    ASSERT_GE(cellWidthPixels(*heat), 1.0) << "cells under a pixel cannot all be clicked";
    for (const auto& [x, y] : { std::pair { 500, 3 }, std::pair { 0, 511 }, std::pair { 257, 256 } }) {
        const QPoint pixel(static_cast<int>(std::lround(heat->plot()->xAxis->coordToPixel(x))),
            static_cast<int>(std::lround(heat->plot()->yAxis->coordToPixel(y))));
        ASSERT_EQ(heat->cellAtPixel(pixel), QPoint(x, y));
        window.plots()->showView(QStringLiteral("heatmap"));
        QTest::mouseClick(heat->plot(), Qt::LeftButton, {}, pixel);
        const int a = heat->grid().pus()[static_cast<std::size_t>(y)];
        const int b = heat->grid().pus()[static_cast<std::size_t>(x)];
        EXPECT_EQ(window.mapPanel()->map()->selection(), (std::vector<int> { a, b }));
    }
}
