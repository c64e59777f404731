// SPDX-License-Identifier: MIT
#include "timelineview.h"

#include "durationticker.h"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

namespace {

constexpr std::uint64_t kNarrowestNs = 100; // the deepest zoom: a hand-over's steps are µs apart
constexpr std::size_t kMostArrows = 400; // wake-up arrows in one frame; more are a smear, not a story

// A tick step of 1, 2 or 5 times a power of ten giving about `wanted` ticks over `span`.
double tickStep(double span, int wanted)
{
    const double raw = span / std::max(1, wanted);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : { 1.0, 2.0, 5.0 })
        if (raw <= m * power)
            return m * power;
    return 10 * power;
}

// A tick's label in the unit of the step between ticks, with the decimals the step needs:
// at 2 µs a tick 23.32 ms in reads "23,318 µs", where "23.32 ms" named every tick alike.
QString tickLabel(double ns, double step)
{
    struct Unit {
        double scale;
        const char16_t* name;
    };
    static constexpr Unit kUnits[] = { { 1e9, u"s" }, { 1e6, u"ms" }, { 1e3, u"µs" }, { 1, u"ns" } };
    for (const Unit& unit : kUnits)
        if (step >= unit.scale || unit.scale == 1) {
            const double inUnit = step / unit.scale;
            const int decimals = inUnit >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(inUnit)));
            return QLocale().toString(ns / unit.scale, 'f', decimals) + QLatin1Char(' ')
                + QString::fromUtf16(unit.name);
        }
    return {};
}

} // namespace

// An image's pixels, written directly. Taken once a frame: QImage::scanLine() detaches on every
// call, and a frame fills tens of thousands of runs.
struct TimelineView::Pixels {
    QRgb* bits;
    qsizetype stride; // pixels a line
    int width;
    int height;

    explicit Pixels(QImage& image)
        : bits(reinterpret_cast<QRgb*>(image.bits()))
        , stride(image.bytesPerLine() / static_cast<qsizetype>(sizeof(QRgb)))
        , width(image.width())
        , height(image.height())
    {
    }

    // Rows [top, bottom) of columns [left, right) in one colour.
    void fill(int top, int bottom, int left, int right, QRgb color) const
    {
        top = std::max(0, top);
        bottom = std::min(height, bottom);
        left = std::max(0, left);
        right = std::min(width, right);
        for (int row = top; left < right && row < bottom; ++row)
            std::fill(bits + row * stride + left, bits + row * stride + right, color);
    }
};

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> data, std::vector<TimelineLane> lanes)
{
    m_data = std::move(data);
    const bool moreLanes = lanes.size() != m_lanes.size();
    m_lanes = std::move(lanes);
    if (moreLanes)
        updateGeometry(); // the least height follows the lanes
    m_ruler.reset();
    showAll();
}

void TimelineView::setTaskColor(std::int32_t pid, const QColor& color)
{
    m_colors[pid] = color;
    m_rgb.erase(pid);
    update();
}

void TimelineView::setTimeOrigin(std::optional<std::uint64_t> ns)
{
    m_origin = ns;
    update();
}

std::uint64_t TimelineView::timeOriginNs() const { return m_origin ? *m_origin : m_data ? m_data->beginNs() : 0; }

void TimelineView::setTaskName(std::int32_t pid, const QString& name) { m_names[pid] = name; }

void TimelineView::clearTaskColors()
{
    m_colors.clear();
    m_names.clear();
    m_rgb.clear();
    update();
}

QColor TimelineView::taskColor(std::int32_t pid) const
{
    if (const auto it = m_colors.find(pid); it != m_colors.end())
        return it->second;
    // Tasks without a run colour: muted hues spread by the golden angle, told apart from each
    // other and from the runs' saturated colours.
    const int hue = static_cast<int>((static_cast<std::uint32_t>(pid) * 137U) % 360U);
    return QColor::fromHsv(hue, 70, 200);
}

void TimelineView::setRuler(std::uint64_t fromNs, std::uint64_t toNs)
{
    m_ruler = std::pair(std::min(fromNs, toNs), std::max(fromNs, toNs));
    update();
}

void TimelineView::showSpan(std::uint64_t fromNs, std::uint64_t toNs)
{
    const std::uint64_t begin = m_data ? m_data->beginNs() : 0;
    const std::uint64_t end = m_data ? std::max(m_data->endNs(), begin + kNarrowestNs) : kNarrowestNs;
    if (toNs < fromNs)
        std::swap(fromNs, toNs);
    std::uint64_t span = std::clamp<std::uint64_t>(toNs - fromNs, kNarrowestNs, end - begin);
    fromNs = std::clamp(fromNs, begin, end - span);
    if (fromNs == m_fromNs && fromNs + span == m_toNs)
        return;
    m_fromNs = fromNs;
    m_toNs = fromNs + span;
    update();
    emit spanChanged(m_fromNs, m_toNs);
}

