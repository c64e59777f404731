// SPDX-License-Identifier: MIT
// How the app looks in front of a class: presentation mode (F11), the dark palette, the
// lesson panel beside the plots. Offscreen, on synthetic topologies (no runs).
#include "apppalette.h"
#include "lessonpanel.h"
#include "liveplot.h"
#include "lookcontroller.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "statuspanel.h"
#include "testtopologies.h"
#include "topologymappanel.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QSplitter>
#include <QTableView>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

// Restyling waits for the palette and font to reach every child (a zero timer).
void settle()
{
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
}

struct Look {
    double appFont = 0;
    double tickFont = 0;
    double mapFont = 0;
    QColor tickColor, text, base, mid;
    int gridAlpha = 0;
    double summaryFont = 0;
};

Look lookOf(const MainWindow& window)
{
    const QCustomPlot& plot = *window.plots()->livePlot()->plot();
    const QPalette pal = QApplication::palette();
    return { QApplication::font().pointSizeF(), plot.xAxis->tickLabelFont().pointSizeF(),
        window.mapPanel()->map()->mapLayout().fontPixels, plot.xAxis->tickLabelColor(), pal.color(QPalette::Text),
        pal.color(QPalette::Base), pal.color(QPalette::Mid), plot.xAxis->grid()->pen().color().alpha(),
        window.mapPanel()->summaryLabel()->font().pointSizeF() };
}

QDockWidget* runDock(const MainWindow& window) { return window.findChild<QDockWidget*>(QStringLiteral("runDock")); }

} // namespace

TEST(Look, PresentationModeIsLargeHighContrastAndHidesTheControlsThenGivesAllBack)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:2 core:16 pu:2")); // 64 PUs: the map is not at its zoom cap
    window.show();
    settle();
    const Look before = lookOf(window);
    ASSERT_FALSE(runDock(window)->isHidden());

    window.look()->setPresentationMode(true);
    settle();
    const Look on = lookOf(window);
    EXPECT_TRUE(window.look()->isPresenting());
    EXPECT_NEAR(on.appFont, before.appFont * 1.3, 0.01);
    EXPECT_GT(on.tickFont, before.tickFont * 1.25) << "the plots follow the larger font";
    EXPECT_GT(on.mapFont, before.mapFont) << "the map's labels trade detail for size";
    EXPECT_GT(on.summaryFont, before.summaryFont * 1.25) << "the placement under the map grows too";
    EXPECT_GE(contrastRatio(on.text, on.base), 20.0);
    EXPECT_GE(contrastRatio(on.mid, on.base), 7.0) << "grid and borders survive a projector";
    EXPECT_EQ(on.tickColor, on.text) << "the plots restyled from the new palette";
    EXPECT_GE(on.gridAlpha, 200);
    EXPECT_TRUE(runDock(window)->isHidden());
    EXPECT_TRUE(window.resultsTable()->isHidden());

    window.look()->setPresentationMode(false);
    settle();
    const Look off = lookOf(window);
    EXPECT_FALSE(window.look()->isPresenting());
    EXPECT_DOUBLE_EQ(off.appFont, before.appFont);
    EXPECT_DOUBLE_EQ(off.tickFont, before.tickFont);
    EXPECT_EQ(off.text, before.text);
    EXPECT_EQ(off.base, before.base);
    EXPECT_EQ(off.mid, before.mid);
    EXPECT_EQ(off.gridAlpha, before.gridAlpha);
    EXPECT_FALSE(runDock(window)->isHidden());
    EXPECT_FALSE(window.resultsTable()->isHidden());
}

TEST(Look, DarkPaletteInPresentationIsWhiteOnBlackAndStaysDarkAfter)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:4 pu:2"));
    window.show();
    window.look()->setPresentationMode(true);
    window.look()->setDarkPalette(true);
    settle();
    const Look on = lookOf(window);
    EXPECT_EQ(on.base, QColor(Qt::black));
    EXPECT_EQ(on.text, QColor(Qt::white));
    EXPECT_GE(contrastRatio(on.mid, on.base), 7.0);
    EXPECT_EQ(on.tickColor, on.text);

    window.look()->setPresentationMode(false);
    settle();
    const Look off = lookOf(window);
    EXPECT_EQ(off.base, darkPalette().color(QPalette::Base)) << "the dark palette chosen meanwhile stays";
    EXPECT_EQ(off.tickColor, darkPalette().color(QPalette::Text));
    window.look()->setDarkPalette(false);
    settle();
    EXPECT_GT(lookOf(window).base.lightness(), 200);
}

