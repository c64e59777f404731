// SPDX-License-Identifier: MIT
// The threads of a watched program on the map: a row of small labelled markers at the foot of
// each PU they last ran on, as many as fit, then "+N"; and in re-pin mode the PUs chosen to pin
// them to, outlined in the markers' colour.
#include "topologymapwidget.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <set>

namespace ctxscope::gui {

namespace {

// One marker colour that reads on the light and the dark palettes and differs from the task
// colours of a run's selection; selected threads take the palette's highlight.
const QColor kMarker(0xd9, 0x5f, 0x02);

} // namespace

void TopologyMapWidget::setThreadMarkers(std::vector<ThreadMarker> markers)
{
    std::stable_sort(
        markers.begin(), markers.end(), [](const ThreadMarker& a, const ThreadMarker& b) { return a.cpu < b.cpu; });
    m_markers = std::move(markers);
    update();
}

bool TopologyMapWidget::hasMarkersOn(int cpu) const
{
    return std::binary_search(m_markers.begin(), m_markers.end(), ThreadMarker { cpu, {}, {}, false, 0 },
        [](const ThreadMarker& a, const ThreadMarker& b) { return a.cpu < b.cpu; });
}

QFont TopologyMapWidget::markerFont() const
{
    QFont f = font();
    f.setBold(false);
    f.setPixelSize(std::max(7, qRound(m_layout.fontPixels * 0.75)));
    return f;
}

double TopologyMapWidget::markerHeight() const { return std::ceil(QFontMetricsF(markerFont()).height()) + 2; }

void TopologyMapWidget::paintMarkers(QPainter& painter, const Colors& c) const
{
    if (m_markers.empty())
        return;
    const TopologyLayout& layout = m_layout;
    const QFont font = markerFont();
    painter.setFont(font);
    const QFontMetricsF fm(font);
    const double height = markerHeight();
    painter.setRenderHint(QPainter::Antialiasing);
    auto it = m_markers.begin();
    while (it != m_markers.end()) {
        const auto end
            = std::find_if(it, m_markers.end(), [cpu = it->cpu](const ThreadMarker& m) { return m.cpu != cpu; });
        const int box = layout.puBox(it->cpu);
        if (box < 0) {
            it = end;
            continue;
        }
        const QRectF r = layout.boxes[static_cast<std::size_t>(box)].rect.adjusted(2, 2, -2, -2);
        const double h = std::min(height, r.height());
        double x = r.left();
        const double y = r.bottom() - h;
        const auto count = static_cast<int>(end - it);
        int drawn = 0;
        for (auto m = it; m != end; ++m, ++drawn) {
            const QString more = QStringLiteral("+%1").arg(count - drawn);
            const double width = fm.horizontalAdvance(m->label) + h * 0.6;
            const double moreWidth = fm.horizontalAdvance(more) + h * 0.6;
            // Room for this one and, unless it is the last, a "+N" after it.
            const bool last = m + 1 == end;
            if (x + width + (last ? 0 : moreWidth + 2) > r.right() + 0.5) {
                const QRectF pill(x, y, std::min(moreWidth, r.right() - x), h);
                if (pill.width() > 2) {
                    painter.setPen(Qt::NoPen);
                    painter.setBrush(c.border);
                    painter.drawRoundedRect(pill, h / 2, h / 2);
                    painter.setPen(textOn(c.border));
                    painter.drawText(pill, Qt::AlignCenter, more);
                }
                break;
            }
            const QRectF pill(x, y, width, h);
            const QColor fill = m->selected ? c.highlight : kMarker;
            painter.setPen(QPen(fill.darker(150), 1));
            painter.setBrush(fill);
            painter.drawRoundedRect(pill, h / 2, h / 2);
            painter.setPen(textOn(fill));
            painter.drawText(pill, Qt::AlignCenter, m->label);
            x += width + 2;
        }
        it = end;
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
}

void TopologyMapWidget::setRepinMode(bool on)
{
    if (on == m_repin)
        return;
    m_repin = on;
    update();
    emit repinModeChanged(on);
}

Status TopologyMapWidget::setPinTargets(std::vector<int> osCpus)
{
    if (Status allowed = checkAllowed(osCpus); !allowed)
        return allowed;
    const std::set<int> unique(osCpus.begin(), osCpus.end());
    m_pinTargets.assign(unique.begin(), unique.end());
    update();
    emit pinTargetsChanged();
    return {};
}

void TopologyMapWidget::clearPinTargets()
{
    if (m_pinTargets.empty())
        return;
    m_pinTargets.clear();
    update();
    emit pinTargetsChanged();
}

void TopologyMapWidget::togglePinTarget(int osCpu)
{
    const auto at = std::lower_bound(m_pinTargets.begin(), m_pinTargets.end(), osCpu);
    if (at != m_pinTargets.end() && *at == osCpu)
        m_pinTargets.erase(at);
    else
        m_pinTargets.insert(at, osCpu);
    update();
    emit pinTargetsChanged();
}

void TopologyMapWidget::paintPinTargets(QPainter& painter) const
{
    if (!m_repin)
        return;
    // Dashed, so a target reads apart from a task's solid frame on the same PU.
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(kMarker, 3, Qt::DashLine));
    for (int cpu : m_pinTargets)
        if (const int box = m_layout.puBox(cpu); box >= 0)
            painter.drawRect(m_layout.boxes[static_cast<std::size_t>(box)].rect.adjusted(2, 2, -2, -2));
}

QString TopologyMapWidget::markersToolTip(int cpu) const
{
    QString text;
    int shown = 0;
    int count = 0;
    for (const ThreadMarker& m : m_markers) {
        if (m.cpu != cpu)
            continue;
        if (++count > 12)
            continue;
        ++shown;
        text += QLatin1Char('\n')
            + tr("%1 (thread %2) last ran here")
                  .arg(m.name.isEmpty() ? tr("a thread") : m.name, QString::number(m.tid));
    }
    if (count > shown)
        text += QLatin1Char('\n') + tr("… and %1 more threads").arg(count - shown);
    return text;
}

} // namespace ctxscope::gui
