// SPDX-License-Identifier: MIT
// How the app looks in front of a class: presentation mode (F11), the dark palette, the
// lesson panel beside the plots. Offscreen, on synthetic topologies (no runs).
#include "apppalette.h"
#include "ladderplot.h"
#include "lessonpanel.h"
#include "liveplot.h"
#include "lookcontroller.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "sessionfile.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "testtopologies.h"
#include "topologymappanel.h"
#include "verdictcard.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFontInfo>
#include <QLabel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>

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

TEST(Look, AViewShownAfterThePaletteChangedTakesIt)
{
    // A hidden tab's widgets get the new palette only when shown: restyled then, not before.
    MainWindow window;
    window.show();
    ASSERT_TRUE(window.plots()->showView(QStringLiteral("live")));
    window.look()->setDarkPalette(true);
    settle();
    ASSERT_TRUE(window.plots()->showView(QStringLiteral("ladder")));
    settle();
    const QColor text = QApplication::palette().color(QPalette::Text);
    EXPECT_EQ(window.plots()->ladderPlot()->plot()->xAxis->tickLabelColor(), text);
    window.look()->setDarkPalette(false);
    settle();
    EXPECT_EQ(
        window.plots()->ladderPlot()->plot()->xAxis->tickLabelColor(), QApplication::palette().color(QPalette::Text));
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
    // The plots and the explanation give way down to their least (the plots 360 pixels) before
    // the map folds; the map is never squeezed below what its boxes need.
    const int mapLeast = row->widget(0)->minimumWidth();
    EXPECT_GE(row->sizes().at(1), 360) << "the plots keep their least width";
    EXPECT_TRUE(row->sizes().at(0) == 0 || row->sizes().at(0) >= mapLeast) << row->sizes().at(0);
    window.resize(760, 700); // narrower still: the map folds rather than squeezing the plots
    settle();
    if (window.width() <= 760) {
        EXPECT_EQ(row->sizes().at(0), 0) << "the map folds rather than squeezing the plots";
        EXPECT_GE(row->sizes().at(1), 360);
    }
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
    window.statusPanel()->setWorkerState(WorkerClient::State::Idle); // "Worker: ready" in green
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

namespace {

// A finished pinning lesson as the store keeps it (its figures as a 2-vCPU VM measured them).
LessonRecord pinningLesson()
{
    LessonRecord lesson;
    lesson.id = "pinning";
    lesson.steps = { { "futex threads, same-pu (CPUs 0,0)", "median 2.10 µs per op" },
        { "futex threads, shared-l3 (CPUs 0,1)", "median 17.6 µs per op" },
        { "futex threads, unpinned", "median 16.9 µs per op" } };
    lesson.conclusion = { "Pinned futex round trips ranked by median: 1. CPUs 0,0 (same-pu): 2.10 µs; 2. CPUs 0,1 "
                          "(shared-l3): 17.6 µs.",
        "Placement matters here: the slowest pinned placement, CPUs 0,1 (shared-l3), cost 8.40 times (95% interval "
        "8.21–8.63) the fastest, CPUs 0,0 (same-pu)." };
    lesson.finished = true;
    return lesson;
}

// Its headline, as lessonHeadline draws it from such runs.
const LessonHeadline kPinningHeadline { "Across CPUs sharing an L3: 8.40× slower than on one PU",
    LessonHeadline::Kind::Differs, 8.21, 8.63 };

QAction* lessonPanelAction(const MainWindow& window)
{
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Lesson panel"))
            return a;
    return nullptr;
}

// Presentation mode at a projector's size. (The offscreen screen is 800x600: full screen
// there is smaller than any projector, so the window is given the size instead, once leaving
// full screen has given back the normal geometry: resized before that, the window ended at
// its least width in presentation type, 975 pixels, where the map's 487 left the plot 466.)
void presentAt(MainWindow& window, QSize size)
{
    window.look()->setPresentationMode(true);
    window.setWindowState(Qt::WindowNoState);
    settle();
    window.resize(size);
    settle();
    EXPECT_EQ(window.size(), size) << "the projector's size";
}

} // namespace

TEST(Look, PresentationShowsTheVerdictCardInLargeTypeWithTheMapBesideThePlot)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 l3:1 core:2 pu:1"));
    window.show();
    window.store()->addLesson(pinningLesson());
    EXPECT_EQ(window.verdictCard()->headline()->text(), QStringLiteral("Does placement matter?"))
        << "a lesson reopened from a file has its sentences, no headline: its question stands in";
    window.verdictCard()->setLesson(pinningLesson(), kPinningHeadline);
    QAction* panel = lessonPanelAction(window);
    ASSERT_NE(panel, nullptr);
    panel->trigger(); // the lesson open beside the plots, as after a lesson
    settle();
    auto* row = qobject_cast<QSplitter*>(window.lessonPanel()->parentWidget());
    ASSERT_NE(row, nullptr);
    const int handleBefore = row->handleWidth();
    window.statusPanel()->setAffinityNote(QStringLiteral("Unpinned run: the GUI may share P#0-1 with it."), true);
    window.statusPanel()->setWorkerState(WorkerClient::State::Idle);

    for (const QSize size : { QSize(1280, 800), QSize(1920, 1080) }) {
        SCOPED_TRACE(std::to_string(size.width()));
        presentAt(window, size);
        VerdictCard* card = window.verdictCard();
        ASSERT_TRUE(card->isVisible()) << "the lesson is its verdict card";
        EXPECT_TRUE(window.lessonPanel()->isHidden()) << "the card takes the panel's place";
        const QLabel* headline = card->headline();
        EXPECT_EQ(headline->text(), QStringLiteral("Across CPUs sharing an L3: 8.40× slower than on one PU"));
        EXPECT_GE(QFontInfo(headline->font()).pixelSize(), 28);
        EXPECT_LT(headline->height(), 2 * headline->fontMetrics().lineSpacing()) << "one line";
        EXPECT_GE(headline->height(), headline->heightForWidth(headline->width())) << "nothing cut off";
        EXPECT_TRUE(card->badge()->text().contains(QStringLiteral("8.21–8.63"))) << card->badge()->text().toStdString();
        EXPECT_TRUE(card->details()->isHidden()) << "the details are folded";
        EXPECT_LE(card->geometry().bottom(), size.height() / 4) << "the card leaves the room to the plot";
        // The map beside the plot, each with room, and a handle a hand can grab.
        const QList<int> sizes = row->sizes();
        EXPECT_TRUE(window.mapPanel()->isVisible());
        EXPECT_GE(sizes.at(0), 300) << "the map";
        EXPECT_GE(window.plots()->width(), size.width() / 2) << "the plot: its axis labels apart";
        EXPECT_GE(row->handleWidth(), 10);
        // Nothing only a developer reads.
        for (const QLabel* label : window.statusPanel()->findChildren<QLabel*>())
            if (label->isVisible()) {
                EXPECT_FALSE(label->text().contains(QStringLiteral("GUI may share"))) << label->text().toStdString();
                EXPECT_FALSE(label->text().startsWith(QStringLiteral("Worker:"))) << label->text().toStdString();
            }
    }
    VerdictCard* card = window.verdictCard();
    card->detailsButton()->click();
    settle();
    EXPECT_TRUE(card->details()->isVisible());
    EXPECT_TRUE(card->details()->toPlainText().contains(QStringLiteral("Placement matters here")));

    window.look()->setPresentationMode(false);
    settle();
    EXPECT_TRUE(card->isHidden());
    EXPECT_FALSE(window.lessonPanel()->isHidden()) << "the panel is back beside the plots";
    EXPECT_EQ(row->handleWidth(), handleBefore);
    EXPECT_FALSE(window.statusPanel()->affinityText().isEmpty());
}

