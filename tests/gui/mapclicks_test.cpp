// SPDX-License-Identifier: MIT
// Clicks on the map in the window: a benchmark places as many tasks as it
// runs, a click on a task takes it off, a click never moves the map, and a one-task run keeps
// B on the map and says that it waits.
#include "mainwindow.h"
#include "mapscrollarea.h"
#include "runpanel.h"
#include "testtopologies.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

void click(TopologyMapWidget& map, int cpu)
{
    const int index = map.mapLayout().puBox(cpu);
    ASSERT_GE(index, 0) << "no box for CPU " << cpu;
    QTest::mouseClick(&map, Qt::LeftButton, Qt::NoModifier,
        map.mapLayout().boxes[static_cast<std::size_t>(index)].rect.center().toPoint());
}

// The window at a projector's size on a 64-PU synthetic machine, futex chosen.
class MapClicks : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_window.resize(1280, 800);
        m_window.setTopology(synthetic("pack:2 l3:2 core:8 pu:2"));
        m_window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
        ASSERT_TRUE(m_window.runPanel()->setBenchmark(QStringLiteral("futex")));
        m_map = m_window.mapPanel()->map();
    }

    MainWindow m_window;
    TopologyMapWidget* m_map = nullptr;
};

} // namespace

TEST_F(MapClicks, AThirdClickPlacesNoThirdTaskForATwoTaskBenchmark)
{
    QSignalSpy changed(m_map, &TopologyMapWidget::selectionChanged);
    click(*m_map, 0);
    click(*m_map, 63);
    click(*m_map, 17);
    EXPECT_EQ(m_map->selection(), (std::vector<int> { 0, 63 }));
    EXPECT_EQ(changed.count(), 2);
    EXPECT_NE(
        m_map->toolTipAt(m_map->mapLayout().boxes[static_cast<std::size_t>(m_map->mapLayout().puBox(17))].rect.center())
            .indexOf(QStringLiteral("futex runs 2 tasks, all placed")),
        -1);
    const auto spec = m_window.runPanel()->spec();
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(spec->cpus, (std::vector<int> { 0, 63 }));
}

TEST_F(MapClicks, ClickingAPlacedTaskRemovesIt)
{
    click(*m_map, 0);
    click(*m_map, 63);
    click(*m_map, 63); // B goes
    EXPECT_EQ(m_map->selection(), std::vector<int> { 0 });
    click(*m_map, 0); // A goes
    EXPECT_TRUE(m_map->selection().empty());
}

TEST_F(MapClicks, PlacingTasksNeverMovesTheMap)
{
    const QRect before = m_window.mapPanel()->mapView()->geometry();
    const int summaryHeight = m_window.mapPanel()->summaryLabel()->height();
    click(*m_map, 0);
    click(*m_map, 63);
    QCoreApplication::processEvents(); // layouts settle
    QCoreApplication::processEvents();
    EXPECT_EQ(m_window.mapPanel()->mapView()->geometry(), before);
    EXPECT_EQ(m_window.mapPanel()->summaryLabel()->height(), summaryHeight);
    EXPECT_NE(m_window.mapPanel()->summaryLabel()->toolTip().indexOf(QStringLiteral("B=P#63")), -1);
}

TEST_F(MapClicks, AOneTaskBenchmarkKeepsBAndSaysItWaits)
{
    click(*m_map, 0);
    click(*m_map, 63);
    ASSERT_TRUE(m_window.runPanel()->setBenchmark(QStringLiteral("syscall")));
    EXPECT_EQ(m_map->selection(), (std::vector<int> { 0, 63 }));
    EXPECT_TRUE(m_map->selectionSummary().endsWith(QStringLiteral("syscall runs 1 task, B unused")))
        << m_map->selectionSummary().toStdString();
    // Where a syscall run on A is shown (its start, its row in the table), B stays.
    m_map->showPlacement({ 0 });
    EXPECT_EQ(m_map->selection(), (std::vector<int> { 0, 63 }));
    m_map->showPlacement({ 5, 6 }); // another run's pair replaces them
    EXPECT_EQ(m_map->selection(), (std::vector<int> { 5, 6 }));
    // A run's placement shown (a lesson's futex step) says nothing of the run panel's benchmark.
    EXPECT_FALSE(m_map->selectionSummary().contains(QStringLiteral("unused")))
        << m_map->selectionSummary().toStdString();
    click(*m_map, 7); // the user's own clicks again: the limit is the run panel's
    EXPECT_TRUE(m_map->selectionSummary().contains(QStringLiteral("syscall runs 1 task")))
        << m_map->selectionSummary().toStdString();
}
