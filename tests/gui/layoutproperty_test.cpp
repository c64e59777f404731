// SPDX-License-Identifier: MIT
// The map's label rule, checked on the pure layout over a grid of machines and window sizes:
// no label over a box it does not belong to or over another label, every level
// labelled whole or not at all, and every PU a click target; on hybrid machines every PU and core
// shaded by its kind at every size, and core titles naming it. The grid is kept small enough to
// run in a few seconds under ASan: one 1024-PU shape, at the smallest and largest size only.
#include "test_paths.h"
#include "testtopologies.h"
#include "topologylayout.h"

#include <QFontMetricsF>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

std::string describe(const LayoutBox& box)
{
    return "box " + std::to_string(static_cast<int>(box.kind)) + " L#" + std::to_string(box.logicalIndex) + " P#"
        + std::to_string(box.osIndex) + " '" + box.label.toStdString() + "'";
}

Topology fixture(const std::string& name)
{
    auto topology = Topology::loadXmlFile(std::string(ctxscope::test::fixturesDir()) + "/topology/good/" + name);
    EXPECT_TRUE(topology.ok()) << name;
    return std::move(*topology);
}

// Boxes `i` is drawn on: itself and its ancestors.
std::vector<std::size_t> chainOf(const TopologyLayout& layout, std::size_t i)
{
    std::vector<std::size_t> chain { i };
    for (int p = layout.boxes[i].parent; p >= 0; p = layout.boxes[static_cast<std::size_t>(p)].parent)
        chain.push_back(static_cast<std::size_t>(p));
    return chain;
}

// Kinds of core follow the same rule at every size: the shading never goes (every PU and core
// box of a hybrid machine carries its kind, whatever the labels left out), and a core's title,
// where its level is labelled, names its kind ("E-core L#6") on a hybrid machine and no kind
// elsewhere. A machine with one kind has no kind anywhere.
void expectKindRule(const TopologyLayout& layout, const Topology& topology)
{
    for (const LayoutBox& box : layout.boxes) {
        SCOPED_TRACE(describe(box));
        if (box.kind == BoxKind::Pu || box.kind == BoxKind::Core) {
            const CpuKind* kind = topology.kindOfPu(box.pus.front());
            EXPECT_EQ(box.cpuKind, kind ? kind->index : -1);
            for (int os : box.pus)
                EXPECT_EQ(topology.kindOfPu(os), kind);
        }
        if (!topology.hybrid()) {
            EXPECT_EQ(box.cpuKind, -1);
        }
        if (box.kind == BoxKind::Core && !box.label.isEmpty()) {
            const CpuKind* kind = topology.kindOfPu(box.pus.front());
            const QString title = kind ? QString::fromStdString(kind->name) : QStringLiteral("Core");
            EXPECT_TRUE(box.label.startsWith(title + QStringLiteral(" L#"))) << box.label.toStdString();
        }
    }
}

void expectLabelRule(const TopologyLayout& layout, const Topology& topology)
{
    // Each level (a kind of box; caches by level) is labelled whole or not at all.
    std::map<std::pair<BoxKind, int>, std::set<bool>> levels;
    std::vector<std::size_t> labelled;
    for (std::size_t i = 0; i < layout.boxes.size(); ++i) {
        const LayoutBox& box = layout.boxes[i];
        const bool shown = !box.labelRect.isEmpty();
        EXPECT_EQ(shown, !box.label.isEmpty()) << describe(box);
        levels[{ box.kind, box.cacheLevel }].insert(shown);
        if (shown)
            labelled.push_back(i);
    }
    for (const auto& [level, states] : levels)
        EXPECT_EQ(states.size(), 1U) << "level " << static_cast<int>(level.first) << "/" << level.second
                                     << " is partly labelled";
    const bool puNumbers = levels[{ BoxKind::Pu, 0 }].count(true) > 0;
    EXPECT_EQ(puNumbers, layout.puNumbers);

    // Text that is drawn is drawn at a readable size, and fits the rectangle given to it.
    if (!labelled.empty()) {
        EXPECT_GE(layout.fontPixels, 8.0 - 1e-9);
    }
    QFont font;
    font.setPixelSize(qRound(layout.fontPixels));
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF regular(font);
    const QFontMetricsF strong(bold);
    for (std::size_t i : labelled) {
        const LayoutBox& box = layout.boxes[i];
        SCOPED_TRACE(describe(box));
        EXPECT_TRUE(box.rect.contains(box.labelRect));
        const QFontMetricsF& fm = hasBoldLabel(box.kind) ? strong : regular;
        EXPECT_LE(fm.horizontalAdvance(box.label), box.labelRect.width() + 1);
        EXPECT_LE(fm.height(), box.labelRect.height() + 1);
        const std::vector<std::size_t> own = chainOf(layout, i);
        for (std::size_t j = 0; j < layout.boxes.size(); ++j) {
            if (std::find(own.begin(), own.end(), j) != own.end())
                continue;
            ASSERT_FALSE(box.labelRect.intersects(layout.boxes[j].rect)) << "over " << describe(layout.boxes[j]);
        }
    }
    for (std::size_t a = 0; a < labelled.size(); ++a)
        for (std::size_t b = a + 1; b < labelled.size(); ++b)
            ASSERT_FALSE(layout.boxes[labelled[a]].labelRect.intersects(layout.boxes[labelled[b]].labelRect))
                << describe(layout.boxes[labelled[a]]) << " and " << describe(layout.boxes[labelled[b]]);

    // Every PU has one box, inside the window, that a click at its centre finds.
    const QRectF window(QPointF(0, 0), layout.available);
    std::size_t pus = 0;
    for (std::size_t i = 0; i < layout.boxes.size(); ++i) {
        const LayoutBox& box = layout.boxes[i];
        if (box.kind != BoxKind::Pu)
            continue;
        ++pus;
        EXPECT_TRUE(window.contains(box.rect)) << describe(box);
        EXPECT_EQ(layout.boxAt(box.rect.center()), static_cast<int>(i)) << describe(box);
    }
    EXPECT_EQ(pus, topology.pus().size());
    expectKindRule(layout, topology);
}