TEST(Look, EveryViewsTabShowsAt1280)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:4 pu:2"));
    window.resize(1280, 800);
    window.show();
    settle();
    const auto tabsFit = [&window] {
        const QTabBar* bar = window.plots()->tabs()->tabBar();
        int width = 0;
        for (int i = 0; i < bar->count(); ++i)
            width += bar->tabRect(i).width();
        return width <= bar->width();
    };
    for (const QString& view : { QStringLiteral("live"), QStringLiteral("distribution"), QStringLiteral("compare") }) {
        window.plots()->showView(view);
        settle();
        EXPECT_TRUE(tabsFit()) << view.toStdString();
    }
    presentAt(window, QSize(1280, 800));
    window.plots()->showView(QStringLiteral("distribution"));
    settle();
    EXPECT_TRUE(tabsFit()) << "in presentation mode's larger type";
    window.look()->setPresentationMode(false);
}

TEST(Look, ATemporaryMessageHasItsOwnRoomBesideThePermanentLabels)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:4 pu:2"));
    window.resize(1280, 800);
    window.show();
    StatusPanel* status = window.statusPanel();
    status->setWorkerState(WorkerClient::State::Running);
    status->setAffinityNote(QStringLiteral("Unpinned run: the GUI may share P#0-1 with it."), true);
    status->setSwitchRateOfRun(123456.0);
    status->setRunProgress(QStringLiteral("futex threads, shared-l3 (CPUs 0,1): repetition 3 of 5"));
    const QString message = QStringLiteral("Lesson done: its conclusion is in the lesson panel.");
    window.statusBar()->showMessage(message, 15000);
    settle();
    const int room = status->geometry().left();
    // QStatusBar draws the message from 6 pixels in to 2 before its first permanent widget.
    EXPECT_GE(room - 8, window.statusBar()->fontMetrics().horizontalAdvance(message))
        << "the message ends before the permanent labels begin";
    int shown = 0;
    for (const QLabel* label : status->findChildren<QLabel*>())
        if (label->isVisible()) {
            ++shown;
            EXPECT_GE(label->contentsRect().width(), label->fontMetrics().horizontalAdvance(label->text()))
                << "beside a message a label is whole or steps aside: " << label->text().toStdString();
        }
    EXPECT_GE(shown, 1) << "the labels that fit stay";
    status->setRunProgress(QString()); // the run ended while its message shows
    settle();
    // The labels the progress left room for come back.
    for (const QLabel* label : status->findChildren<QLabel*>()) {
        if (label->text() == status->machineText() || label->text() == status->workerText()) {
            EXPECT_TRUE(label->isVisible()) << label->text().toStdString();
        }
    }
    window.statusBar()->clearMessage();
    settle();
    EXPECT_LT(status->geometry().left(), room) << "without a message the labels have their room back";
}
