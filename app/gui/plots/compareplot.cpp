// SPDX-License-Identifier: MIT
#include "compareplot.h"

#include "plotstyle.h"
#include "qcp.h"

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

ComparePlot::ComparePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    setUpMedianBarChart(*this, *m_plot);
    m_group = new QCPBarsGroup(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    restyle();
}

void ComparePlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

void ComparePlot::setSources(std::vector<CompareSource> sources)
{
    m_sources = std::move(sources);
    rebuild();
}

QCPBars* ComparePlot::bars(std::size_t source) const { return source < m_bars.size() ? m_bars[source] : nullptr; }

void ComparePlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_bars.assign(m_sources.size(), nullptr);
    m_rows = matchSources(m_sources);
    // Benchmarks every machine measured first: they are what a comparison is for.
    std::stable_sort(m_rows.begin(), m_rows.end(),
        [](const CompareRow& a, const CompareRow& b) { return a.sourcesWithValue() > b.sourcesWithValue(); });
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
    const double base = lowest > 0 ? std::pow(10.0, std::floor(std::log10(lowest / 2))) : 1;
    const double width = 0.8 / static_cast<double>(std::max<std::size_t>(m_sources.size(), 1));
    for (std::size_t s = 0; s < m_sources.size(); ++s) {
        QVector<double> keys, values;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (const auto& v = m_rows[i].medianNs[s]; v && *v > 0) {
                keys << static_cast<double>(i + 1);
                values << *v;
            }
        if (keys.isEmpty())
            continue;
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        const QColor color = runColor(static_cast<int>(s), palette());
        bars->setName(m_sources[s].legend());
        bars->setPen(QPen(color.darker(130)));
        bars->setBrush(color);
        bars->setWidth(width);
        bars->setBaseValue(base);
        bars->setBarsGroup(m_group);
        bars->setData(keys, values, true);
        m_bars[s] = bars;
    }
    useCategoryAxis(*m_plot->xAxis, ticker, static_cast<int>(m_rows.size()));
    m_plot->yAxis->setRange(base, std::max(highest * 3, base * 10));
    if (m_rows.empty()) {
        addPlotHint(*m_plot,
            tr("File → Compare with results… opens result files from other machines:\n"
               "runs match by benchmark, mode and relation class."));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ctxscope::gui
