// SPDX-License-Identifier: MIT
#include "workingsetplot.h"

#include "plotstyle.h"
#include "qcp.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>

namespace ctxscope::gui {

WorkingSetPlot::WorkingSetPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_roundTrip = new QCheckBox(tr("Round trip"), this);
    m_roundTrip->setToolTip(tr("One op of the benchmark, every task's touches included"));
    m_touch = new QCheckBox(tr("Touch(W)"), this);
    m_touch->setToolTip(tr("One task touching its W bytes hot, with no switch"));
    m_spread = new QComboBox(this);
    m_spread->addItem(tr("bars: p25–p75"));
    m_spread->addItem(tr("bars: min–p90"));
    bar->addWidget(m_roundTrip);
    bar->addWidget(m_touch);
    bar->addWidget(m_spread);
    bar->addStretch(1);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);
    connect(m_roundTrip, &QCheckBox::toggled, this, &WorkingSetPlot::rebuild);
    connect(m_touch, &QCheckBox::toggled, this, &WorkingSetPlot::rebuild);
    connect(m_spread, &QComboBox::currentIndexChanged, this, &WorkingSetPlot::rebuild);

    setUpWorkingSetAxes(*m_plot, tr("time (log scale)"));
    m_plot->legend->setWrap(1); // one sweep a line: legends name the placement and the file
    restyle();
}

void WorkingSetPlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

void WorkingSetPlot::addSweep(std::shared_ptr<const SweepCurves> sweep)
{
    if (!sweep)
        return;
    m_sweeps.push_back(std::move(sweep));
    rebuild();
}

void WorkingSetPlot::replaceSweep(std::size_t index, std::shared_ptr<const SweepCurves> sweep)
{
    if (index >= m_sweeps.size() || !sweep)
        return;
    m_sweeps[index] = std::move(sweep);
    rebuild();
}

void WorkingSetPlot::clear()
{
    m_sweeps.clear();
    rebuild();
}

void WorkingSetPlot::setSeriesShown(WsSeries series, bool shown)
{
    if (series == WsSeries::RoundTrip)
        m_roundTrip->setChecked(shown);
    else if (series == WsSeries::Touch)
        m_touch->setChecked(shown);
}

void WorkingSetPlot::setSpread(WsSpread spread) { m_spread->setCurrentIndex(spread == WsSpread::MinP90 ? 1 : 0); }

QCPGraph* WorkingSetPlot::graph(std::size_t sweep, WsSeries series) const
{
    for (const Drawn& d : m_drawn)
        if (d.sweep == sweep && d.series == series)
            return d.graph;
    return nullptr;
}

QStringList WorkingSetPlot::markerLabels() const { return m_markerLabels; }

void WorkingSetPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_drawn.clear();
    const WsSpread spread = m_spread->currentIndex() == 1 ? WsSpread::MinP90 : WsSpread::Quartiles;
    std::vector<WsSeries> shown { WsSeries::SwitchCost };
    if (m_roundTrip->isChecked())
        shown.push_back(WsSeries::RoundTrip);
    if (m_touch->isChecked())
        shown.push_back(WsSeries::Touch);
    m_plot->yAxis->setLabel(shown.size() > 1 ? tr("time (log scale)") : tr("cost per switch (log scale)"));
    QCPRange xRange(kZeroBytesPosition, 64.0 * 1024 * 1024), yRange(100, 1e5);
    bool any = false;
    for (std::size_t s = 0; s < m_sweeps.size(); ++s) {
        const QColor color = runColor(static_cast<int>(s), palette());
        for (WsSeries series : shown) {
            const auto points = wsSeries(*m_sweeps[s], series, spread);
            if (points.empty())
                continue;
            auto* graph = m_plot->addGraph();
            QVector<double> x, y, minus, plus;
            for (const WsPlotPoint& p : points) {
                x << p.x;
                y << p.y;
                minus << p.y - p.low;
                plus << p.high - p.y;
                if (!any) {
                    xRange = QCPRange(p.x, p.x);
                    yRange = QCPRange(p.low, p.high);
                    any = true;
                }
                xRange.expand(p.x);
                yRange.expand(p.low);
                yRange.expand(p.high);
            }
            graph->setData(x, y, true);
            const Qt::PenStyle style = series == WsSeries::SwitchCost ? Qt::SolidLine
                : series == WsSeries::RoundTrip                       ? Qt::DashLine
                                                                      : Qt::DotLine;
            graph->setPen(QPen(color, series == WsSeries::SwitchCost ? 2.2 : 1.6, style));
            graph->setScatterStyle(
                QCPScatterStyle(series == WsSeries::Touch ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssDisc,
                    series == WsSeries::SwitchCost ? 6 : 4));
            const QString what = series == WsSeries::SwitchCost ? tr("per switch")
                : series == WsSeries::RoundTrip                 ? tr("round trip")
                                                                : tr("touch(W)");
            graph->setName(m_sweeps[s]->label + QStringLiteral(" — ") + what);
            auto* bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
            bars->removeFromLegend();
            bars->setDataPlottable(graph);
            bars->setData(minus, plus);
            bars->setPen(QPen(color, 1));
            m_drawn.push_back({ s, series, graph });
        }
    }
    m_plot->xAxis->setRange(xRange.lower / 1.5, xRange.upper * 1.5);
    m_plot->yAxis->setRange(yRange.lower / 1.6, yRange.upper * 2.2); // room for the cache labels on top
    drawMarkers();
    if (m_sweeps.empty()) {
        addPlotHint(*m_plot,
            tr("Working-set sweeps show here: the cost per switch as each task touches more memory\n"
               "(ctxscope-cli sweep futex --json FILE, then File → Open)."));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void WorkingSetPlot::drawMarkers()
{
    m_markerLabels.clear();
    std::set<std::pair<int, std::uint64_t>> seen;
    const QColor color = palette().color(QPalette::Text);
    for (const auto& sweep : m_sweeps) {
        for (const CacheMarker& m : cacheMarkers(sweep->caches)) {
            if (!seen.insert({ m.level, m.bytes }).second)
                continue;
            const double x = static_cast<double>(m.bytes);
            auto* line = new QCPItemStraightLine(m_plot);
            line->point1->setCoords(x, 1);
            line->point2->setCoords(x, 2);
            QColor lineColor = color;
            lineColor.setAlpha(140);
            line->setPen(QPen(lineColor, 1.2, Qt::DashDotLine));
            auto* label = new QCPItemText(m_plot);
            label->position->setTypeX(QCPItemPosition::ptPlotCoords);
            label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            // Alternate heights so neighbouring levels' labels never overlap.
            label->position->setCoords(x, 0.02 + 0.06 * static_cast<double>((m_markerLabels.size()) % 2));
            // Right of its line, or left of it near the right edge, so no label is cut off.
            const QCPRange range = m_plot->xAxis->range();
            const bool nearEnd = std::log(x / range.lower) > 0.8 * std::log(range.upper / range.lower);
            label->setPositionAlignment((nearEnd ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
            label->setPadding(nearEnd ? QMargins(0, 0, 3, 0) : QMargins(3, 0, 0, 0));
            label->setText(m.label);
            label->setColor(color);
            QFont font = m_plot->xAxis->tickLabelFont();
            font.setBold(true);
            label->setFont(font);
            m_markerLabels << m.label;
        }
    }
    // Implausible sizes (a VM's host L3 shown per vCPU) are said on the plot, the why on hover.
    QString warning;
    for (const auto& sweep : m_sweeps)
        if (warning.isEmpty())
            warning = cacheWarning(sweep->caches);
    m_plot->setToolTip(warning);
    if (!warning.isEmpty()) {
        auto* note = new QCPItemText(m_plot);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.01, 0.99);
        note->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        note->setText(tr("Cache sizes as reported, not plausible here (hover for why)"));
        note->setColor(color);
    }
}

} // namespace ctxscope::gui
