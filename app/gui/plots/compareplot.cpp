// SPDX-License-Identifier: MIT
#include "compareplot.h"

#include "plotstyle.h"
#include "qcp.h"

#include <QEvent>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ctxscope::gui {

ComparePlot::ComparePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_emptyHint(tr("File → Compare with results… opens result files from other machines:\n"
                     "runs match by benchmark, mode and relation class."))
{
    setUpMedianBarChart(*this, *m_plot);
    m_group = new QCPBarsGroup(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    // Rows of four under the bars: the articles' 12 cards and two machines, one a line, took the
    // pane at 1280x800 and left the bars 50 pixels.
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(kLegendColumns);
    restyle();
}

void ComparePlot::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Qt tells a parent before its children (the QCustomPlot) have the new palette: once they have.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &ComparePlot::restyle);
}

void ComparePlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

void ComparePlot::setEmptyHint(const QString& hint)
{
    m_emptyHint = hint;
    rebuild();
}

void ComparePlot::setSources(std::vector<CompareSource> sources)
{
    m_sources = std::move(sources);
    rebuild();
}

void ComparePlot::setComparison(std::shared_ptr<const MachineComparison> comparison)
{
    m_comparison = std::move(comparison);
    rebuild();
}

QCPBars* ComparePlot::bars(std::size_t source) const { return source < m_bars.size() ? m_bars[source] : nullptr; }

QCPErrorBars* ComparePlot::intervals(std::size_t source) const
{
    return source < m_intervals.size() ? m_intervals[source] : nullptr;
}

void ComparePlot::rowsOfComparison(std::vector<Series>& series)
{
    const MachineComparison& c = *m_comparison;
    for (std::size_t m = 0; m < c.labels.size(); ++m)
        series.push_back(
            { QString::fromStdString(c.labels[m]) + (m == c.baseline ? tr(" (baseline)") : QString()), {} });
    for (const MachineRow& row : c.rows) {
        if (row.wsBytes > 0)
            continue; // the survey's working-set points are curves (MachineWsPlot), not 16 bars a machine
        CompareRow drawn { machineRowName(row) + "/" + relationText(row.relation, row.kinds), {} };
        const std::optional<double>& base = row.cells[c.baseline].medianNs;
        for (std::size_t m = 0; m < row.cells.size(); ++m) {
            const MachineCell& cell = row.cells[m];
            drawn.medianNs.push_back(cell.medianNs);
            std::optional<std::pair<double, double>> interval;
            if (cell.ratio && base)
                interval = std::pair(*base * cell.low, *base * cell.high);
            series[m].interval.push_back(interval);
        }
        m_rows.push_back(std::move(drawn));
    }
}

void ComparePlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_rows.clear();
    std::vector<Series> series;
    if (m_comparison) {
        rowsOfComparison(series);
    } else {
        for (const CompareSource& s : m_sources)
            series.push_back({ s.legend(), {} });
        m_rows = matchSources(m_sources);
        // Benchmarks every machine measured first: they are what a comparison is for.
        std::stable_sort(m_rows.begin(), m_rows.end(),
            [](const CompareRow& a, const CompareRow& b) { return a.sourcesWithValue() > b.sourcesWithValue(); });
    }
    draw(series);
}

void ComparePlot::draw(const std::vector<Series>& series)
{
    m_bars.assign(series.size(), nullptr);
    m_intervals.assign(series.size(), nullptr);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double lowest = 0, highest = 0;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        ticker->addTick(static_cast<double>(i + 1), QString::fromStdString(m_rows[i].key));
        for (const auto& v : m_rows[i].medianNs)
            if (v && *v > 0) {
                lowest = lowest == 0 ? *v : std::min(lowest, *v);
                highest = std::max(highest, *v);
            }
    }
    for (const Series& s : series)
        for (const auto& interval : s.interval)
            if (interval && interval->second > 0)
                highest = std::max(highest, interval->second);
    const double base = lowest > 0 ? std::pow(10.0, std::floor(std::log10(lowest / 2))) : 1;
    const double width = 0.8 / static_cast<double>(std::max<std::size_t>(series.size(), 1));
    for (std::size_t s = 0; s < series.size(); ++s) {
        QVector<double> keys, values, below, above;
        bool anyInterval = false;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (const auto& v = m_rows[i].medianNs[s]; v && *v > 0) {
                keys << static_cast<double>(i + 1);
                values << *v;
                const auto& interval = i < series[s].interval.size() ? series[s].interval[i] : std::nullopt;
                // No whisker where there is no interval (the baseline, a class one side lacks).
                below << (interval ? std::max(0.0, *v - interval->first) : std::numeric_limits<double>::quiet_NaN());
                above << (interval ? std::max(0.0, interval->second - *v) : std::numeric_limits<double>::quiet_NaN());
                anyInterval = anyInterval || interval.has_value();
            }
        if (keys.isEmpty())
            continue;
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        const QColor color = machineColor(static_cast<int>(s), palette());
        bars->setName(series[s].name);
        bars->setPen(QPen(color.darker(130)));
        bars->setBrush(color);
        bars->setWidth(width);
        bars->setBaseValue(base);
        bars->setBarsGroup(m_group);
        bars->setData(keys, values, true);
        m_bars[s] = bars;
        if (anyInterval) {
            auto* whiskers = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
            whiskers->removeFromLegend();
            whiskers->setDataPlottable(bars);
            whiskers->setData(below, above);
            whiskers->setPen(QPen(palette().color(QPalette::WindowText), 1.5)); // over the bar and beside it
            whiskers->setWhiskerWidth(6);
            m_intervals[s] = whiskers;
        }
    }
    useCategoryAxis(*m_plot->xAxis, ticker, static_cast<int>(m_rows.size()));
    m_plot->yAxis->setRange(base, std::max(highest * 3, base * 10));
    if (m_rows.empty()) {
        addPlotHint(
            *m_plot, m_comparison ? tr("The cards share no benchmark of one mode and relation class.") : m_emptyHint);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ctxscope::gui
