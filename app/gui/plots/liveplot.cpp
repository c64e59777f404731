// SPDX-License-Identifier: MIT
#include "liveplot.h"

#include "durationlogticker.h"
#include "durationticker.h"
#include "plotstyle.h"

#include "qcp.h"

#include <QElapsedTimer>
#include <QPainter>
#include <QPixmap>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

namespace ctxscope::gui {

LivePlot::LivePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_redrawTimer(new QTimer(this))
    , m_linearTicker(new DurationTicker)
    , m_logTicker(new DurationLogTicker)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    stylePlot(*m_plot);
    m_plot->xAxis->setLabel(tr("sample, in time order"));
    m_plot->yAxis->setLabel(tr("time per op"));
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_hint = new QCPItemText(m_plot);
    m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_hint->position->setCoords(0.5, 0.5);
    setRunsDisabled(false);
    m_hint->setColor(palette().color(QPalette::PlaceholderText));
    m_hint->setFont(m_plot->xAxis->labelFont());
    // Median lines above every run's points, so an overlaid run never hides another's trend.
    m_plot->addLayer(QStringLiteral("medians"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    m_redrawTimer->setSingleShot(true);
    m_redrawTimer->setInterval(kRedrawIntervalMs);
    connect(m_redrawTimer, &QTimer::timeout, this, &LivePlot::redraw);
    setLogScale(true);
}

void LivePlot::setRunsDisabled(bool off)
{
    m_hint->setText(off
            ? tr("Runs are disabled:\nthe topology shown is not\nthis machine's, so nothing\nis measured here.")
            : tr("Place tasks on the map,\nthen Run (Ctrl+R):\nevery sample appears here\nas it is measured."));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString LivePlot::hintText() const { return m_hint->text(); }

void LivePlot::restyle()
{
    stylePlot(*m_plot);
    m_hint->setColor(palette().color(QPalette::PlaceholderText));
    m_hint->setFont(m_plot->xAxis->labelFont());
    for (const auto& [id, s] : m_series) // the median lines follow the background
        applyStyle(s, m_highlight == id, m_highlight && m_highlight != id);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* LivePlot::samplesGraph(quint64 id) const
{
    const auto it = m_series.find(id);
    return it == m_series.end() ? nullptr : it->second.samples;
}

std::span<const double> LivePlot::samples(quint64 id) const
{
    const auto it = m_series.find(id);
    return it == m_series.end() ? std::span<const double>() : it->second.all();
}

bool LivePlot::cloudShown(quint64 id) const
{
    const auto it = m_series.find(id);
    return it != m_series.end() && it->second.samples->visible();
}

QCPGraph* LivePlot::medianGraph(quint64 id) const
{
    const auto it = m_series.find(id);
    return it == m_series.end() ? nullptr : it->second.median;
}

void LivePlot::beginRun(quint64 id, const QString& label, const QColor& color)
{
    removeRun(id);
    Series s;
    s.color = color;
    s.samples = m_plot->addGraph();
    s.samples->setLineStyle(QCPGraph::lsNone);
    s.samples->setAdaptiveSampling(false); // already thinned to a few points per pixel column
    s.samples->removeFromLegend();
    s.median = m_plot->addGraph();
    s.median->setLayer(QStringLiteral("medians"));
    s.median->setName(label);
    s.begun = ++m_begun;
    m_series.emplace(id, std::move(s));
    highlightRun(m_highlight);
    m_hint->setVisible(false);
    scheduleRedraw();
}

void LivePlot::addSamples(quint64 id, const QVector<double>& nsPerOp)
{
    const auto it = m_series.find(id);
    if (it == m_series.end() || nsPerOp.isEmpty())
        return;
    Series& s = it->second;
    const double first = static_cast<double>(s.running.count());
    const std::size_t kept = std::min(static_cast<std::size_t>(nsPerOp.size()), kMaxPoints - s.values.size());
    s.values.insert(s.values.end(), nsPerOp.begin(), nsPerOp.begin() + static_cast<qsizetype>(kept));
    s.stale = s.stale || kept > 0;
    const auto [lo, hi] = std::minmax_element(nsPerOp.begin(), nsPerOp.end());
    s.min = first == 0 ? *lo : std::min(s.min, *lo);
    s.max = first == 0 ? *hi : std::max(s.max, *hi);
    addMedianPoints(
        s, s.running.add(std::span<const double>(nsPerOp.constData(), static_cast<std::size_t>(nsPerOp.size()))));
    if (!m_quiet) // the quiet stage draws them when a repetition or the run ends
        scheduleRedraw(Pace::Stream);
}

std::span<const double> LivePlot::Series::all() const
{
    if (!finished)
        return values;
    return std::span<const double>(finished->samples).first(std::min(finished->samples.size(), kMaxPoints));
}

void LivePlot::addFinishedRun(quint64 id, const QString& label, const QColor& color,
    std::shared_ptr<const RunResult> result, const PreparedTrace& trace)
{
    if (!result || result->samples.empty())
        return;
    const std::size_t samples = result->samples.size();
    beginRun(id, label, color);
    Series& s = m_series.at(id);
    s.finished = std::move(result);
    s.stale = true;
    s.min = trace.min;
    s.max = trace.max;
    s.running.skip(samples);
    addMedianPoints(s, trace.medians);
    scheduleRedraw();
}

void LivePlot::addMedianPoints(Series& series, const std::vector<MedianPoint>& points)
{
    for (const MedianPoint& p : points) {
        series.median->addData(p.index, p.ns);
        series.maxMedian = std::max(series.maxMedian, p.ns);
    }
}

void LivePlot::thin(Series& series) const
{
    const auto columns = static_cast<std::size_t>(std::max(m_plot->axisRect()->width() / kColumnPixels, 100));
    const ThinnedScatter drawn = thinScatter(series.all(), columns, kPointsPerColumn);
    series.samples->setData(QVector<double>(drawn.keys.begin(), drawn.keys.end()),
        QVector<double>(drawn.values.begin(), drawn.values.end()), true);
    series.stale = false;
}

void LivePlot::finishRun(quint64 id, std::shared_ptr<const RunResult> result)
{
    const auto it = m_series.find(id);
    if (it == m_series.end())
        return;
    Series& s = it->second;
    addMedianPoints(s, s.running.flush());
    if (result && !result->samples.empty() && !s.finished) {
        const auto [lo, hi] = std::minmax_element(result->samples.begin(), result->samples.end());
        s.min = *lo;
        s.max = *hi;
        s.finished = std::move(result);
        s.values = {};
        s.stale = true;
        if (s.samples->visible())
            thin(s); // the points drawn are the result's from now on, not 33 ms later
    }
    scheduleRedraw();
}

void LivePlot::removeRun(quint64 id)
{
    const auto it = m_series.find(id);
    if (it == m_series.end())
        return;
    m_plot->removeGraph(it->second.samples);
    m_plot->removeGraph(it->second.median);
    m_series.erase(it);
    m_hint->setVisible(m_series.empty());
    chooseClouds();
    scheduleRedraw();
}

void LivePlot::clear()
{
    while (!m_series.empty())
        removeRun(m_series.begin()->first);
}

namespace {

// A translucent antialiased disc, drawn once: QCustomPlot then blits it at each point
// (ssPixmap), where ssDisc tessellates and fills an ellipse per point. The live plot's ~2,000
// discs a frame were a fifth of the app's CPU while a run measured (perf record, issue #31).
QPixmap discPixmap(const QColor& color, double diameter)
{
    const int side = static_cast<int>(std::ceil(diameter)) + 2;
    QPixmap disc(side, side);
    disc.fill(Qt::transparent);
    QPainter painter(&disc);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    const double margin = (side - diameter) / 2;
    painter.drawEllipse(QRectF(margin, margin, diameter, diameter));
    return disc;
}

} // namespace

void LivePlot::applyStyle(const Series& s, bool emphasised, bool faded)
{
    QColor point = s.color.lighter(115);
    point.setAlpha(faded ? 25 : 80);
    s.samples->setScatterStyle(QCPScatterStyle(discPixmap(point, emphasised ? 4.5 : 3.5)));
    QColor line = strongShade(s.color, palette());
    line.setAlpha(faded ? 80 : 255);
    s.median->setPen(QPen(line, emphasised ? 4.5 : 3.0));
}

void LivePlot::highlightRun(std::optional<quint64> id)
{
    m_highlight = id && m_series.count(*id) ? id : std::nullopt;
    for (const auto& [runId, s] : m_series)
        applyStyle(s, m_highlight == runId, m_highlight && m_highlight != runId);
    chooseClouds();
    scheduleRedraw();
}

void LivePlot::setShownRuns(std::optional<std::set<quint64>> ids)
{
    m_shown = std::move(ids);
    chooseClouds();
    scheduleRedraw();
}

bool LivePlot::isShown(quint64 id) const { return m_series.count(id) && (!m_shown || m_shown->count(id)); }

void LivePlot::chooseClouds()
{
    std::vector<quint64> order;
    order.reserve(m_series.size());
    for (const auto& [id, s] : m_series)
        if (isShown(id))
            order.push_back(s.begun);
    std::sort(order.begin(), order.end(), std::greater<>());
    const quint64 oldestShown = order.size() > kCloudRuns ? order[kCloudRuns - 1] : 0;
    // The legend lists the runs on show in the order they began, once each.
    m_plot->legend->clearItems();
    for (auto& [id, s] : m_series) {
        const bool shown = isShown(id);
        s.samples->setVisible(shown && (s.begun >= oldestShown || m_highlight == id));
        s.median->setVisible(shown);
        if (shown)
            s.median->addToLegend();
    }
}

void LivePlot::setLogScale(bool on)
{
    m_log = on;
    m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    m_plot->yAxis->setTicker(on ? m_logTicker : m_linearTicker);
    m_plot->yAxis->setLabel(
        on ? tr("time per op (log scale)") : tr("time per op (outliers above 4× the median clipped)"));
    scheduleRedraw();
}

double LivePlot::lastRedrawCostMs() const { return m_thinMs + m_plot->replotTime(); }

int LivePlot::redrawDelayMs() const
{
    return std::clamp(
        static_cast<int>(std::ceil(lastRedrawCostMs() / kStreamDrawShare)), kStreamIntervalMs, kMaxRedrawIntervalMs);
}

void LivePlot::setQuietStage(bool on)
{
    m_quiet = on;
    if (on && m_redrawTimer->isActive() && m_redrawTimer->remainingTime() > kRedrawIntervalMs)
        m_redrawTimer->stop(); // a paced redraw of streamed samples waits for drawHeld()
    else if (!on)
        scheduleRedraw(Pace::Stream);
}

void LivePlot::drawHeld() { scheduleRedraw(); }

void LivePlot::scheduleRedraw(Pace pace)
{
    // Streamed samples wait for the paced redraw; anything else (a run begun or ended, the log
    // scale, a highlight, drawHeld) is drawn within kRedrawIntervalMs, cutting a longer wait short.
    const int delay = pace == Pace::Stream ? redrawDelayMs() : kRedrawIntervalMs;
    if (!m_redrawTimer->isActive() || m_redrawTimer->remainingTime() > delay)
        m_redrawTimer->start(delay);
}

void LivePlot::redraw()
{
    double count = 0, lo = 0, hi = 0, medianHi = 0;
    bool any = false;
    QElapsedTimer thinning;
    thinning.start();
    bool shownAny = false;
    for (auto& [id, s] : m_series) {
        if (s.stale && s.samples->visible()) // a hidden cloud is thinned when it shows again
            thin(s);
        if (!isShown(id))
            continue; // the axes fit the runs on show
        shownAny = true;
        if (s.running.count() == 0)
            continue;
        count = std::max(count, static_cast<double>(s.running.count()));
        lo = any ? std::min(lo, s.min) : s.min;
        hi = any ? std::max(hi, s.max) : s.max;
        medianHi = std::max(medianHi, s.maxMedian);
        any = true;
    }
    m_thinMs = static_cast<double>(thinning.nsecsElapsed()) / 1e6;
    if (any) {
        m_plot->xAxis->setRange(0, std::max(count, 10.0) * 1.02);
        if (m_log)
            m_plot->yAxis->setRange(std::max(lo, 1e-3) / 1.2, hi * 1.2);
        else
            m_plot->yAxis->setRange(0, (medianHi > 0 ? std::min(hi, 4 * medianHi) : hi) * 1.08);
    }
    // An empty plot shows its hint, not the numbers of a range nothing was measured in.
    m_plot->legend->setVisible(shownAny);
    m_hint->setVisible(!shownAny);
    m_plot->xAxis->setTickLabels(any);
    m_plot->yAxis->setTickLabels(any);
    ++m_redraws;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ctxscope::gui
