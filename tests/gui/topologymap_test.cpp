// SPDX-License-Identifier: MIT
#include "testtopologies.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"

#include "ctxscope/topology_report.h"
#include "ctxscope/units.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;
using ctxscope::testing::withAllowedCpuset;

namespace {

QPoint centreOf(const TopologyMapWidget& map, int cpu)
{
    const int index = map.mapLayout().puBox(cpu);
    EXPECT_GE(index, 0) << "no box for CPU " << cpu;
    return map.mapLayout().boxes[static_cast<std::size_t>(index)].rect.center().toPoint();
}

void click(TopologyMapWidget& map, int cpu, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QTest::mouseClick(&map, Qt::LeftButton, modifiers, centreOf(map, cpu));
}

std::vector<int> lastEmitted(const QSignalSpy& spy)
{
    const auto cpus = spy.last().at(0).value<QVector<int>>();
    return { cpus.begin(), cpus.end() };
}

} // namespace

TEST(TopologyMap, ClickingPusPlacesTasksInOrderAndClickingAgainRemoves)
{
    TopologyMapWidget map;
    map.resize(1000, 620);
    map.setTopology(synthetic("pack:2 l3:2 core:4 pu:2"));
    map.show();
    QSignalSpy spy(&map, &TopologyMapWidget::selectionChanged);

    click(map, 3);
    click(map, 0);
    click(map, 21);
    ASSERT_EQ(spy.count(), 3);
    EXPECT_EQ(lastEmitted(spy), (std::vector<int> { 3, 0, 21 }));
    EXPECT_EQ(map.selectionSummary(), QStringLiteral("Tasks A=P#3, B=P#0, C=P#21 — spans cross-package"));

    click(map, 0); // B leaves; C becomes B
    EXPECT_EQ(lastEmitted(spy), (std::vector<int> { 3, 21 }));
    EXPECT_EQ(map.selectionRelation(), Relation::CrossPackage);

    click(map, 2);
    click(map, 21);
    EXPECT_EQ(map.selection(), (std::vector<int> { 3, 2 }));
    EXPECT_EQ(map.selectionSummary(), QStringLiteral("Tasks A=P#3, B=P#2 — smt"));
}

TEST(TopologyMap, ShiftClickPutsAnotherTaskOnTheSamePu)
{
    TopologyMapWidget map;
    map.resize(800, 500);
    map.setTopology(synthetic("pack:1 core:2 pu:2"));
    map.show();
    click(map, 1);
    click(map, 1, Qt::ShiftModifier);
    EXPECT_EQ(map.selection(), (std::vector<int> { 1, 1 }));
    EXPECT_EQ(map.selectionRelation(), Relation::SamePu);
    click(map, 1); // removes the last task on it only
    EXPECT_EQ(map.selection(), (std::vector<int> { 1 }));
}

TEST(TopologyMap, HwlocKeepsTheAllowedCpusetOfAnXmlTopology)
{
    const Topology topology = withAllowedCpuset("pack:2 l3:2 core:4 pu:2", "0x000000ff");
    for (const PuInfo& pu : topology.pus())
        EXPECT_EQ(pu.allowed, pu.osIndex < 8) << "CPU " << pu.osIndex;
    EXPECT_EQ(topology.pus().size(), 32U); // kept (greyed), not dropped
}

TEST(TopologyMap, DisallowedPusAreGreyedNotSelectableAndSayWhy)
{
    TopologyMapWidget map;
    map.resize(1000, 620);
    map.setTopology(withAllowedCpuset("pack:2 l3:2 core:4 pu:2", "0x000000ff"));
    map.show();
    QSignalSpy spy(&map, &TopologyMapWidget::selectionChanged);

    click(map, 12);
    click(map, 30);
    EXPECT_EQ(spy.count(), 0);
    EXPECT_TRUE(map.selection().empty());
    click(map, 5);
    EXPECT_EQ(map.selection(), (std::vector<int> { 5 }));

    const TopologyLayout& layout = map.mapLayout();
    const LayoutBox& denied = layout.boxes[static_cast<std::size_t>(layout.puBox(12))];
    const LayoutBox& allowed = layout.boxes[static_cast<std::size_t>(layout.puBox(6))];
    EXPECT_FALSE(denied.allowed);
    EXPECT_TRUE(allowed.allowed);
    EXPECT_EQ(
        map.toolTipAt(denied.rect.center()), QStringLiteral("P#12 is outside the allowed set 0-7 (cgroup cpuset)"));
    const QString puTip = map.toolTipAt(allowed.rect.center());
    const QString l3 = QString::fromStdString(formatCacheSize(map.topology()->cacheSize(3)));
    EXPECT_TRUE(puTip.startsWith(QStringLiteral("PU P#6 (L#6) · Core L#3 · L3 L#0 (%1) · Package L#0").arg(l3)))
        << puTip.toStdString();

    // Greyed: the fill just inside the border is the palette-derived grey, not the PU fill.
    const QImage image = map.grab().toImage();
    const auto fillAt
        = [&](const LayoutBox& box) { return image.pixelColor((box.rect.topLeft() + QPointF(3, 3)).toPoint()); };
    EXPECT_EQ(fillAt(denied), map.colors().disallowedPu);
    EXPECT_EQ(fillAt(allowed), map.colors().pu);
    EXPECT_NE(map.colors().disallowedPu, map.colors().pu);

    const Status refused = map.setSelection({ 1, 9 });
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message, "P#9 is outside the allowed set 0-7 (cgroup cpuset)");
    EXPECT_EQ(map.selection(), (std::vector<int> { 5 })); // unchanged
}