void TimelineView::showAll()
{
    if (m_data)
        showSpan(m_data->beginNs(), m_data->endNs());
    update();
}

void TimelineView::zoomAt(double factor, double x)
{
    const QRectF area = plotArea();
    const double span = static_cast<double>(m_toNs - m_fromNs);
    const double share = area.width() > 0 ? std::clamp((x - area.left()) / area.width(), 0.0, 1.0) : 0.5;
    const double anchor = static_cast<double>(m_fromNs) + share * span;
    const double wider = std::max(static_cast<double>(kNarrowestNs), span * factor);
    const double from = std::max(0.0, anchor - share * wider);
    showSpan(static_cast<std::uint64_t>(from), static_cast<std::uint64_t>(from + wider));
}

void TimelineView::panBy(double pixels)
{
    const QRectF area = plotArea();
    if (area.width() <= 0)
        return;
    const double ns = pixels * static_cast<double>(m_toNs - m_fromNs) / area.width();
    const double from = std::max(0.0, static_cast<double>(m_fromNs) + ns);
    showSpan(static_cast<std::uint64_t>(from), static_cast<std::uint64_t>(from) + (m_toNs - m_fromNs));
}

QSize TimelineView::minimumSizeHint() const
{
    (void)labelWidth(); // measures the axis's height for this font
    const auto lanes = static_cast<int>(std::clamp<std::size_t>(m_lanes.size(), 1, 6));
    return { 200, static_cast<int>(m_axisHeight) + 2 + lanes * kLeastLaneHeight };
}

double TimelineView::labelWidth() const
{
    // Measured once per font: xOf() asks for every slice drawn, and shaping the text each time
    // was most of a frame.
    if (!m_metricsFont || *m_metricsFont != font()) {
        m_metricsFont = font();
        const QFontMetricsF metrics(*m_metricsFont);
        m_labelWidth = metrics.horizontalAdvance(QStringLiteral("P#0000 ")) + 8;
        m_axisHeight = metrics.height() + 10;
    }
    return m_labelWidth;
}

QRectF TimelineView::plotArea() const
{
    const double left = labelWidth();
    return QRectF(left, m_axisHeight, std::max(1.0, width() - left - 4), std::max(1.0, height() - m_axisHeight - 2));
}

std::optional<int> TimelineView::puAt(double y) const
{
    const QRectF area = plotArea();
    if (m_lanes.empty() || y < area.top() || y >= area.bottom())
        return std::nullopt;
    const auto index = static_cast<std::size_t>((y - area.top()) / area.height() * static_cast<double>(m_lanes.size()));
    return m_lanes[std::min(index, m_lanes.size() - 1)].pu;
}

QRectF TimelineView::laneRect(int pu) const
{
    const QRectF area = plotArea();
    const double h = area.height() / static_cast<double>(std::max<std::size_t>(1, m_lanes.size()));
    for (std::size_t i = 0; i < m_lanes.size(); ++i)
        if (m_lanes[i].pu == pu)
            return QRectF(area.left(), area.top() + h * static_cast<double>(i), area.width(), h);
    return {};
}

std::uint64_t TimelineView::nsAt(double x) const
{
    const QRectF area = plotArea();
    const double share = std::clamp((x - area.left()) / area.width(), 0.0, 1.0);
    return m_fromNs + static_cast<std::uint64_t>(share * static_cast<double>(m_toNs - m_fromNs));
}

double TimelineView::xOf(std::uint64_t ns) const
{
    const QRectF area = plotArea();
    const double at = static_cast<double>(ns) - static_cast<double>(m_fromNs);
    return area.left() + at / static_cast<double>(m_toNs - m_fromNs) * area.width();
}

