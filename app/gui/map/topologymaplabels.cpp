// SPDX-License-Identifier: MIT
// Labels for a map zoomed out too far for its own (a machine of hundreds of PUs): the layout's
// label strips are then a few pixels high, so the names of the boxes that are still large
// (packages, NUMA nodes, L3s) are drawn over their top-left corner at a readable size, and the
// PUs get their numbers where a number fits. Everything keeps its tooltip.
#include "topologymapwidget.h"

#include <QFontInfo>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace ctxscope::gui {

namespace {

// Below this the layout's own labels are too small to read and these take over.
constexpr double kOwnLabelPixels = 7.0;
// A PU number this small is noise rather than a label.
constexpr double kMinPuNumberPixels = 6.0;

bool labelledWhenSmall(const LayoutBox& box)
{
    switch (box.kind) {
    case BoxKind::Package:
    case BoxKind::Die:
    case BoxKind::Group:
    case BoxKind::Numa:
        return true;
    case BoxKind::Cache:
        return box.cacheLevel >= 3; // the per-core caches are as small as their cores
    case BoxKind::Core:
    case BoxKind::Pu:
        break;
    }
    return false;
}

// "  P#0-31" when the box holds a run of consecutive PUs, "" otherwise.
QString puRange(const LayoutBox& box)
{
    if (box.pus.size() < 2 || box.pus.back() - box.pus.front() + 1 != static_cast<int>(box.pus.size()))
        return {};
    return QStringLiteral("  P#%1-%2").arg(box.pus.front()).arg(box.pus.back());
}

} // namespace

bool TopologyMapWidget::needsSmallLabels() const { return m_layout.fontPixels < kOwnLabelPixels; }

void TopologyMapWidget::paintSmallLabels(QPainter& painter, const Colors& c) const
{
    const double pixels = std::max(8.0, 0.8 * QFontInfo(font()).pixelSize() * m_textScale);
    QFont regular = font();
    regular.setPixelSize(qRound(pixels));
    QFont bold = regular;
    bold.setBold(true);
    const QFontMetricsF regularMetrics(regular);
    const QFontMetricsF boldMetrics(bold);

    // PU numbers first: the container labels go over them. PU boxes share one size, so the font
    // and its metrics are made again only when the size or the weight changes.
    QFont number = regular;
    std::optional<QFontMetricsF> numberMetrics;
    for (const LayoutBox& box : m_layout.boxes) {
        if (box.kind != BoxKind::Pu)
            continue;
        const int size = static_cast<int>(std::min(pixels, std::floor(box.rect.height() * 0.7)));
        if (size < kMinPuNumberPixels)
            continue;
        // A placed task's letter instead of the number: it says more.
        const std::vector<int> tasks = m_selection.tasksOn(box.osIndex);
        QString text = QString::number(box.osIndex);
        if (!tasks.empty()) {
            text.clear();
            for (int t : tasks)
                text += (text.isEmpty() ? QString() : QStringLiteral("+")) + taskName(t);
        }
        if (!numberMetrics || number.pixelSize() != size || number.bold() != !tasks.empty()) {
            number.setPixelSize(size);
            number.setBold(!tasks.empty());
            numberMetrics.emplace(number);
            painter.setFont(number);
        }
        if (numberMetrics->horizontalAdvance(text) > box.rect.width() - 2)
            continue;
        painter.setPen(!tasks.empty() ? textOn(taskColor(tasks.front())) : box.allowed ? c.text : c.disallowedText);
        painter.drawText(box.rect, Qt::AlignCenter, text);
    }

    std::vector<int> childCount(m_layout.boxes.size(), 0);
    for (const LayoutBox& box : m_layout.boxes)
        if (box.parent >= 0)
            ++childCount[static_cast<std::size_t>(box.parent)];
    std::vector<QRectF> placed;
    const double pad = std::round(pixels * 0.3);
    for (const LayoutBox& box : m_layout.boxes) {
        if (!labelledWhenSmall(box) || box.label.isEmpty())
            continue;
        const bool isBold = hasBoldLabel(box.kind);
        const QFontMetricsF& fm = isBold ? boldMetrics : regularMetrics;
        // A group or die around one NUMA node (or one anything) says nothing its child does not.
        const auto self = static_cast<int>(&box - m_layout.boxes.data());
        if ((box.kind == BoxKind::Group || box.kind == BoxKind::Die) && childCount[static_cast<std::size_t>(self)] == 1)
            continue;
        // The PUs below, when they are a range: with PU numbers too small to draw, this is how
        // one finds P#700 on the map. The longest text that fits, or none.
        const QString range = puRange(box);
        QString text;
        for (const QString& candidate : { QString(box.label + range), box.label, range.trimmed() })
            if (!candidate.isEmpty() && fm.horizontalAdvance(candidate) + 2 * pad <= box.rect.width() - 2) {
                text = candidate;
                break;
            }
        const QSizeF size(fm.horizontalAdvance(text) + 2 * pad, fm.height() + pad);
        // Only where the label leaves most of its box visible.
        if (text.isEmpty() || 3 * size.height() > box.rect.height())
            continue;
        // At the box's top-left corner, or just below the labels of its parents already there.
        QRectF at(box.rect.topLeft() + QPointF(1, 1), size);
        for (bool moved = true; moved;) {
            moved = false;
            for (const QRectF& other : placed)
                if (other.intersects(at)) {
                    at.moveTop(other.bottom() + 1);
                    moved = true;
                }
        }
        if (at.bottom() > box.rect.bottom() - size.height())
            continue;
        placed.push_back(at);
        QColor wash = c.background;
        wash.setAlphaF(0.88F);
        painter.fillRect(at, wash);
        painter.setPen(QPen(c.border, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(at.adjusted(0.5, 0.5, -0.5, -0.5));
        painter.setFont(isBold ? bold : regular);
        painter.setPen(c.text);
        painter.drawText(at, Qt::AlignCenter, text);
    }
}

} // namespace ctxscope::gui
