// SPDX-License-Identifier: MIT
// The DRAW pass of the map: only what the layout says, in palette colours.
#include "topologymapwidget.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace ctxscope::gui {

namespace {

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
        static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
        static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QFont labelFont(const QFont& base, double pixels, bool bold)
{
    QFont f = base;
    f.setPixelSize(std::max(1, qRound(pixels)));
    f.setBold(bold);
    return f;
}

} // namespace

QColor TopologyMapWidget::textOn(const QColor& fill)
{
    const double luminance = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return luminance > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

TopologyMapWidget::Colors TopologyMapWidget::colors() const
{
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    Colors c;
    c.background = base;
    c.border = mix(base, text, 0.5);
    c.text = text;
    c.package = mix(base, text, 0.07);
    c.numa = mix(base, pal.color(QPalette::Highlight), 0.12);
    c.group = mix(base, text, 0.11);
    c.cache = base;
    c.core = mix(base, text, 0.17);
    c.pu = base;
    c.disallowedPu = mix(base, text, 0.4);
    c.disallowedText = mix(base, text, 0.72);
    c.highlight = pal.color(QPalette::Highlight);
    return c;
}

QColor TopologyMapWidget::kindFill(int kind, bool core) const
{
    const Colors c = colors();
    const QColor plain = core ? c.core : c.pu;
    if (!m_topology || !m_topology->hybrid() || kind < 0)
        return plain;
    const auto& kinds = m_topology->cpuKinds();
    const auto k = static_cast<std::size_t>(kind);
    if (k >= kinds.size())
        return plain;
    // The kind's place in performance order: how many kinds hwloc ranks above it.
    const auto above = std::count_if(kinds.begin(), kinds.end(), [&](const CpuKind& o) {
        return o.efficiency > kinds[k].efficiency || (o.efficiency == kinds[k].efficiency && o.index < kinds[k].index);
    });
    if (above == 0)
        return plain;
    // Hues apart from the task colours' and the highlight's, strong enough on light and dark bases.
    static const std::array<QColor, 3> tints { QColor(0x2a, 0x9d, 0x8f), QColor(0xe9, 0xa0, 0x30),
        QColor(0x8e, 0x6c, 0xc4) };
    const QColor tint = tints[static_cast<std::size_t>(above - 1) % tints.size()];
    return mix(c.background, tint, core ? 0.45 : 0.28);
}

void TopologyMapWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const Colors c = colors();
    painter.fillRect(rect(), c.background);
    if (!m_topology) {
        painter.setPen(c.text);
        painter.drawText(rect(), Qt::AlignCenter, tr("No topology loaded"));
        return;
    }
    const TopologyLayout& layout = mapLayout();
    const LabelFonts fonts { labelFont(font(), layout.fontPixels, false), labelFont(font(), layout.fontPixels, true) };
    for (const LayoutBox& box : layout.boxes)
        if (box.kind == BoxKind::Pu)
            paintPu(painter, box, c, fonts);
        else
            paintBox(painter, box, c, fonts);
    paintHighlight(painter, c);
    paintMarkers(painter, c);
    paintPinTargets(painter);
    // The caption follows the layout painted (a queued slot, not in the middle of this paint).
    if (const QString note = labelsNote(); note != m_shownNote) {
        m_shownNote = note;
        emit labelsNoteChanged(note);
    }
}

void TopologyMapWidget::paintBox(
    QPainter& painter, const LayoutBox& box, const Colors& c, const LabelFonts& fonts) const
{
    QColor fill;
    switch (box.kind) {
    case BoxKind::Package:
        fill = c.package;
        break;
    case BoxKind::Numa:
        fill = c.numa;
        break;
    case BoxKind::Die:
    case BoxKind::Group:
        fill = c.group;
        break;
    case BoxKind::Cache:
        fill = c.cache;
        break;
    case BoxKind::Core:
    case BoxKind::Pu:
        fill = box.cpuKind >= 0 ? kindFill(box.cpuKind, true) : c.core;
        break;
    }
    painter.setPen(QPen(c.border, 1));
    painter.setBrush(fill);
    painter.drawRect(box.rect.adjusted(0.5, 0.5, -0.5, -0.5));
    if (box.labelRect.isEmpty())
        return;
    painter.setFont(hasBoldLabel(box.kind) ? fonts.bold : fonts.regular);
    painter.setPen(c.text);
    const QString text = painter.fontMetrics().elidedText(box.label, Qt::ElideRight, qRound(box.labelRect.width()));
    painter.drawText(box.labelRect, Qt::AlignLeft | Qt::AlignVCenter, text);
}

