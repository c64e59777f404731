// SPDX-License-Identifier: MIT
#include "distributionplot.h"

#include "durationlogticker.h"
#include "durationticker.h"
#include "plotdata.h"
#include "plotstyle.h"

#include "ctxscope/units.h"

#include "qcp.h"

#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

DistributionPlot::DistributionPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    stylePlot(*m_plot);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new DurationLogTicker));
    m_plot->xAxis->setLabel(tr("time per op (log scale)"));
    // The legend below the plot: the top of the plot holds the p50/p99 labels.
    m_plot->legend->setVisible(true);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(2);
    m_plot->legend->setMargins(QMargins(6, 3, 6, 3));
    connect(m_plot, &QCustomPlot::afterLayout, this, &DistributionPlot::placeLabels);
    m_hint = new QCPItemText(m_plot);
    m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_hint->position->setCoords(0.5, 0.5);
    m_hint->setText(tr("Finished runs show their distribution here,\nwith the median (p50) and p99 marked."));
    m_hint->setColor(palette().color(QPalette::PlaceholderText));
    m_hint->setFont(m_plot->xAxis->labelFont());
    rebuild();
}

void DistributionPlot::restyle()
{
    stylePlot(*m_plot);
    m_hint->setColor(palette().color(QPalette::PlaceholderText));
    m_hint->setFont(m_plot->xAxis->labelFont());
    rebuild();
}

QCPGraph* DistributionPlot::graph(quint64 id) const
{
    const auto it = m_runs.find(id);
    return it == m_runs.end() ? nullptr : it->second.graph;
}

void DistributionPlot::addResult(
    quint64 id, std::shared_ptr<const RunResult> result, const QString& label, const QColor& color)
{
    if (!result)
        return;
    m_runs[id] = Run { std::move(result), label, color, nullptr, {} };
    rebuild();
}

void DistributionPlot::removeRun(quint64 id)
{
    if (m_runs.erase(id) > 0)
        rebuild();
}

void DistributionPlot::clear()
{
    m_runs.clear();
    m_highlight.reset();
    rebuild();
}

void DistributionPlot::highlightRun(std::optional<quint64> id)
{
    m_highlight = id && m_runs.count(*id) ? id : std::nullopt;
    rebuild();
}

void DistributionPlot::setShownRuns(std::optional<std::set<quint64>> ids)
{
    m_shown = std::move(ids);
    rebuild();
}

bool DistributionPlot::isShown(quint64 id) const { return m_runs.count(id) && (!m_shown || m_shown->count(id)); }

std::vector<QRectF> DistributionPlot::labelRects() const
{
    std::vector<QRectF> out;
    for (const Label& l : m_labels)
        if (l.item->visible())
            out.emplace_back(l.item->topLeft->pixelPosition(), l.item->bottomRight->pixelPosition());
    return out;
}

void DistributionPlot::setMode(Mode mode)
{
    m_mode = mode;
    rebuild();
}

