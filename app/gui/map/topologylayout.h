// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <QFont>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <cstdint>
#include <vector>

namespace ctxscope::gui {

enum class BoxKind { Package, Die, Group, Numa, Cache, Core, Pu };

// How much text the boxes carry; the layout picks the richest one that stays readable.
enum class LabelDetail { Full, Short, Compact };
// The titles of the boxes around PUs (packages, NUMA nodes, caches, cores): "Package L#3", "P3",
// or none (the tooltip still names the box).
enum class TitleDetail { Long, Short, None };

// What a layout labels. A level (the PUs, the packages, the L3s...) is labelled whole or not at
// all: one type size for the whole map, as lstopo and KernelShark keep, never numbers on some PUs
// and blanks on others.
struct LabelPlan {
    LabelDetail detail = LabelDetail::Full;
    TitleDetail titles = TitleDetail::Long;
    bool puNumbers = true;
};

// One box of the map, in widget coordinates.
struct LayoutBox {
    BoxKind kind = BoxKind::Pu;
    QRectF rect;
    QRectF labelRect; // where the label goes; empty when the box shows no label
    QString label; // "L3 32MB", "Core L#3", "PU P#5 (L#5)", "P3" ...; empty when its level is unlabelled
    int parent = -1; // index in TopologyLayout::boxes, -1 for top-level boxes
    int depth = 0;
    int logicalIndex = -1; // L#
    int osIndex = -1; // P# (PUs, NUMA nodes)
    int cacheLevel = 0;
    std::uint64_t cacheSize = 0; // bytes
    int cacheLineSize = 0; // bytes
    std::uint64_t memory = 0; // NUMA local memory, bytes
    std::vector<int> pus; // OS indices below, ascending
    bool allowed = true; // PU: inside the allowed set and the affinity mask; others: any such PU below
    // On a hybrid machine, the kind (CpuKind::index) of every PU below; -1 when they are of several
    // kinds or the machine has one kind. PUs and cores are shaded by it.
    int cpuKind = -1;
};

struct TopologyLayout {
    std::vector<LayoutBox> boxes; // parents before their children
    QSizeF available;
    QRectF bounds; // the union of the top-level boxes, centred in `available`
    double scale = 1.0; // zoom applied to the natural layout to fit `available`
    double fontPixels = 13.0; // label font size after the zoom
    LabelDetail detail = LabelDetail::Full;
    TitleDetail titles = TitleDetail::Long;
    bool puNumbers = true; // false: no PU carries its number at this size (hover or zoom)

    // Index of the PU box with this OS index, or -1.
    int puBox(int osIndex) const;
    // Index of the innermost box containing the point, or -1.
    int boxAt(const QPointF& point) const;
};

// The PREPARE pass of the map (as lstopo separates it from drawing): nested boxes for
// packages, NUMA nodes (when there are several), caches, cores and PUs, wrapped into grids
// whose shape is chosen to make the whole tree as large as possible in `available`, then
// zoomed to fit and centred. Text is measured with `font` at the sizes it will be drawn; the
// zoom stops where labels reach 1.5 times `font` (the application's type), so a small machine
// is drawn at that size in the middle of the room it has. `textScale` > 1 (presentation mode)
// asks for larger text: shorter labels are taken sooner and that cap grows with it. Where even
// compact labels would be drawn below a readable size, whole levels of labels go instead, titles
// first (shortened, then none), then the PU numbers: every label is inside its own box's strip,
// so no text is ever drawn over another box. Zooming is a larger `available` (in a scroll area).
TopologyLayout layoutTopology(
    const Topology& topology, const QSizeF& available, const QFont& font = QFont(), double textScale = 1.0);

// Package and NUMA labels are bold; the layout measures them that way.
bool hasBoldLabel(BoxKind kind);

} // namespace ctxscope::gui