struct Machine {
    std::string name;
    Topology topology;
    bool everySize = true; // false: only the smallest and largest window (the largest machines)
};

std::vector<Machine> machines()
{
    using ctxscope::testing::synthetic;
    std::vector<Machine> out;
    for (const char* description : {
             "pack:1 core:1 pu:2", // 2 PUs, SMT, no cache
             "pack:1 core:4 pu:1", // no SMT
             "pack:1 l3:1 l2:4 l1d:1 core:1 pu:2", // private L2 and L1d folding onto cores
             "pack:2 [numa] core:6 pu:1", // NUMA without caches
             "pack:2 l3:2 core:4 pu:2", // 32
             "pack:2 numa:2 l2:4 core:2 pu:2", // 64, shared L2, no L3
             "pack:4 l3:2 core:8 pu:1", // 64, no SMT
             "pack:2 l3:4 core:16 pu:2", // 256
             "pack:24 l3:1 core:8 pu:2", // 384: a 24-package server
             "pack:4 die:2 l3:2 core:6 pu:2", // 192, dies
         })
        out.push_back({ description, synthetic(description) });
    out.push_back({ "pack:2 numa:2 l3:8 core:16 pu:2", synthetic("pack:2 numa:2 l3:8 core:16 pu:2"), false });
    out.push_back({ "xeon-24-packages-384pu.xml", fixture("xeon-24-packages-384pu.xml") }); // the issue's server
    out.push_back({ "unequal-cores.xml", fixture("unequal-cores.xml") }); // 8 and 5 cores, a core of one PU
    // Hybrid: P-cores of 2 PUs beside clusters of four 1-PU E-cores; big.LITTLE's two clusters.
    out.push_back({ "hybrid-alder-lake-6p8e.xml", fixture("hybrid-alder-lake-6p8e.xml") });
    out.push_back({ "hybrid-big-little-4p4.xml", fixture("hybrid-big-little-4p4.xml") });
    return out;
}

} // namespace

TEST(LayoutProperty, LabelsNeverCoverOtherBoxesLevelsAreWholeAndEveryPuIsClickable)
{
    const std::vector<QSizeF> sizes { QSizeF(800, 600), QSizeF(1280, 800), QSizeF(1024, 768), QSizeF(1920, 1080) };
    int layouts = 0;
    std::set<std::pair<bool, TitleDetail>> plansSeen;
    for (const Machine& machine : machines()) {
        SCOPED_TRACE(machine.name);
        for (const QSizeF& size : sizes) {
            if (!machine.everySize && size != sizes.front() && size != sizes.back())
                continue;
            SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()));
            const TopologyLayout layout = layoutTopology(machine.topology, size);
            expectLabelRule(layout, machine.topology);
            plansSeen.insert({ layout.puNumbers, layout.titles });
            ++layouts;
        }
    }
    // The grid reaches past the rich labels, or the test checks only what never degrades.
    EXPECT_GE(plansSeen.size(), 2U);
    RecordProperty("layouts", layouts);
}
