// SPDX-License-Identifier: MIT
#pragma once

#include <QScrollArea>

namespace ctxscope::gui {

class TopologyMapWidget;

// The map, zoomable: at zoom 1 it fills the view exactly (no scroll bars); zoomed in, the map
// widget is that many times the view in each direction and scrolls. Zooming is only a larger
// widget, so the layout stays the pure function of a size it always was (layoutTopology) and
// clicks, hover and tooltips hit what is drawn at every zoom. Ctrl+wheel zooms around the
// mouse; +, - and 0 (also with Ctrl) zoom in, out and back to fit; the plain wheel scrolls.
class MapScrollArea : public QScrollArea {
    Q_OBJECT
public:
    static constexpr double kMaxZoom = 8.0;
    static constexpr double kStep = 1.25;

    explicit MapScrollArea(TopologyMapWidget* map, QWidget* parent = nullptr);

    TopologyMapWidget* map() const { return m_map; }
    double zoom() const { return m_zoom; }
    // Clamped to [1, kMaxZoom]; `anchor` (in the view's coordinates) stays over the same spot
    // of the map; by default the view's centre.
    void setZoom(double zoom);
    void setZoom(double zoom, const QPointF& anchor);
    void zoomIn() { setZoom(m_zoom * kStep); }
    void zoomOut() { setZoom(m_zoom / kStep); }
    void resetZoom() { setZoom(1.0); }

    // The map's own: the window gives the pane the room the map asks for, zoomed or not.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void zoomChanged(double zoom);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void fitMap();

    TopologyMapWidget* m_map;
    double m_zoom = 1.0;
};

} // namespace ctxscope::gui