TEST(TopologyMap, CacheToolTipsGiveSizeLineAndSharers)
{
    TopologyMapWidget map;
    map.resize(1000, 620);
    const Topology topology = synthetic("pack:2 l3:2 core:4 pu:2");
    map.setTopology(topology);
    const TopologyLayout& layout = map.mapLayout();
    const auto l3 = std::find_if(layout.boxes.begin(), layout.boxes.end(),
        [](const LayoutBox& b) { return b.kind == BoxKind::Cache && b.cacheLevel == 3 && b.logicalIndex == 1; });
    ASSERT_NE(l3, layout.boxes.end());
    const QString tip = map.toolTipAt(l3->labelRect.center());
    EXPECT_TRUE(tip.startsWith(
        QStringLiteral("L3 cache L#1: %1").arg(QString::fromStdString(formatCacheSize(topology.cacheSize(3))))))
        << tip.toStdString();
    EXPECT_NE(tip.indexOf(QStringLiteral("%1-byte lines").arg(l3->cacheLineSize)), -1) << tip.toStdString();
    EXPECT_NE(tip.indexOf(QStringLiteral("Shared by 8 PUs: P#8-15")), -1) << tip.toStdString();
}

TEST(TopologyMap, RelationChooserHighlightsAndSelectsTheRepresentativePair)
{
    TopologyMapPanel panel;
    panel.resize(1000, 700);
    const Topology topology = synthetic("pack:2 l3:2 core:4 pu:2");
    panel.setTopology(topology);
    panel.show();
    EXPECT_FALSE(panel.usePairButton()->isEnabled());

    PuPair expected;
    for (const PuPair& p : representativePairs(topology))
        if (p.relation == Relation::SharedL3)
            expected = p;
    ASSERT_TRUE(panel.chooseRelation(Relation::SharedL3));
    ASSERT_TRUE(panel.map()->highlightedPair().has_value());
    EXPECT_EQ(panel.map()->highlightedPair()->a, expected.a);
    EXPECT_EQ(panel.map()->highlightedPair()->b, expected.b);
    EXPECT_TRUE(panel.map()->selection().empty()); // highlighting is not choosing

    QTest::mouseClick(panel.usePairButton(), Qt::LeftButton);
    EXPECT_EQ(panel.map()->selection(), (std::vector<int> { expected.a, expected.b }));
    EXPECT_TRUE(panel.summaryLabel()->text().endsWith(QStringLiteral("— shared-l3")))
        << panel.summaryLabel()->text().toStdString();

    EXPECT_FALSE(panel.chooseRelation(Relation::CrossNuma)); // this machine has one NUMA node
}

TEST(TopologyMap, RelationChooserOffersOnlyAllowedPairs)
{
    TopologyMapPanel panel;
    panel.setTopology(withAllowedCpuset("pack:2 l3:2 core:4 pu:2", "0x0000000f"));
    // PUs 0-3 are two cores under one L3: nothing wider than shared-l3 can be placed.
    EXPECT_TRUE(panel.chooseRelation(Relation::SharedL3));
    EXPECT_FALSE(panel.chooseRelation(Relation::SamePackage));
    EXPECT_FALSE(panel.chooseRelation(Relation::CrossPackage));
}

TEST(TopologyMap, EveryPuOfA1024PuMachineCanBeClicked)
{
    TopologyMapWidget map;
    map.resize(1200, 700);
    map.setTopology(synthetic("pack:2 numa:2 l3:8 core:16 pu:2"));
    map.show();
    ASSERT_EQ(map.topology()->pus().size(), 1024U);
    for (const PuInfo& pu : map.topology()->pus()) {
        click(map, pu.osIndex);
        ASSERT_EQ(map.selection(), (std::vector<int> { pu.osIndex }));
        click(map, pu.osIndex); // and off again
        ASSERT_TRUE(map.selection().empty());
    }
}