void TimelineView::highlightPu(int pu)
{
    if (pu == m_highlight)
        return;
    m_highlight = pu;
    update();
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRectF area = plotArea();
    if (!m_data || m_lanes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        // The page around the view says why there is nothing (not traced, or traced in the
        // kernel, which keeps no events) and what to do; the view only says that it is empty.
        p.drawText(rect(), Qt::AlignCenter, tr("No scheduler events to draw"));
        return;
    }
    drawAxis(p, area);
    const double h = area.height() / static_cast<double>(m_lanes.size());
    const auto nsPerPixel = static_cast<std::uint64_t>(static_cast<double>(m_toNs - m_fromNs) / area.width());
    const QFontMetricsF metrics(font());
    bool labelled = h >= metrics.height() * 0.8;
    // The lanes are painted as pixels into one image: a zoomed-out frame is a piece per pixel
    // on every lane, tens of thousands of rectangles that QPainter filled one by one in 80 ms.
    const QSize pixels(std::max(1, static_cast<int>(area.width())), std::max(1, static_cast<int>(area.height())));
    if (m_frame.size() != pixels)
        m_frame = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_frame.fill(palette().base().color());
    const Pixels pixelsOf(m_frame);
    for (std::size_t i = 0; i < m_lanes.size(); ++i) {
        const int y0 = static_cast<int>(std::lround(h * static_cast<double>(i)));
        const int y1 = std::max(y0 + 1, static_cast<int>(std::lround(h * static_cast<double>(i + 1))));
        // Lanes of one core share a band, so SMT siblings read as a pair.
        QColor background = palette().base().color();
        if (m_lanes[i].core >= 0 && m_lanes[i].core % 2 == 1)
            background = palette().alternateBase().color();
        if (m_lanes[i].pu == m_highlight)
            background = palette().highlight().color().lighter(170);
        pixelsOf.fill(y0, y1, 0, pixels.width(), background.rgb());
        drawLane(pixelsOf, m_lanes[i], y1 - y0 > 6 ? y0 + 1 : y0, y1 - y0 > 6 ? y1 - 1 : y1, background,
            std::max<std::uint64_t>(1, nsPerPixel));
    }
    p.drawImage(area.topLeft(), m_frame);
    // The hovered lane, framed: its lighter background alone hid under busy slices.
    for (std::size_t i = 0; i < m_lanes.size(); ++i)
        if (m_lanes[i].pu == m_highlight) {
            p.setPen(QPen(palette().color(QPalette::Text), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(area.left() + 1, area.top() + h * static_cast<double>(i) + 1, area.width() - 2, h - 2));
        }
    // Lanes thinner than the type get the labels in a smaller one, down to 7 px.
    QFont small = font();
    if (!labelled && h >= 7) {
        small.setPixelSize(std::max(7, static_cast<int>(h) - 1));
        labelled = true;
    }
    if (labelled) {
        p.setFont(small);
        p.setPen(palette().color(QPalette::Text));
        for (std::size_t i = 0; i < m_lanes.size(); ++i)
            p.drawText(QRectF(2, area.top() + h * static_cast<double>(i), labelWidth() - 6, h),
                Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("P#%1").arg(m_lanes[i].pu));
        p.setFont(font());
    }
    drawWakes(p, area);
    if (m_zoomBand) {
        const auto [a, b] = *m_zoomBand;
        QColor band = palette().highlight().color();
        band.setAlpha(60);
        p.fillRect(QRectF(QPointF(std::min(a, b), area.top()), QPointF(std::max(a, b), area.bottom())), band);
    }
    if (m_ruler) {
        const double a = xOf(m_ruler->first);
        const double b = xOf(m_ruler->second);
        QColor band = palette().color(QPalette::Text);
        band.setAlpha(30);
        const QRectF r(QPointF(std::min(a, b), area.top()), QPointF(std::max(a, b), area.bottom()));
        p.fillRect(r, band);
        p.setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
        p.drawLine(QPointF(a, area.top()), QPointF(a, area.bottom()));
        p.drawLine(QPointF(b, area.top()), QPointF(b, area.bottom()));
        const std::uint64_t span
            = m_ruler->second > m_ruler->first ? m_ruler->second - m_ruler->first : m_ruler->first - m_ruler->second;
        const QString text = durationTickLabel(static_cast<double>(span));
        const QRectF box(r.center().x() - metrics.horizontalAdvance(text) / 2 - 4, area.top() + 2,
            metrics.horizontalAdvance(text) + 8, metrics.height() + 2);
        p.fillRect(box, palette().toolTipBase());
        p.setPen(palette().color(QPalette::ToolTipText));
        p.drawText(box, Qt::AlignCenter, text);
    }
}

void TimelineView::drawAxis(QPainter& p, const QRectF& area) const
{
    const QFontMetricsF metrics(font());
    const double span = static_cast<double>(m_toNs - m_fromNs);
    const int wanted
        = std::max(2, static_cast<int>(area.width() / (metrics.horizontalAdvance(QStringLiteral("000.0 µs")) * 1.6)));
    const double step = tickStep(span, wanted);
    // Ticks read as time since the recording's start (or the origin set).
    const double origin = static_cast<double>(timeOriginNs());
    const double first = std::ceil((static_cast<double>(m_fromNs) - origin) / step) * step;
    p.setPen(palette().color(QPalette::Text));
    p.drawLine(QPointF(area.left(), area.top()), QPointF(area.right(), area.top()));
    QColor grid = palette().color(QPalette::Mid);
    grid.setAlpha(90);
    for (double t = first; origin + t <= static_cast<double>(m_toNs); t += step) {
        const double x = xOf(static_cast<std::uint64_t>(origin + t));
        p.setPen(grid);
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        p.setPen(palette().color(QPalette::Text));
        p.drawLine(QPointF(x, area.top() - 4), QPointF(x, area.top()));
        const QString label = tickLabel(t, step);
        const double w = metrics.horizontalAdvance(label);
        p.drawText(QPointF(std::clamp(x - w / 2, area.left(), area.right() - w), area.top() - 6), label);
    }
}

void TimelineView::drawLane(const Pixels& image, const TimelineLane& lane, int top, int bottom,
    const QColor& background, std::uint64_t nsPerPixel) const
{
    const double span = static_cast<double>(m_toNs - m_fromNs);
    const int width = image.width;
    const auto column = [&](std::uint64_t ns) {
        const double x = (static_cast<double>(ns) - static_cast<double>(m_fromNs)) / span * width;
        return static_cast<int>(std::clamp(x, 0.0, static_cast<double>(width)));
    };
    // Idle: a thin band in the middle, deeper idle states darker.
    const int third = std::max(1, (bottom - top) / 3);
    const QColor idle = palette().color(QPalette::Mid);
    const auto idleColor = [&](std::optional<int> state) {
        const double a = state ? std::min(1.0, 0.35 + 0.15 * *state) : 0.35;
        return qRgb(static_cast<int>(idle.red() * a + background.red() * (1 - a)),
            static_cast<int>(idle.green() * a + background.green() * (1 - a)),
            static_cast<int>(idle.blue() * a + background.blue() * (1 - a)));
    };
    std::optional<std::int32_t> lastPid;
    QRgb lastColor = 0;
    for (const TimelineSlice& s : m_data->visible(lane.pu, m_fromNs, m_toNs, nsPerPixel)) {
        const int x0 = column(s.beginNs);
        const int x1 = std::min(width, std::max(x0 + 1, column(s.endNs)));
        if (x0 >= width || s.pid == kUnrecordedPid) // left out: nothing is drawn
            continue;
        // Idle, or (a pid below 0) what a watch's trace does not follow: idle or tasks of no
        // interest, drawn as idle is when the kernel gives no state.
        if (s.pid <= 0) {
            const auto state
                = s.pid == 0 ? m_data->idleStateAt(lane.pu, s.beginNs + (s.endNs - s.beginNs) / 2) : std::nullopt;
            image.fill(top + third, std::max(top + third + 1, bottom - third), x0, x1, idleColor(state));
            continue;
        }
        if (s.pid != lastPid) {
            lastPid = s.pid;
            auto [cached, fresh] = m_rgb.try_emplace(s.pid, 0);
            if (fresh)
                cached->second = taskColor(s.pid).rgb();
            lastColor = cached->second;
        }
        image.fill(top, bottom, x0, x1, lastColor);
    }
    // Interrupts and softirqs: a tick along the lane's foot; a migration: a wedge at its top left.
    const int foot = std::max(top + 1, bottom - std::max(1, (bottom - top) / 4));
    const QRgb text = palette().color(QPalette::Text).rgb();
    for (const TimelineMark& m : m_data->marks(lane.pu, m_fromNs, m_toNs, 2 * nsPerPixel)) {
        const int x = column(m.beginNs);
        if (x >= width)
            continue;
        if (m.kind == TimelineMark::Kind::Migration) {
            // A wedge where there is room for one (closer than a µs a pixel), else a tick.
            const int size = nsPerPixel <= 1'000 ? std::min(6, bottom - top) : 1;
            for (int row = 0; row < size; ++row)
                image.fill(top + row, top + row + 1, x, std::min(width, x + size - row), text);
            continue;
        }
        image.fill(foot, bottom, x, std::min(width, std::max(x + 1, column(m.endNs))),
            m.kind == TimelineMark::Kind::Irq ? qRgb(200, 40, 40) : qRgb(230, 140, 20));
    }
}

void TimelineView::drawWakes(QPainter& p, const QRectF& area) const
{
    const auto wakes = m_data->wakes(m_fromNs, m_toNs, kMostArrows + 1);
    if (wakes.empty() || wakes.size() > kMostArrows)
        return;
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(palette().color(QPalette::Text), 1.2));
    p.setClipRect(area);
    for (const TimelineWake& w : wakes) {
        const QRectF from = laneRect(w.fromPu);
        const QRectF to = laneRect(w.toPu);
        if (from.isEmpty() || to.isEmpty())
            continue;
        const QPointF a(xOf(w.wakingNs), from.center().y());
        const QPointF b(xOf(w.runNs), to.center().y());
        p.drawLine(a, b);
        const double angle = std::atan2(b.y() - a.y(), b.x() - a.x());
        const double s = 6;
        p.drawLine(b, b - QPointF(s * std::cos(angle - 0.45), s * std::sin(angle - 0.45)));
        p.drawLine(b, b - QPointF(s * std::cos(angle + 0.45), s * std::sin(angle + 0.45)));
    }
    p.setClipping(false);
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    if (event->modifiers() & Qt::ShiftModifier)
        panBy(-steps * plotArea().width() / 10);
    else
        zoomAt(std::pow(0.8, steps), event->position().x());
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    m_pressAt = event->position();
    m_pressFromNs = m_fromNs;
    m_pressToNs = m_toNs;
    if (event->button() == Qt::RightButton) {
        m_drag = Drag::Ruler;
        m_ruler = std::pair(nsAt(m_pressAt.x()), nsAt(m_pressAt.x()));
    } else if (event->button() == Qt::LeftButton) {
        m_drag = (event->modifiers() & Qt::ShiftModifier) ? Drag::Zoom : Drag::Pan;
        if (m_drag == Drag::Zoom)
            m_zoomBand = std::pair(m_pressAt.x(), m_pressAt.x());
    }
    update();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF at = event->position();
    switch (m_drag) {
    case Drag::Pan: {
        const QRectF area = plotArea();
        const double ns = (m_pressAt.x() - at.x()) * static_cast<double>(m_pressToNs - m_pressFromNs) / area.width();
        const double from = std::max(0.0, static_cast<double>(m_pressFromNs) + ns);
        showSpan(static_cast<std::uint64_t>(from), static_cast<std::uint64_t>(from) + (m_pressToNs - m_pressFromNs));
        break;
    }
    case Drag::Zoom:
        m_zoomBand = std::pair(m_pressAt.x(), at.x());
        update();
        break;
    case Drag::Ruler:
        m_ruler->second = nsAt(at.x());
        update();
        break;
    case Drag::None:
        break;
    }
    const int pu = puAt(at.y()).value_or(-1);
    if (pu != m_highlight) {
        highlightPu(pu);
        emit puHovered(pu);
    }
    if (const auto slice = pu >= 0 && m_data ? m_data->sliceAt(pu, nsAt(at.x())) : std::nullopt) {
        const std::string name = m_data->name(slice->pid);
        const auto task = m_names.find(slice->pid);
        setToolTip((task == m_names.end() ? QString() : tr("task %1: ").arg(task->second))
            + QStringLiteral("%1 (%2) on P#%3: %4")
                  .arg(QString::fromStdString(name.empty() ? std::string("?") : name))
                  .arg(slice->pid)
                  .arg(pu)
                  .arg(durationTickLabel(static_cast<double>(slice->endNs - slice->beginNs))));
    } else {
        setToolTip({});
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    const Drag drag = std::exchange(m_drag, Drag::None);
    const QPointF at = event->position();
    const bool moved = std::abs(at.x() - m_pressAt.x()) > 3;
    if (drag == Drag::Zoom && m_zoomBand) {
        m_zoomBand.reset();
        if (moved)
            showSpan(nsAt(std::min(m_pressAt.x(), at.x())), nsAt(std::max(m_pressAt.x(), at.x())));
        update();
    } else if (drag == Drag::Pan && !moved && m_data) {
        if (const auto pu = puAt(at.y()))
            if (const auto slice = m_data->sliceAt(*pu, nsAt(at.x())); slice && slice->pid > 0)
                emit taskClicked(slice->pid);
    } else if (drag == Drag::Ruler && !moved) {
        m_ruler.reset();
        update();
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) { showAll(); }

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const QRectF area = plotArea();
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(0.5, area.center().x());
        break;
    case Qt::Key_Minus:
        zoomAt(2.0, area.center().x());
        break;
    case Qt::Key_Left:
        panBy(-area.width() / 4);
        break;
    case Qt::Key_Right:
        panBy(area.width() / 4);
        break;
    case Qt::Key_Home:
        showAll();
        break;
    case Qt::Key_Escape:
        m_ruler.reset();
        update();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineView::leaveEvent(QEvent*)
{
    if (m_highlight != -1) {
        highlightPu(-1);
        emit puHovered(-1);
    }
}

} // namespace ctxscope::gui