void TopologyMapWidget::paintPu(QPainter& painter, const LayoutBox& box, const Colors& c, const LabelFonts& fonts) const
{
    const std::vector<int> tasks = m_selection.tasksOn(box.osIndex);
    const QRectF r = box.rect.adjusted(0.5, 0.5, -0.5, -0.5);
    QColor textColor = c.text;
    if (!box.allowed) {
        painter.fillRect(box.rect, c.disallowedPu);
        textColor = c.disallowedText;
    } else if (tasks.empty()) {
        painter.fillRect(box.rect, box.cpuKind >= 0 ? kindFill(box.cpuKind, false) : c.pu);
    } else {
        // Several tasks on one PU share it in stripes, as they share its time.
        const double stripe = box.rect.width() / static_cast<double>(tasks.size());
        for (std::size_t i = 0; i < tasks.size(); ++i)
            painter.fillRect(
                QRectF(box.rect.x() + stripe * static_cast<double>(i), box.rect.y(), stripe, box.rect.height()),
                taskColor(tasks[i]));
        textColor = textOn(taskColor(tasks.front()));
    }
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(tasks.empty() ? c.border : taskColor(tasks.front()).darker(160), tasks.empty() ? 1 : 2));
    painter.drawRect(tasks.empty() ? r : box.rect.adjusted(1, 1, -1, -1));
    if (m_hoveredPu >= 0 && m_hoveredPu == box.osIndex && box.allowed) {
        // A veil of the highlight over the whole box and a thick ring in the text's colour: a
        // thin highlight-coloured border vanished on a task's blue box.
        QColor veil = c.highlight;
        veil.setAlpha(90);
        painter.fillRect(box.rect, veil);
        painter.setPen(QPen(c.text, 3));
        painter.drawRect(box.rect.adjusted(1.5, 1.5, -1.5, -1.5));
    }
    // A watched program's threads take the foot of the box (paintMarkers); the label sits above.
    const QRectF textRect = hasMarkersOn(box.osIndex) ? box.rect.adjusted(0, 0, 0, -markerHeight()) : box.rect;
    painter.setFont(tasks.empty() ? fonts.regular : fonts.bold);
    painter.setPen(textColor);
    if (tasks.empty()) {
        // The layout sized every PU box for the widest PU label and a task letter beside it.
        painter.drawText(textRect, Qt::AlignCenter, box.label);
        return;
    }
    QString names;
    for (int t : tasks)
        names += (names.isEmpty() ? QString() : QStringLiteral("+")) + taskName(t);
    const QFontMetricsF fm(painter.font());
    const double room = box.rect.width() - 4;
    // The task letter matters most; the PU number goes with it when it fits.
    QString text = names;
    const std::array<QString, 3> candidates { QString(names + QStringLiteral("  ") + box.label),
        QString(names + QStringLiteral("  P#") + QString::number(box.osIndex)),
        QString(names + QStringLiteral(" ") + QString::number(box.osIndex)) };
    // With the PU numbers hidden (layout.puNumbers), the number stays hidden here too.
    for (const QString& candidate : candidates)
        if (!box.label.isEmpty() && fm.horizontalAdvance(candidate) <= room) {
            text = candidate;
            break;
        }
    // The letter alone where it fits; the stripes of task colour say the rest.
    if (box.label.isEmpty() && fm.horizontalAdvance(text) > room)
        return;
    painter.drawText(textRect, Qt::AlignCenter, fm.elidedText(text, Qt::ElideRight, room));
}

void TopologyMapWidget::paintHighlight(QPainter& painter, const Colors& c) const
{
    if (!m_highlight)
        return;
    const int a = m_layout.puBox(m_highlight->a);
    const int b = m_layout.puBox(m_highlight->b);
    if (a < 0 || b < 0)
        return;
    // No line between the two: it would strike through the labels of the PUs between them.
    painter.setRenderHint(QPainter::Antialiasing);
    for (const int index : a == b ? std::vector<int> { a } : std::vector<int> { a, b }) {
        const QRectF r = m_layout.boxes[static_cast<std::size_t>(index)].rect;
        if (m_selection.tasksOn(m_layout.boxes[static_cast<std::size_t>(index)].osIndex).empty()) {
            QColor wash = c.highlight;
            wash.setAlphaF(0.22F);
            painter.fillRect(r, wash);
        }
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(c.highlight, 4));
        painter.drawRoundedRect(r.adjusted(-2, -2, 2, 2), 3, 3);
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
}

} // namespace ctxscope::gui
