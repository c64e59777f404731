// SPDX-License-Identifier: MIT
// The map at sizes where not every label fits: the caption says what is hidden, and
// zooming (keys, Ctrl+wheel) brings the labels back while clicks still land on the PU drawn.
#include "mainwindow.h"
#include "mapscrollarea.h"
#include "test_paths.h"
#include "testtopologies.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"

#include <QApplication>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

Topology server()
{
    auto topology = Topology::loadXmlFile(
        std::string(ctxscope::test::fixturesDir()) + "/topology/good/xeon-24-packages-384pu.xml");
    EXPECT_TRUE(topology.ok());
    return std::move(*topology);
}

// The panel at the size the map pane has in the default 1280 × 800 window.
struct Panel {
    explicit Panel(const Topology& topology, QSize size = QSize(860, 560))
    {
        panel.resize(size);
        panel.setTopology(topology);
        panel.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&panel));
    }
    TopologyMapWidget& map() { return *panel.map(); }
    MapScrollArea& view() { return *panel.mapView(); }
    TopologyMapPanel panel;
};

void press(QWidget& widget, Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QTest::keyClick(&widget, key, modifiers);
}

} // namespace

TEST(MapZoom, AtZoomOneTheMapFillsTheViewWithoutScrollBars)
{
    Panel p(synthetic("pack:2 l3:2 core:4 pu:2"));
    EXPECT_EQ(p.view().zoom(), 1.0);
    EXPECT_EQ(p.map().size(), p.view().viewport()->size());
    EXPECT_FALSE(p.view().horizontalScrollBar()->isVisible());
    EXPECT_FALSE(p.view().verticalScrollBar()->isVisible());
    EXPECT_TRUE(p.map().labelsNote().isEmpty()); // a small machine: every level labelled
}

TEST(MapZoom, KeysZoomTheServerInAndOutAndClicksStillHitThePu)
{
    Panel p(server());
    const QSize fitted = p.map().size();
    const double fittedFont = p.map().mapLayout().fontPixels;
    p.map().setFocus();
    for (int i = 0; i < 3; ++i)
        press(p.map(), Qt::Key_Plus);
    EXPECT_DOUBLE_EQ(p.view().zoom(), MapScrollArea::kStep * MapScrollArea::kStep * MapScrollArea::kStep);
    EXPECT_EQ(p.map().width(), qRound(fitted.width() * p.view().zoom()));
    EXPECT_GT(p.view().horizontalScrollBar()->maximum(), 0); // it scrolls
    // Zoomed in, every level is labelled, larger than it was.
    const TopologyLayout& layout = p.map().mapLayout();
    EXPECT_TRUE(layout.puNumbers);
    EXPECT_EQ(layout.titles, TitleDetail::Long);
    EXPECT_GT(layout.fontPixels, fittedFont * 1.2);
    EXPECT_TRUE(p.map().labelsNote().isEmpty()) << p.map().labelsNote().toStdString();

    // Scrolled to the last PU, a click where the view shows it lands on that PU.
    const int last = layout.puBox(383);
    ASSERT_GE(last, 0);
    const QPoint inMap = layout.boxes[static_cast<std::size_t>(last)].rect.center().toPoint();
    p.view().ensureVisible(inMap.x(), inMap.y());
    ASSERT_GT(p.view().horizontalScrollBar()->value() + p.view().verticalScrollBar()->value(), 0) << "not scrolled";
    const QPoint inView = p.map().mapTo(p.view().viewport(), inMap);
    ASSERT_TRUE(p.view().viewport()->rect().contains(inView)) << "P#383 is not in sight";
    QWidget* hit = p.view().viewport()->childAt(inView);
    ASSERT_EQ(hit, &p.map());
    QTest::mouseClick(hit, Qt::LeftButton, Qt::NoModifier, hit->mapFrom(p.view().viewport(), inView));
    EXPECT_EQ(p.map().selection(), (std::vector<int> { 383 }));

    press(p.map(), Qt::Key_0);
    EXPECT_EQ(p.view().zoom(), 1.0);
    EXPECT_EQ(p.map().size(), fitted);
    press(p.map(), Qt::Key_Minus); // not below fitting the pane
    EXPECT_EQ(p.view().zoom(), 1.0);
}

