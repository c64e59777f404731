// SPDX-License-Identifier: MIT
#include "mapscrollarea.h"

#include "topologymapwidget.h"

#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

MapScrollArea::MapScrollArea(TopologyMapWidget* map, QWidget* parent)
    : QScrollArea(parent)
    , m_map(map)
{
    setFrameShape(QFrame::NoFrame);
    // The map is sized here (fitMap), not by the scroll area: zoom 1 is the view's own size.
    setWidgetResizable(false);
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    setWidget(m_map);
    setFocusProxy(m_map);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QSize MapScrollArea::sizeHint() const { return m_map->sizeHint(); }
QSize MapScrollArea::minimumSizeHint() const { return m_map->minimumSizeHint(); }

void MapScrollArea::setZoom(double zoom) { setZoom(zoom, QRectF(viewport()->rect()).center()); }

void MapScrollArea::setZoom(double zoom, const QPointF& anchor)
{
    zoom = std::clamp(zoom, 1.0, kMaxZoom);
    if (std::abs(zoom - m_zoom) < 1e-9)
        return;
    // The fraction of the map under the anchor stays under it. The layout keeps its shape as the
    // widget grows with the view's aspect ratio, so this is the same spot up to label changes.
    const QPointF before = anchor + QPointF(horizontalScrollBar()->value(), verticalScrollBar()->value());
    const QPointF fraction(before.x() / std::max(1, m_map->width()), before.y() / std::max(1, m_map->height()));
    m_zoom = zoom;
    fitMap();
    horizontalScrollBar()->setValue(qRound(fraction.x() * m_map->width() - anchor.x()));
    verticalScrollBar()->setValue(qRound(fraction.y() * m_map->height() - anchor.y()));
    emit zoomChanged(m_zoom);
}

void MapScrollArea::fitMap()
{
    // The view without scroll bars: at zoom 1 the map fits it exactly and none appear.
    const QSize view = maximumViewportSize();
    m_map->resize(qRound(view.width() * m_zoom), qRound(view.height() * m_zoom));
}

void MapScrollArea::resizeEvent(QResizeEvent* event)
{
    QScrollArea::resizeEvent(event);
    fitMap();
}

void MapScrollArea::wheelEvent(QWheelEvent* event)
{
    if (!event->modifiers().testFlag(Qt::ControlModifier))
        return QScrollArea::wheelEvent(event); // scrolls a zoomed map
    const int steps = event->angleDelta().y() / 120; // one notch; touchpads send less, often
    if (steps == 0)
        return event->accept();
    setZoom(m_zoom * std::pow(kStep, steps), event->position()); // the viewport's coordinates
    event->accept();
}

void MapScrollArea::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: // + without Shift on US keyboards
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
        resetZoom();
        return;
    default:
        QScrollArea::keyPressEvent(event);
    }
}

} // namespace ctxscope::gui
