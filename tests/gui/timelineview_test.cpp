// SPDX-License-Identifier: MIT
// The timeline as a user drives it: the wheel zooms around the pointer down to a hand-over,
// Shift-dragging zooms to a span, dragging pans, Home shows it all, a click on a slice names its
// task, the pointer over a lane names its PU, and the right button measures a span.
#include "testtopologies.h"
#include "timelineview.h"

#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

constexpr std::int64_t kSleeping = 1;
constexpr std::int64_t kPreempted = 0x100;

TraceEvent switching(std::uint64_t ns, int cpu, std::int32_t prev, std::int64_t state, std::int32_t next)
{
    return { ns, cpu, prev, next, -1, state, TraceEventKind::Switch };
}

// A futex ping-pong across PUs 0 and 1 for 1 ms: 100 hand-overs, one every 10 µs.
std::shared_ptr<const TimelineData> pingPong()
{
    std::vector<TraceEvent> events;
    for (int i = 0; i < 100; ++i) {
        const std::uint64_t t = 1'000'000 + static_cast<std::uint64_t>(i) * 10'000;
        const int from = i % 2;
        const int to = 1 - from;
        const std::int32_t waker = from == 0 ? 10 : 20;
        const std::int32_t wakee = from == 0 ? 20 : 10;
        events.push_back({ t, from, waker, wakee, to, 0, TraceEventKind::Waking });
        events.push_back(switching(t + 1'000, from, waker, kSleeping, 0));
        events.push_back(switching(t + 4'000, to, 0, kPreempted, wakee));
    }
    return std::make_shared<const TimelineData>(TimelineData::build(events, { { 10, "ping" }, { 20, "pong" } }));
}

struct Fixture {
    TimelineView view;
    Fixture()
    {
        view.resize(1000, 300);
        view.setData(pingPong(), timelineLanes(synthetic("pack:1 core:2 pu:1")));
        view.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&view));
    }
    void wheel(QPointF at, int steps, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
    {
        QWheelEvent e(at, view.mapToGlobal(at), QPoint(), QPoint(0, 120 * steps), Qt::NoButton, modifiers,
            Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &e);
    }
};

} // namespace

TEST(TimelineView, TheWheelZoomsAroundThePointerDownToOneHandOverAndHomeShowsItAll)
{
    Fixture f;
    const std::uint64_t whole = f.view.toNs() - f.view.fromNs();
    EXPECT_EQ(f.view.fromNs(), f.view.data()->beginNs());
    const double x = f.view.xOf(1'500'000);
    for (int i = 0; i < 20; ++i) // 0.8 a notch
        f.wheel(QPointF(x, 100), 1);
    EXPECT_LT(f.view.toNs() - f.view.fromNs(), 20'000U); // about one hand-over
    EXPECT_NEAR(static_cast<double>(f.view.nsAt(x)), 1'500'000.0, 200.0); // still under the pointer
    for (int i = 0; i < 60; ++i)
        f.wheel(QPointF(x, 100), 1);
    EXPECT_EQ(f.view.toNs() - f.view.fromNs(), 100U); // the deepest zoom
    QTest::keyClick(&f.view, Qt::Key_Home);
    EXPECT_EQ(f.view.toNs() - f.view.fromNs(), whole);
}

TEST(TimelineView, ShiftDragZoomsToTheSpanAndDraggingPans)
{
    Fixture f;
    const QRectF lane = f.view.laneRect(0);
    const double a = f.view.xOf(1'200'000);
    const double b = f.view.xOf(1'300'000);
    QTest::mousePress(
        &f.view, Qt::LeftButton, Qt::ShiftModifier, QPoint(static_cast<int>(a), static_cast<int>(lane.center().y())));
    QTest::mouseMove(&f.view, QPoint(static_cast<int>(b), static_cast<int>(lane.center().y())));
    QTest::mouseRelease(
        &f.view, Qt::LeftButton, Qt::ShiftModifier, QPoint(static_cast<int>(b), static_cast<int>(lane.center().y())));
    EXPECT_NEAR(static_cast<double>(f.view.fromNs()), 1'200'000.0, 2'000.0);
    EXPECT_NEAR(static_cast<double>(f.view.toNs()), 1'300'000.0, 2'000.0);
    // Dragging to the left by half the width moves on by half the span.
    const std::uint64_t from = f.view.fromNs();
    const int y = static_cast<int>(lane.center().y());
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, QPoint(600, y));
    QTest::mouseMove(&f.view, QPoint(600 - static_cast<int>(f.view.laneRect(0).width() / 2), y));
    QTest::mouseRelease(
        &f.view, Qt::LeftButton, Qt::NoModifier, QPoint(600 - static_cast<int>(f.view.laneRect(0).width() / 2), y));
    EXPECT_NEAR(static_cast<double>(f.view.fromNs() - from), 50'000.0, 2'000.0);
}

TEST(TimelineView, AClickOnASliceNamesItsTaskAndThePointerNamesItsPu)
{
    Fixture f;
    QSignalSpy clicked(&f.view, &TimelineView::taskClicked);
    QSignalSpy hovered(&f.view, &TimelineView::puHovered);
    f.view.showSpan(1'000'000, 1'020'000); // two hand-overs
    // PU 1 runs pong (20) from 1,004,000 to 1,011,000.
    const QRectF pu1 = f.view.laneRect(1);
    const QPoint at(static_cast<int>(f.view.xOf(1'007'000)), static_cast<int>(pu1.center().y()));
    QTest::mouseMove(&f.view, at);
    ASSERT_FALSE(hovered.isEmpty());
    EXPECT_EQ(hovered.last().at(0).toInt(), 1);
    EXPECT_EQ(f.view.highlightedPu(), 1);
    EXPECT_TRUE(f.view.toolTip().startsWith(QStringLiteral("pong (20) on P#1")));
    QTest::mouseClick(&f.view, Qt::LeftButton, Qt::NoModifier, at);
    ASSERT_EQ(clicked.size(), 1);
    EXPECT_EQ(clicked.first().at(0).toInt(), 20);
    // A click on idle names nobody.
    QTest::mouseClick(&f.view, Qt::LeftButton, Qt::NoModifier,
        QPoint(static_cast<int>(f.view.xOf(1'002'000)), static_cast<int>(pu1.center().y())));
    EXPECT_EQ(clicked.size(), 1);
}

TEST(TimelineView, TheRightButtonMeasuresASpan)
{
    Fixture f;
    f.view.showSpan(1'000'000, 1'020'000);
    const int y = static_cast<int>(f.view.laneRect(0).center().y());
    const int a = static_cast<int>(f.view.xOf(1'000'000 + 1'000));
    const int b = static_cast<int>(f.view.xOf(1'000'000 + 4'000)); // switch-out to the wakee's switch-in
    QTest::mousePress(&f.view, Qt::RightButton, Qt::NoModifier, QPoint(a, y));
    QTest::mouseMove(&f.view, QPoint(b, y));
    QTest::mouseRelease(&f.view, Qt::RightButton, Qt::NoModifier, QPoint(b, y));
    ASSERT_TRUE(f.view.ruler());
    const auto [from, to] = *f.view.ruler();
    EXPECT_NEAR(static_cast<double>(to - from), 3'000.0, 100.0);
    EXPECT_EQ(f.view.fromNs(), 1'000'000U); // measuring does not move the view
}
