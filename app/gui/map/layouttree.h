// SPDX-License-Identifier: MIT
#pragma once

#include "topologylayout.h"

#include <vector>

namespace ctxscope::gui::detail {

// The tree the map draws: the topology's CPU tree without the Machine level, with NUMA
// nodes put back in as boxes where their PUs are (hwloc 2 keeps them beside the tree).
struct LayoutItem {
    BoxKind kind = BoxKind::Package;
    const TopoNode* node = nullptr; // null for NUMA boxes and the root
    const NumaNodeInfo* numa = nullptr; // NUMA boxes only
    std::vector<int> pus;
    std::vector<LayoutItem> children;
    // A cache whose level is private to one core everywhere (L2 and L1d on most machines): in
    // compact maps the whole level folds onto its cores, so a level is labelled all or nothing.
    bool folds = false;
    // A hybrid machine's core: its kind's name ("P-core", "E-core"), its title in place of "Core".
    QString kindName {};
};

// The root is a frame without a box of its own; its children are the top-level boxes.
LayoutItem buildLayoutTree(const Topology& topology);

// The label of a box under `plan`; empty when the plan leaves its level unlabelled.
QString itemLabel(const LayoutItem& item, const LabelPlan& plan);

// Fills the topology facts of a box (indices, cache and memory sizes, PUs).
void describeBox(const LayoutItem& item, const Topology& topology, LayoutBox& box);

} // namespace ctxscope::gui::detail
