// SPDX-License-Identifier: MIT
// The timeline's lanes are the map's PUs in the map's order, grouped by the boxes around them,
// also where the OS numbers SMT siblings apart (P#n and P#n+4).
#include "testtopologies.h"
#include "timelinedata.h"
#include "topologylayout.h"

#include <gtest/gtest.h>

#include <functional>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::synthetic;

namespace {

// The map's PUs in the order its boxes nest: a box's PUs before the next box's.
std::vector<int> mapOrder(const TopologyLayout& layout)
{
    std::vector<int> order;
    std::function<void(int)> visit = [&](int parent) {
        for (int i = 0; i < static_cast<int>(layout.boxes.size()); ++i) {
            if (layout.boxes[static_cast<std::size_t>(i)].parent != parent)
                continue;
            if (layout.boxes[static_cast<std::size_t>(i)].kind == BoxKind::Pu)
                order.push_back(layout.boxes[static_cast<std::size_t>(i)].osIndex);
            visit(i);
        }
    };
    visit(-1);
    return order;
}

} // namespace

TEST(TimelineLanes, AreTheMapsPusInTheMapsOrderGroupedByTheirBoxes)
{
    for (const char* description :
        { "pack:2 l3:2 core:4 pu:2", "pack:1 l3:1 l2:4 core:1 pu:2(indexes=0,4,1,5,2,6,3,7)", "pack:1 core:1 pu:1" }) {
        const Topology topology = synthetic(description);
        const auto lanes = timelineLanes(topology);
        std::vector<int> pus;
        for (const auto& l : lanes)
            pus.push_back(l.pu);
        EXPECT_EQ(pus, mapOrder(layoutTopology(topology, QSizeF(1280, 800)))) << description;
        ASSERT_EQ(lanes.size(), topology.pus().size()) << description;
        // Every lane carries the boxes its PU sits in, as the topology says.
        for (const auto& l : lanes) {
            const PuInfo* pu = topology.findPu(l.pu);
            ASSERT_NE(pu, nullptr);
            EXPECT_EQ(l.package, pu->package) << description;
            EXPECT_EQ(l.l3, pu->l3) << description;
            EXPECT_EQ(l.core, pu->core) << description;
        }
    }
    // SMT siblings numbered apart sit side by side, as on the map: P#0 then P#4.
    const auto apart = timelineLanes(synthetic("pack:1 l3:1 l2:4 core:1 pu:2(indexes=0,4,1,5,2,6,3,7)"));
    EXPECT_EQ(apart[0].pu, 0);
    EXPECT_EQ(apart[1].pu, 4);
    EXPECT_EQ(apart[0].core, apart[1].core);
}
