// SPDX-License-Identifier: MIT
#include "wakeupplot.h"

#include "durationticker.h"
#include "plotstyle.h"
#include "qcp.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace ctxscope::gui {

namespace {

// "2.048–4.096 µs": the unit once when both ends share it (the legend fits a projector's page).
QString binRange(std::uint64_t lower)
{
    QString low = durationTickLabel(double(lower));
    const QString high = durationTickLabel(double(lower * 2));
    if (const auto space = low.lastIndexOf(QLatin1Char(' ')); space > 0 && high.endsWith(low.mid(space)))
        low.truncate(space);
    return low + QStringLiteral("–") + high;
}

QString peersOf(const std::map<std::string, std::uint64_t>& peers)
{
    QStringList out;
    for (const auto& [name, count] : WakeupEpoch::top(peers, 3))
        out << QStringLiteral("%1 ×%2").arg(QString::fromStdString(name)).arg(count);
    return out.isEmpty() ? QCoreApplication::translate("ctxscope::gui::WakeupPlot", "none")
                         : out.join(QStringLiteral(", "));
}

} // namespace

WakeupPlot::WakeupPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_peers(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_peers);
    m_peers->setWordWrap(true);
    m_plot->setMinimumHeight(150); // its legend and the bins' labels
    m_plot->legend->setFillOrder(QCPLegend::foRowsFirst);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend); // under the bars, not over them
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_peers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_plot->legend->setVisible(true);
    m_plot->xAxis->setLabel(tr("wait from wake-up to running (log2 bins)"));
    m_plot->yAxis->setLabel(tr("share of wake-ups (%)"));
    restyle();
}

void WakeupPlot::setThread(const std::vector<WakeupEpoch>* epochs, const QString& thread)
{
    m_epochs = epochs ? *epochs : std::vector<WakeupEpoch> {};
    m_thread = thread;
    rebuild();
}

void WakeupPlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

QString WakeupPlot::peersText() const { return m_peers->text(); }

void WakeupPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    std::size_t bins = 0;
    std::size_t first = SIZE_MAX;
    for (const WakeupEpoch& e : m_epochs)
        for (std::size_t i = 0; i < e.log2Hist.size(); ++i)
            if (e.log2Hist[i] > 0) {
                bins = std::max(bins, i + 1);
                first = std::min(first, i);
            }
    if (bins == 0) {
        m_peers->setText(QString());
        addPlotHint(*m_plot,
            m_thread.isEmpty() ? tr("Select a thread: its wake-up latencies appear here")
                               : tr("No wake-up of %1 seen yet").arg(m_thread));
        m_plot->replot();
        return;
    }
    auto* group = new QCPBarsGroup(m_plot);
    const double width = 0.8 / static_cast<double>(m_epochs.size());
    double top = 0;
    for (std::size_t k = 0; k < m_epochs.size(); ++k) {
        const WakeupEpoch& e = m_epochs[k];
        if (e.count == 0)
            continue;
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        // Each epoch (before a re-pin, after it) in the run colours the other plots use.
        const QColor color = runColor(static_cast<int>(k), palette());
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(130)));
        bars->setWidth(width);
        bars->setBarsGroup(group);
        std::uint64_t total = 0;
        for (std::uint64_t n : e.log2Hist)
            total += n;
        for (std::size_t i = first; i < e.log2Hist.size(); ++i) {
            const double share = 100.0 * static_cast<double>(e.log2Hist[i]) / static_cast<double>(total);
            bars->addData(static_cast<double>(i), share);
            top = std::max(top, share);
        }
        const auto p50 = e.quantileBin(0.5);
        const auto p99 = e.quantileBin(0.99);
        bars->setName(
            tr("%1: %2 wake-ups, p50 %3, p99 %4")
                .arg(e.why, QLocale().toString(static_cast<qulonglong>(total)), binRange(*p50), binRange(*p99)));
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // Every other bin named (2^i ns), so that the labels never run into each other.
    for (std::size_t i = first; i < bins; i += 2)
        ticker->addTick(static_cast<double>(i), durationTickLabel(double(std::uint64_t { 1 } << i)));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(static_cast<double>(first) - 0.6, static_cast<double>(bins) - 0.4);
    m_plot->yAxis->setRange(0, std::min(100.0, top * 1.25 + 2));
    m_plot->legend->setVisible(true);
    const WakeupEpoch& last = m_epochs.back();
    m_peers->setText(
        tr("%1 — woken by: %2 · preempted by: %3").arg(m_thread, peersOf(last.wakers), peersOf(last.preemptors)));
    m_plot->replot();
}

} // namespace ctxscope::gui
