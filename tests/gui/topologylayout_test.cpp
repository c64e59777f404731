// SPDX-License-Identifier: MIT
#include "testtopologies.h"
#include "topologylayout.h"

#include "ctxscope/topology_report.h"
#include "ctxscope/units.h"

#include <QFontMetricsF>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

std::string where(const LayoutBox& box)
{
    return box.label.toStdString() + " at " + std::to_string(box.rect.x()) + "," + std::to_string(box.rect.y()) + " "
        + std::to_string(box.rect.width()) + "x" + std::to_string(box.rect.height());
}

// What the painter relies on: every PU once, children inside parents, siblings apart,
// everything inside the widget, and every label fitting its box at the layout's font size.
void expectWellFormed(const TopologyLayout& layout, const Topology& topology)
{
    std::multiset<int> pus;
    for (const LayoutBox& box : layout.boxes)
        if (box.kind == BoxKind::Pu)
            pus.insert(box.osIndex);
    std::multiset<int> expected;
    for (const PuInfo& pu : topology.pus())
        expected.insert(pu.osIndex);
    EXPECT_EQ(pus, expected);

    const QRectF widget(QPointF(0, 0), layout.available);
    QFont font;
    font.setPixelSize(qRound(layout.fontPixels));
    QFont bold = font;
    bold.setBold(true);
    for (std::size_t i = 0; i < layout.boxes.size(); ++i) {
        const LayoutBox& box = layout.boxes[i];
        SCOPED_TRACE(where(box));
        EXPECT_FALSE(box.rect.isEmpty());
        EXPECT_TRUE(widget.contains(box.rect));
        if (box.parent >= 0) {
            ASSERT_LT(box.parent, static_cast<int>(i)); // parents come first: painting order
            const LayoutBox& parent = layout.boxes[static_cast<std::size_t>(box.parent)];
            EXPECT_TRUE(parent.rect.contains(box.rect)) << "outside " << where(parent);
            EXPECT_TRUE(std::includes(parent.pus.begin(), parent.pus.end(), box.pus.begin(), box.pus.end()));
        }
        for (std::size_t j = i + 1; j < layout.boxes.size(); ++j) {
            if (layout.boxes[j].parent == box.parent) {
                EXPECT_FALSE(box.rect.intersects(layout.boxes[j].rect)) << "overlaps " << where(layout.boxes[j]);
            }
        }
        if (!box.label.isEmpty()) {
            EXPECT_TRUE(box.rect.contains(box.labelRect));
            const QFontMetricsF fm(hasBoldLabel(box.kind) ? bold : font);
            EXPECT_LE(fm.horizontalAdvance(box.label), box.labelRect.width() + 1) << "label cut";
            EXPECT_LE(fm.height(), box.labelRect.height() + 1) << "label cut";
        }
    }
}

struct Shape {
    const char* description;
    int pus;
};

void PrintTo(const Shape& shape, std::ostream* os) { *os << "'" << shape.description << "'"; }

class LayoutShapes : public ::testing::TestWithParam<Shape> { };

} // namespace

TEST_P(LayoutShapes, BoxesNestWithoutOverlapAtSeveralSizes)
{
    const Topology topology = synthetic(GetParam().description);
    ASSERT_EQ(static_cast<int>(topology.pus().size()), GetParam().pus);
    for (const QSizeF size : { QSizeF(1260, 640), QSizeF(800, 500), QSizeF(420, 900), QSizeF(320, 200) }) {
        SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()));
        expectWellFormed(layoutTopology(topology, size), topology);
    }
}

INSTANTIATE_TEST_SUITE_P(Gui, LayoutShapes,
    ::testing::Values(Shape { "pack:1 core:1 pu:2", 2 }, Shape { "pack:1 core:2 pu:1", 2 },
        Shape { "pack:2 l3:2 core:4 pu:2", 32 }, Shape { "pack:2 numa:2 l3:2 core:4 pu:2", 64 },
        Shape { "pack:1 l3:2 l2:4 l1d:1 core:1 pu:2", 16 }, Shape { "pack:2 l3:4 core:16 pu:2", 256 },
        Shape { "pack:2 l3:8 core:16 pu:2", 512 }, Shape { "pack:1 core:24 pu:1", 24 }),
    [](const ::testing::TestParamInfo<Shape>& param) {
        // "pack:2 l3:4 core:16 pu:2" -> "pack2_l34_core16_pu2": ctest names that stay put
        std::string name;
        for (const char* c = param.param.description; *c; ++c)
            if (std::isalnum(static_cast<unsigned char>(*c)))
                name += *c;
            else if (*c == ' ')
                name += '_';
        return name;
    });

TEST(TopologyLayout, TwoHundredFiftySixPusStayReadableInAProjectorWindow)
{
    const Topology topology = synthetic("pack:2 l3:4 core:16 pu:2");
    const TopologyLayout layout = layoutTopology(topology, QSizeF(1260, 640));
    EXPECT_GE(layout.fontPixels, 12.0);
    const LayoutBox& pu = layout.boxes[static_cast<std::size_t>(layout.puBox(255))];
    EXPECT_GE(pu.rect.height(), layout.fontPixels * 1.3); // a click target, not a hairline
    EXPECT_NE(pu.label.indexOf(QStringLiteral("255")), -1);
}