TEST(MapZoom, CtrlWheelZoomsAroundTheMouseAndThePlainWheelScrolls)
{
    Panel p(server());
    QWidget* viewport = p.view().viewport();
    const QPointF at(viewport->width() * 0.75, viewport->height() * 0.25);
    const auto wheel = [&](Qt::KeyboardModifiers modifiers) {
        QWheelEvent event(
            at, viewport->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
        QApplication::sendEvent(viewport, &event);
    };
    const QPointF fraction(at.x() / p.map().width(), at.y() / p.map().height());
    wheel(Qt::ControlModifier);
    EXPECT_DOUBLE_EQ(p.view().zoom(), MapScrollArea::kStep);
    // The spot under the mouse stays under it.
    const QPointF under = p.map().mapFrom(viewport, at.toPoint());
    EXPECT_NEAR(under.x() / p.map().width(), fraction.x(), 0.01);
    EXPECT_NEAR(under.y() / p.map().height(), fraction.y(), 0.01);

    const int before = p.view().verticalScrollBar()->value();
    ASSERT_GT(before, 0);
    wheel(Qt::NoModifier); // scrolls up, zoom unchanged
    EXPECT_DOUBLE_EQ(p.view().zoom(), MapScrollArea::kStep);
    EXPECT_LT(p.view().verticalScrollBar()->value(), before);
}

TEST(MapZoom, TheCaptionSaysWhatIsHiddenAndHoverStillNamesEveryPu)
{
    // 1024 PUs in a small pane: no room for numbers at a readable size.
    Panel p(synthetic("pack:2 numa:2 l3:8 core:16 pu:2"), QSize(640, 420));
    const TopologyLayout& layout = p.map().mapLayout();
    ASSERT_FALSE(layout.puNumbers);
    const QString said = layout.titles == TitleDetail::None ? QStringLiteral("Labels hidden: hover or zoom")
                                                            : QStringLiteral("PU numbers hidden: hover or zoom");
    EXPECT_TRUE(QTest::qWaitFor([&] { return p.panel.labelsNote()->text() == said; }, 5000))
        << p.panel.labelsNote()->text().toStdString();
    for (int cpu : { 0, 511, 1023 }) {
        const LayoutBox& box = layout.boxes[static_cast<std::size_t>(layout.puBox(cpu))];
        EXPECT_TRUE(box.label.isEmpty());
        EXPECT_TRUE(p.map().toolTipAt(box.rect.center()).startsWith(QStringLiteral("PU P#%1 (").arg(cpu)));
    }
    // Zoomed back to where the numbers fit, the caption goes.
    while (!p.map().mapLayout().puNumbers && p.view().zoom() < MapScrollArea::kMaxZoom)
        p.view().zoomIn();
    ASSERT_TRUE(p.map().mapLayout().puNumbers);
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            const QString text = p.panel.labelsNote()->text();
            return !text.startsWith(QStringLiteral("PU")) && !text.startsWith(QStringLiteral("No labels"));
        },
        5000))
        << p.panel.labelsNote()->text().toStdString();
}

TEST(MapZoom, InTheDefaultWindowTheServersCaptionReadsWholeOnALineOfItsOwn)
{
    // A projector's window: 1280 x 800, the 384-PU server fitted. The caption once sat in the
    // toolbar row, where the buttons left it no width at all.
    MainWindow window;
    window.setTopology(server());
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_EQ(window.size(), QSize(1280, 800));
    TopologyMapPanel* panel = window.mapPanel();
    QLabel* caption = panel->labelsNote();
    ASSERT_FALSE(panel->map()->mapLayout().puNumbers);
    const QString note = panel->map()->labelsNote();
    ASSERT_TRUE(note.endsWith(QStringLiteral(": hover or zoom"))) << note.toStdString();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !caption->text().isEmpty(); }, 5000));
    EXPECT_TRUE(caption->isVisible());
    EXPECT_FALSE(caption->visibleRegion().isEmpty());
    EXPECT_GE(caption->height(), caption->fontMetrics().height());
    // The whole sentence, not cut short: it has the width it needs.
    EXPECT_EQ(caption->text(), note);
    EXPECT_GE(caption->contentsRect().width(), caption->fontMetrics().horizontalAdvance(note));
    EXPECT_TRUE(caption->toolTip().startsWith(note + QLatin1Char('\n'))) << "and how to zoom";
    // A line of its own (the zoom buttons at its end): no button, chooser or map over it.
    const QRect line = caption->geometry();
    for (const QWidget* child : panel->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (child != caption && child->isVisible()) {
            EXPECT_FALSE(child->geometry().intersects(line)) << child->metaObject()->className();
        }
    }
    EXPECT_GE(panel->mapView()->geometry().top(), line.bottom());

    // Zoomed in until the numbers fit, the caption changes and the map stays where it was.
    const QRect view = panel->mapView()->geometry();
    while (!panel->map()->mapLayout().puNumbers && panel->mapView()->zoom() < MapScrollArea::kMaxZoom)
        panel->mapView()->zoomIn();
    ASSERT_TRUE(panel->map()->mapLayout().puNumbers);
    EXPECT_TRUE(QTest::qWaitFor([&] { return caption->text() != note; }, 5000));
    QApplication::processEvents(); // any relayout the new text asked for
    EXPECT_EQ(caption->geometry(), line);
    EXPECT_EQ(panel->mapView()->geometry(), view);
}

TEST(MapZoom, ShortTitlesKeepTheirFullNameInTheTooltip)
{
    // Whatever the title shows ("Package L#1", "P1" or nothing), hovering names the package.
    Panel p(server(), QSize(640, 420));
    const TopologyLayout& layout = p.map().mapLayout();
    const auto package = std::find_if(layout.boxes.begin(), layout.boxes.end(),
        [](const LayoutBox& b) { return b.kind == BoxKind::Package && b.logicalIndex == 1; });
    ASSERT_NE(package, layout.boxes.end());
    const QString tip = p.map().toolTipAt(package->rect.topLeft() + QPointF(0.5, 0.5)); // its border
    EXPECT_TRUE(tip.startsWith(QStringLiteral("Package L#1\n16 PUs: P#16-31"))) << tip.toStdString();
}
