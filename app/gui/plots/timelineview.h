// SPDX-License-Identifier: MIT
#pragma once

#include "timelinedata.h"

#include <QColor>
#include <QFont>
#include <QImage>
#include <QWidget>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ctxscope::gui {

// The scheduler's timeline: a lane per PU in the map's order, what ran on it as slices in each
// task's colour, idle drawn as idle (darker for a deeper idle state; a pid below 0, what a
// traced watch does not follow, drawn as idle), interrupts as ticks, a
// migration as a triangle where the task arrived, a wake-up as an arrow from the waker's lane to
// the wakee's switch-in. Drawn with TimelineData's level of detail: one piece per pixel however
// many events the span holds.
//
// Zoom with the wheel (around the pointer), + and -, or by dragging with Shift over a span; pan by
// dragging, with Shift+wheel or the arrow keys; Home or a double click shows the whole recording.
// Dragging with the right button measures a span (the ruler). The axis reads in ns, µs or ms.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    // The recording and the lanes (timelineLanes: every PU of the map, also those without
    // events); shows the whole recording.
    void setData(std::shared_ptr<const TimelineData> data, std::vector<TimelineLane> lanes);
    const TimelineData* data() const { return m_data.get(); }
    // The keep-awake threads' colour (a condition's SCHED_IDLE pollers): a pale grey-violet, busy
    // but apart from the measured tasks' saturated colours and the other tasks' muted hues.
    static QColor keepAwakeColor() { return QColor(0xC8, 0xBE, 0xDC); }
    // A task's colour (its markers' and curves' colour); others get one from their pid.
    void setTaskColor(std::int32_t pid, const QColor& color);
    void clearTaskColors(); // every task back to the colour its pid gives (and no task names)
    QColor taskColor(std::int32_t pid) const;
    // A measured task's name ("A", "B", as on the map): its slices' tooltips lead with it, the
    // process after it.
    void setTaskName(std::int32_t pid, const QString& name);

    // Where the axis counts from: the recording's start unless set (a watch's start, so that the
    // labels stay put while its window of the last seconds moves on).
    void setTimeOrigin(std::optional<std::uint64_t> ns);
    std::uint64_t timeOriginNs() const;

    std::uint64_t fromNs() const { return m_fromNs; }
    std::uint64_t toNs() const { return m_toNs; }
    // Shows [fromNs, toNs), kept inside the recording and at least 100 ns wide.
    void showSpan(std::uint64_t fromNs, std::uint64_t toNs);
    void showAll();
    // Zooms by `factor` (< 1: in) keeping the time under pixel x where it is.
    void zoomAt(double factor, double x);

    // Geometry, for clicks and tests: the lane under y (its PU), the time under x.
    std::optional<int> puAt(double y) const;
    std::uint64_t nsAt(double x) const;
    double xOf(std::uint64_t ns) const;
    QRectF laneRect(int pu) const;
    // Lights a lane (the map's hovered PU); -1 for none.
    void highlightPu(int pu);
    int highlightedPu() const { return m_highlight; }
    // The ruler's span while or after dragging with the right button.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> ruler() const { return m_ruler; }
    void setRuler(std::uint64_t fromNs, std::uint64_t toNs);

    QSize sizeHint() const override { return { 800, 300 }; }
    // Room for the axis and a readable lane each (of the first six: more lanes share it).
    QSize minimumSizeHint() const override;
    static constexpr int kLeastLaneHeight = 24;

signals:
    void puHovered(int pu); // -1 when the pointer leaves the lanes
    void taskClicked(std::int32_t pid); // a slice was clicked: its task
    void spanChanged(std::uint64_t fromNs, std::uint64_t toNs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    enum class Drag { None, Pan, Zoom, Ruler };
    QRectF plotArea() const;
    double labelWidth() const;
    void drawAxis(QPainter& p, const QRectF& area) const;
    struct Pixels;
    void drawLane(const Pixels& image, const TimelineLane& lane, int top, int bottom, const QColor& background,
        std::uint64_t nsPerPixel) const;
    void drawWakes(QPainter& p, const QRectF& area) const;
    void panBy(double pixels);

    std::shared_ptr<const TimelineData> m_data;
    std::vector<TimelineLane> m_lanes;
    std::map<std::int32_t, QColor> m_colors;
    std::optional<std::uint64_t> m_origin;
    std::map<std::int32_t, QString> m_names;
    mutable std::unordered_map<std::int32_t, QRgb> m_rgb; // taskColor() as pixels, made once a task
    std::uint64_t m_fromNs = 0;
    std::uint64_t m_toNs = 1;
    int m_highlight = -1;
    Drag m_drag = Drag::None;
    QPointF m_pressAt;
    std::uint64_t m_pressFromNs = 0;
    std::uint64_t m_pressToNs = 0;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> m_ruler;
    std::optional<std::pair<double, double>> m_zoomBand; // pixels, while Shift-dragging
    QImage m_frame; // the lanes' pixels, kept between frames
    mutable std::optional<QFont> m_metricsFont; // what the two below were measured with
    mutable double m_labelWidth = 0;
    mutable double m_axisHeight = 0;
};

} // namespace ctxscope::gui