TEST(Look, TheMedianLineStandsOutFromItsPointsOnLightAndDarkBackgrounds)
{
    MainWindow window;
    window.show();
    LivePlot& live = *window.plots()->livePlot();
    const QColor blue(0x00, 0x72, 0xB2); // the first run colour
    live.beginRun(1, QStringLiteral("futex"), blue);
    live.addSamples(1, QVector<double>(400, 5000.0));
    live.finishRun(1);
    window.look()->setDarkPalette(false);
    settle();
    const QColor onLight = live.medianGraph(1)->pen().color();
    EXPECT_LT(onLight.lightness(), blue.lightness());
    window.look()->setDarkPalette(true);
    settle();
    const QColor onDark = live.medianGraph(1)->pen().color();
    EXPECT_GT(onDark.lightness(), blue.lightness()) << "a darkened blue vanished on black";
    EXPECT_GT(contrastRatio(onDark, darkPalette().color(QPalette::Base)),
        contrastRatio(blue, darkPalette().color(QPalette::Base)));
    window.look()->setDarkPalette(false);
}

TEST(Look, TheLessonPanelSitsBesideThePlotsAndClosesAndReopens)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:4 pu:2"));
    window.resize(1900, 1000);
    window.show();
    settle();
    LessonPanel* panel = window.lessonPanel();
    ASSERT_NE(panel, nullptr);
    EXPECT_TRUE(panel->isHidden()) << "no lesson, no panel";
    auto* row = qobject_cast<QSplitter*>(panel->parentWidget());
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->indexOf(panel), row->indexOf(window.plots()) + 1) << "right of the plots, in one row";
    EXPECT_EQ(panel->text(), window.lessonView());

    QAction* toggle = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Lesson panel"))
            toggle = a;
    ASSERT_NE(toggle, nullptr) << "View → Lesson panel";
    const QList<int> mapAndPlots = row->sizes();
    toggle->trigger();
    settle();
    EXPECT_FALSE(panel->isHidden());
    const QList<int> sizes = row->sizes();
    EXPECT_GE(sizes.at(2), panel->minimumWidth());
    EXPECT_GE(sizes.at(1), 450) << "the plots keep room beside the explanation";
    EXPECT_GE(sizes.at(1), sizes.at(2)) << "and more than it";
    EXPECT_GT(sizes.at(0), 0) << "1900 pixels leave room for the map too";

    emit panel->closeClicked();
    settle();
    EXPECT_TRUE(panel->isHidden());
    EXPECT_FALSE(toggle->isChecked());
    EXPECT_EQ(row->sizes().at(0), mapAndPlots.at(0)) << "the map gets its width back";
}

TEST(Look, TheLessonRowFoldsTheMapWhenNarrowAndBringsItBackWhenWider)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:4 pu:2"));
    window.resize(1000, 700); // narrower than the app's default: map, plots and panel cannot all fit
    window.show();
    settle();
    auto* row = qobject_cast<QSplitter*>(window.lessonPanel()->parentWidget());
    ASSERT_NE(row, nullptr);
    QAction* toggle = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Lesson panel"))
            toggle = a;
    ASSERT_NE(toggle, nullptr);
    toggle->trigger();
    settle();
    EXPECT_EQ(row->sizes().at(0), 0) << "the map folds rather than squeezing the plots";
    EXPECT_GE(row->sizes().at(1), 450);
    window.resize(2200, 1000); // e.g. presentation mode on a wide screen
    settle();
    EXPECT_GT(row->sizes().at(0), 0) << "with room again, the map is back beside plots and lesson";
    EXPECT_GE(row->sizes().at(1), 450);
    EXPECT_GE(row->sizes().at(2), window.lessonPanel()->minimumWidth());
}

TEST(Look, StatusColoursStayReadableOnTheDarkPalettes)
{
    MainWindow window;
    window.show();
    window.statusPanel()->setWorkerState(RunController::State::Idle); // "Worker: ready" in green
    QLabel* worker = nullptr;
    for (QLabel* label : window.statusPanel()->findChildren<QLabel*>())
        if (label->text() == window.statusPanel()->workerText())
            worker = label;
    ASSERT_NE(worker, nullptr);
    for (bool presenting : { false, true }) {
        window.look()->setPresentationMode(presenting);
        window.look()->setDarkPalette(true); // the colour follows the palette change
        settle();
        const QString style = worker->styleSheet();
        ASSERT_TRUE(style.contains(QStringLiteral("color:#"))) << style.toStdString();
        const QColor color(style.mid(style.indexOf(QLatin1Char('#')), 7));
        EXPECT_GE(contrastRatio(color, QApplication::palette().color(QPalette::Window)), 4.5)
            << style.toStdString() << (presenting ? " (presentation)" : "");
    }
    window.look()->setPresentationMode(false);
    window.look()->setDarkPalette(false);
}