TEST(TopologyLayout, FiveHundredTwelvePusStillShowEveryPuNumber)
{
    const Topology topology = synthetic("pack:2 l3:8 core:16 pu:2");
    const TopologyLayout layout = layoutTopology(topology, QSizeF(1260, 640));
    EXPECT_GE(layout.fontPixels, 8.0);
    for (const LayoutBox& box : layout.boxes) {
        if (box.kind == BoxKind::Pu) {
            EXPECT_EQ(box.label, QString::number(box.osIndex));
        }
    }
}

TEST(TopologyLayout, SmallMachinesGetFullLabelsAndLargeOnesShortOnes)
{
    const Topology small = synthetic("pack:1 core:1 pu:2");
    const TopologyLayout roomy = layoutTopology(small, QSizeF(1000, 600));
    EXPECT_EQ(roomy.detail, LabelDetail::Full);
    EXPECT_EQ(roomy.boxes[static_cast<std::size_t>(roomy.puBox(1))].label, QStringLiteral("PU P#1 (L#1)"));

    const Topology big = synthetic("pack:2 l3:4 core:16 pu:2");
    EXPECT_NE(layoutTopology(big, QSizeF(1000, 600)).detail, LabelDetail::Full);
}

TEST(TopologyLayout, PresentationTextScaleGivesLargerLabelsOnSmallAndLargeMachines)
{
    // A 2-PU machine sits at the zoom cap; a 64-PU one has labels just readable with short
    // names there, and trades them for compact ones at a larger size.
    const std::pair<const char*, QSizeF> cases[] { { "pack:1 core:1 pu:2", QSizeF(500, 420) },
        { "pack:2 core:16 pu:2", QSizeF(620, 496) } };
    for (const auto& [description, room] : cases) {
        const Topology topology = synthetic(description);
        const TopologyLayout normal = layoutTopology(topology, room);
        const TopologyLayout large = layoutTopology(topology, room, QFont(), 1.3);
        EXPECT_GT(large.fontPixels, normal.fontPixels * 1.1) << description << " normal " << normal.fontPixels;
        expectWellFormed(large, topology);
    }
}

TEST(TopologyLayout, CachesCarryLevelAndSizeCoresTheirIndex)
{
    const Topology topology = synthetic("pack:1 l3:1 l2:2 l1d:1 core:1 pu:2");
    const TopologyLayout layout = layoutTopology(topology, QSizeF(1000, 600));
    std::set<QString> labels;
    for (const LayoutBox& box : layout.boxes)
        labels.insert(box.label);
    const auto size = [&](int level) { return QString::fromStdString(formatCacheSize(topology.cacheSize(level))); };
    EXPECT_TRUE(labels.count(QStringLiteral("Core L#1")));
    EXPECT_TRUE(labels.count(QStringLiteral("Package L#0")));
    EXPECT_TRUE(labels.count(QStringLiteral("L1d ") + size(1)));
    EXPECT_TRUE(labels.count(QStringLiteral("L2 ") + size(2)));
    const int l3 = static_cast<int>(std::count_if(layout.boxes.begin(), layout.boxes.end(),
        [](const LayoutBox& b) { return b.kind == BoxKind::Cache && b.cacheLevel == 3; }));
    EXPECT_EQ(l3, 1);
}

TEST(TopologyLayout, PrivateCachesFoldOntoTheirCoreOnlyWhenSpaceIsShort)
{
    const auto privateL2 = [](const TopologyLayout& layout) {
        return std::find_if(layout.boxes.begin(), layout.boxes.end(),
            [](const LayoutBox& b) { return b.kind == BoxKind::Cache && b.cacheLevel == 2; });
    };
    const TopologyLayout roomy = layoutTopology(synthetic("pack:1 l3:2 l2:4 l1d:1 core:1 pu:2"), QSizeF(1260, 640));
    EXPECT_FALSE(privateL2(roomy)->label.isEmpty());

    // 512 PUs under eight levels (an EPYC-like tree): the L2 + L1d + Core chains collapse.
    const TopologyLayout tight = layoutTopology(synthetic("pack:4 l3:8 l2:8 l1d:1 core:1 pu:2"), QSizeF(1260, 640));
    EXPECT_EQ(tight.detail, LabelDetail::Compact);
    EXPECT_GE(tight.fontPixels, 10.0);
    const auto l2 = privateL2(tight);
    ASSERT_NE(l2, tight.boxes.end());
    EXPECT_TRUE(l2->label.isEmpty());
    const auto core = std::find_if(tight.boxes.begin(), tight.boxes.end(),
        [&](const LayoutBox& b) { return b.kind == BoxKind::Core && b.pus == l2->pus; });
    ASSERT_NE(core, tight.boxes.end());
    EXPECT_EQ(core->rect, l2->rect); // still in the tree (tooltips name it), drawn as one box
}