void DistributionPlot::rebuild()
{
    m_plot->clearGraphs();
    m_labels.clear();
    for (auto& [id, run] : m_runs) {
        for (QCPAbstractItem* item : run.markers)
            m_plot->removeItem(item);
        run.markers.clear();
        run.graph = nullptr;
    }
    m_plot->yAxis->setLabel(
        m_mode == Mode::Histogram ? tr("share of samples per bin (%)") : tr("samples at or below (%)"));
    double lo = 0, hi = 0, top = 0;
    int index = 0;
    for (auto& [id, run] : m_runs) {
        if (!isShown(id))
            continue;
        drawRun(run, index++, m_highlight && m_highlight != id, m_highlight == id);
        const auto& h = run.result->histogram;
        if (h.empty())
            continue;
        lo = lo == 0 ? h.front().lower : std::min(lo, h.front().lower);
        hi = std::max(hi, h.back().upper);
        bool found = false;
        const QCPRange values = run.graph->getValueRange(found);
        if (found)
            top = std::max(top, values.upper);
    }
    m_hint->setVisible(index == 0);
    if (hi > 0) {
        m_plot->xAxis->setRange(lo / 1.25, hi * 1.25);
        // A share of one run's samples: some room above the tallest bin for the labels, but never
        // past 100%. (The axis once grew with the number of runs and read 200%.)
        m_plot->yAxis->setRange(0, m_mode == Mode::Cdf ? 100 : std::min(100.0, top * 1.4));
    } else {
        m_plot->xAxis->setRange(100, 100000);
        m_plot->yAxis->setRange(0, 100);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void DistributionPlot::drawRun(Run& run, int index, bool faded, bool emphasised)
{
    QColor line = run.color;
    line.setAlpha(faded ? 70 : 255);
    QColor fill = run.color;
    fill.setAlpha(faded ? 15 : 45);
    run.graph = m_plot->addGraph();
    run.graph->setName(run.label);
    run.graph->setPen(QPen(line, emphasised ? 3.5 : 2.2));
    const auto& h = run.result->histogram;
    if (m_mode == Mode::Histogram) {
        run.graph->setLineStyle(QCPGraph::lsStepLeft);
        run.graph->setBrush(QBrush(fill));
        const auto bins = logBins(h, kBinsPerOctave);
        if (!bins.empty()) {
            run.graph->addData(bins.front().lower, 0);
            for (const DensityBin& b : bins)
                run.graph->addData(b.lower, 100 * b.fraction);
            run.graph->addData(bins.back().upper, 0);
        }
    } else {
        run.graph->setLineStyle(QCPGraph::lsLine);
        for (const CdfPoint& p : cdfPoints(h))
            run.graph->addData(p.ns, 100 * p.fraction);
    }
    // With a run highlighted only its values are labelled; the others keep their lines.
    const bool labelled = !m_highlight || emphasised;
    addMarker(run, run.result->stats.p50, QStringLiteral("p50"), index, Qt::SolidLine, faded, labelled);
    addMarker(run, run.result->stats.p99, QStringLiteral("p99"), index, Qt::DashLine, faded, labelled);
}

void DistributionPlot::addMarker(
    Run& run, double ns, const QString& name, int index, Qt::PenStyle style, bool faded, bool labelled)
{
    if (ns <= 0)
        return;
    QColor color = strongShade(run.color, palette());
    color.setAlpha(faded ? 90 : 255);
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(ns, 0);
    line->point2->setCoords(ns, 1);
    line->setPen(QPen(color, 1.6, style));
    run.markers.push_back(line);
    if (!labelled)
        return;
    auto* label = new QCPItemText(m_plot);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(ns, 0.03 + 0.075 * index);
    // p50 to the left of its line, p99 to the right, so the two never overlap.
    const bool left = name == QStringLiteral("p50");
    label->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    label->setPadding(QMargins(4, 1, 4, 1));
    label->setText(name + QLatin1Char(' ') + QString::fromStdString(formatDuration(ns)));
    label->setColor(color);
    QFont font = m_plot->xAxis->tickLabelFont();
    font.setBold(true);
    label->setFont(font);
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(210);
    label->setBrush(QBrush(back));
    m_labels.push_back({ label, ns, left });
    run.markers.push_back(label);
}

void DistributionPlot::placeLabels()
{
    const QRect area = m_plot->axisRect()->rect();
    if (area.height() <= 0)
        return;
    std::vector<std::vector<std::pair<double, double>>> rows; // taken x extents, per row
    for (const Label& l : m_labels) {
        const double x = m_plot->xAxis->coordToPixel(l.ns);
        const QMargins pad = l.item->padding();
        const QFontMetrics metrics(l.item->font());
        const double width = metrics.horizontalAdvance(l.item->text()) + pad.left() + pad.right() + 4;
        // A label that would leave the plot goes to the other side of its line.
        bool left = l.preferLeft;
        if (left && x - width < area.left())
            left = false;
        else if (!left && x + width > area.right())
            left = true;
        const std::pair<double, double> extent = left ? std::pair(x - width, x) : std::pair(x, x + width);
        // The first row from the top where it overlaps no label placed before it.
        std::size_t row = 0;
        for (; row < rows.size(); ++row)
            if (std::none_of(rows[row].begin(), rows[row].end(),
                    [&](const auto& taken) { return extent.first < taken.second && taken.first < extent.second; }))
                break;
        if (row == rows.size())
            rows.emplace_back();
        rows[row].push_back(extent);
        const double rowHeight = metrics.height() + pad.top() + pad.bottom() + 2;
        // Rows go down the upper half of the plot at most; a label with no row left is not drawn
        // rather than drawn over another (the run's row in the table has its figures).
        const double y = 4 + static_cast<double>(row) * rowHeight;
        l.item->setVisible(y + rowHeight <= area.height() / 2.0);
        l.item->position->setCoords(l.ns, y / area.height());
        l.item->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    }
}

} // namespace ctxscope::gui
