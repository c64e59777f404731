// SPDX-License-Identifier: MIT
// The map at sizes where not every label fits (issue 33): the caption says what is hidden, and
// zooming (keys, Ctrl+wheel) brings the labels back while clicks still land on the PU drawn.
#include "mapscrollarea.h"
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
    auto topology
        = Topology::loadXmlFile(std::string(CTXSCOPE_FIXTURES_DIR) + "/topology/good/xeon-24-packages-384pu.xml");
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
    EXPECT_TRUE(
        QTest::qWaitFor([&] { return p.panel.labelsNote()->text().startsWith(QStringLiteral("PU numbers")); }, 5000))
        << p.panel.labelsNote()->text().toStdString();
    EXPECT_TRUE(p.panel.labelsNote()->text().contains(QStringLiteral("hidden at this size: hover or zoom")));
    for (int cpu : { 0, 511, 1023 }) {
        const LayoutBox& box = layout.boxes[static_cast<std::size_t>(layout.puBox(cpu))];
        EXPECT_TRUE(box.label.isEmpty());
        EXPECT_TRUE(p.map().toolTipAt(box.rect.center()).startsWith(QStringLiteral("PU P#%1 (").arg(cpu)));
    }
    // Zoomed back to where the numbers fit, the caption goes.
    while (!p.map().mapLayout().puNumbers && p.view().zoom() < MapScrollArea::kMaxZoom)
        p.view().zoomIn();
    ASSERT_TRUE(p.map().mapLayout().puNumbers);
    EXPECT_TRUE(QTest::qWaitFor([&] { return !p.panel.labelsNote()->text().startsWith(QStringLiteral("PU")); }, 5000))
        << p.panel.labelsNote()->text().toStdString();
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