TEST(TopologyLayout, NumaNodesAreBoxesOnlyWhenThereAreSeveral)
{
    const auto numaBoxes = [](const Topology& t) {
        const TopologyLayout layout = layoutTopology(t, QSizeF(1000, 600));
        std::vector<LayoutBox> out;
        std::copy_if(layout.boxes.begin(), layout.boxes.end(), std::back_inserter(out),
            [](const LayoutBox& b) { return b.kind == BoxKind::Numa; });
        return out;
    };
    EXPECT_TRUE(numaBoxes(synthetic("pack:2 l3:2 core:4 pu:2")).empty());

    const Topology twoPerPackage = synthetic("pack:2 numa:2 l3:2 core:4 pu:2");
    const auto boxes = numaBoxes(twoPerPackage);
    ASSERT_EQ(boxes.size(), twoPerPackage.numaNodes().size());
    for (const LayoutBox& box : boxes) {
        const auto& node = twoPerPackage.numaNodes()[static_cast<std::size_t>(box.osIndex)];
        EXPECT_EQ(box.pus, node.pus);
        EXPECT_TRUE(box.label.startsWith(QStringLiteral("NUMA P#%1").arg(box.osIndex)));
    }
}

TEST(TopologyLayout, ZoomsToFitAndCentres)
{
    const Topology topology = synthetic("pack:2 l3:2 core:4 pu:2");
    QFont large; // an application type large enough that the window's edge, not the type cap, stops the zoom
    large.setPixelSize(40);
    for (const QSizeF size : { QSizeF(1400, 800), QSizeF(600, 900) }) {
        const TopologyLayout layout = layoutTopology(topology, size, large);
        // One side is filled (up to the zoom rounded down to a whole pixel size of type, and
        // rounding), and the slack on the other is shared equally.
        const double fillW = layout.bounds.width() / size.width();
        const double fillH = layout.bounds.height() / size.height();
        EXPECT_GT(std::max(fillW, fillH), 0.98 - 1.0 / layout.fontPixels);
        EXPECT_NEAR(layout.bounds.left(), size.width() - layout.bounds.right(), 1.0);
        EXPECT_NEAR(layout.bounds.top(), size.height() - layout.bounds.bottom(), 1.0);
    }
}

TEST(TopologyLayout, HitTestFindsTheInnermostBox)
{
    const Topology topology = synthetic("pack:2 l3:2 core:4 pu:2");
    const TopologyLayout layout = layoutTopology(topology, QSizeF(1000, 600));
    for (int cpu : { 0, 13, 31 }) {
        const int index = layout.puBox(cpu);
        ASSERT_GE(index, 0);
        EXPECT_EQ(layout.boxAt(layout.boxes[static_cast<std::size_t>(index)].rect.center()), index);
    }
    EXPECT_EQ(layout.boxAt(QPointF(-5, -5)), -1);
}

TEST(TopologyLayout, ASmallMachineKeepsTheTypeNearTheApplicationsAndSitsInTheMiddle)
{
    // lstopo's answer to a 2-PU machine in a large window: one type size, space around it.
    const Topology topology = synthetic("pack:1 core:1 pu:2");
    QFont font;
    font.setPixelSize(13);
    const QSizeF room(1200, 700);
    for (const double textScale : { 1.0, 1.3 }) {
        SCOPED_TRACE(textScale);
        const TopologyLayout layout = layoutTopology(topology, room, font, textScale);
        EXPECT_LE(layout.fontPixels, 1.5 * 13 * textScale + 1e-9);
        EXPECT_GE(layout.fontPixels, 13 * textScale); // capped, not shrunk
        EXPECT_EQ(layout.detail, LabelDetail::Full);
        EXPECT_LT(layout.bounds.width(), room.width() * 0.8);
        EXPECT_LT(layout.bounds.height(), room.height() * 0.8);
        EXPECT_NEAR(layout.bounds.left(), room.width() - layout.bounds.right(), 1.0);
        EXPECT_NEAR(layout.bounds.top(), room.height() - layout.bounds.bottom(), 1.0);
        expectWellFormed(layout, topology);
    }
    // The cap follows the application's type: a larger font gives larger labels.
    QFont large = font;
    large.setPixelSize(20);
    EXPECT_GT(layoutTopology(topology, room, large).fontPixels, 1.5 * 13 + 1);
}

TEST(TopologyLayout, AThousandTwentyFourPusEachHaveABoxThatAClickFinds)
{
    const Topology topology = synthetic("pack:2 numa:2 l3:8 core:16 pu:2");
    ASSERT_EQ(topology.pus().size(), 1024U);
    const TopologyLayout layout = layoutTopology(topology, QSizeF(1200, 700));
    expectWellFormed(layout, topology);
    for (const PuInfo& pu : topology.pus()) {
        const int index = layout.puBox(pu.osIndex);
        ASSERT_GE(index, 0) << pu.osIndex;
        const QRectF rect = layout.boxes[static_cast<std::size_t>(index)].rect;
        EXPECT_GE(std::min(rect.width(), rect.height()), 6.0) << "P#" << pu.osIndex << " is too small to aim at";
        EXPECT_EQ(layout.boxAt(rect.center()), index) << pu.osIndex;
    }
}
