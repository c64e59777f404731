// SPDX-License-Identifier: MIT
#include "machinewsplot.h"

#include "plotstyle.h"
#include "qcp.h"

#include "ctxscope/units.h"

#include <QEvent>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <map>

namespace ctxscope::gui {

namespace {

// The rows the curves are made of: the survey's futex round trips with a working set, and the
// time to touch that working set (dashed: the round trip less it is the switches' share).
bool isWsRow(const MachineRow& row) { return (row.bench == "futex" || row.bench == "touch") && row.wsBytes > 0; }

} // namespace

MachineWsPlot::MachineWsPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setUpWorkingSetAxes(*m_plot, tr("time per op, futex on one PU (log scale)"));
    restyle();
}

void MachineWsPlot::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Qt tells a parent before its children (the QCustomPlot) have the new palette: once they have.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &MachineWsPlot::restyle);
}

void MachineWsPlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

void MachineWsPlot::setComparison(
    const MachineComparison* comparison, const std::vector<std::optional<std::uint64_t>>& knees)
{
    m_comparison = comparison;
    m_knees = knees;
    rebuild();
}

QCPGraph* MachineWsPlot::curve(std::size_t machine) const
{
    return machine < m_curves.size() ? m_curves[machine] : nullptr;
}

std::optional<std::uint64_t> MachineWsPlot::kneeDrawn(std::size_t machine) const
{
    return machine < m_kneesDrawn.size() ? m_kneesDrawn[machine] : std::nullopt;
}

void MachineWsPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_curves.clear();
    m_kneesDrawn.clear();
    const MachineComparison* c = m_comparison;
    if (!c || std::none_of(c->rows.begin(), c->rows.end(), isWsRow)) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const std::size_t machines = c->labels.size();
    m_curves.assign(machines, nullptr);
    m_kneesDrawn.assign(machines, std::nullopt);
    // Per machine, its points in working-set order (the rows come in the cards' order).
    std::vector<std::map<std::uint64_t, double>> roundTrips(machines), touches(machines);
    for (const MachineRow& row : c->rows)
        if (isWsRow(row))
            for (std::size_t m = 0; m < machines && m < row.cells.size(); ++m)
                if (row.cells[m].medianNs && *row.cells[m].medianNs > 0)
                    (row.bench == "touch" ? touches : roundTrips)[m][row.wsBytes] = *row.cells[m].medianNs;
    double xLo = std::numeric_limits<double>::max(), xHi = 0, yLo = std::numeric_limits<double>::max(), yHi = 0;
    const auto addCurve = [&](const std::map<std::uint64_t, double>& points, const QString& name, const QPen& pen) {
        QCPGraph* graph = m_plot->addGraph();
        graph->setName(name);
        graph->setPen(pen);
        graph->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, pen.color(), pen.color(), pen.style() == Qt::SolidLine ? 7 : 4));
        QVector<double> keys, values;
        for (const auto& [bytes, ns] : points) {
            keys << static_cast<double>(bytes);
            values << ns;
            xLo = std::min(xLo, static_cast<double>(bytes));
            xHi = std::max(xHi, static_cast<double>(bytes));
            yLo = std::min(yLo, ns);
            yHi = std::max(yHi, ns);
        }
        graph->setData(keys, values, true);
        return graph;
    };
    for (std::size_t m = 0; m < machines; ++m) {
        const QColor color = machineColor(static_cast<int>(m), palette());
        const QString label = QString::fromStdString(c->labels[m]);
        if (!roundTrips[m].empty())
            m_curves[m] = addCurve(roundTrips[m],
                label + (m == c->baseline ? tr(" (baseline)") : QString()) + tr(": round trip"), QPen(color, 2.5));
        if (!touches[m].empty())
            addCurve(touches[m], label + tr(": touching the working set"), QPen(color, 1.5, Qt::DashLine));
    }
    // Each knee a dashed vertical line in its machine's colour, named at its top.
    for (std::size_t m = 0; m < machines && m < m_knees.size(); ++m) {
        if (!m_knees[m] || !m_curves[m])
            continue;
        const QColor color = machineColor(static_cast<int>(m), palette());
        const auto x = static_cast<double>(*m_knees[m]);
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(x, 1);
        line->point2->setCoords(x, 2);
        line->setPen(QPen(color, 1.5, Qt::DashLine));
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(x, 0.02 + 0.07 * static_cast<double>(m));
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(4, 0, 0, 0));
        label->setColor(strongShade(color, palette()));
        label->setText(
            tr("%1's knee: %2")
                .arg(QString::fromStdString(c->labels[m]), QString::fromStdString(formatBytes(*m_knees[m]))));
        m_kneesDrawn[m] = m_knees[m];
    }
    m_plot->xAxis->setRange(xLo / 1.5, xHi * 1.5);
    m_plot->yAxis->setRange(yLo / 1.5, yHi * 2);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ctxscope::gui
