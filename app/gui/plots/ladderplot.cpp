// SPDX-License-Identifier: MIT
#include "ladderplot.h"

#include "plotstyle.h"
#include "qcp.h"

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

namespace {
enum Kind { NoSwitch, UserSpace, Kernel };
Kind kindOf(const LadderRung& r) { return r.switchesPerOp <= 0 ? NoSwitch : r.userSpace ? UserSpace : Kernel; }
} // namespace

LadderPlot::LadderPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    setUpMedianBarChart(*this, *m_plot);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    restyle();
}

void LadderPlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

void LadderPlot::setRuns(const std::vector<std::shared_ptr<const RunResult>>& runs)
{
    m_rungs = ladderRungs(runs);
    rebuild();
}

QStringList LadderPlot::barLabels() const { return m_labels; }

void LadderPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_labels.clear();
    const QColor colors[] = { QColor(0x99, 0x99, 0x99), QColor(0x00, 0x9E, 0x73), QColor(0xD5, 0x5E, 0x00) };
    const QString names[]
        = { tr("no context switch"), tr("user-space switches (coroutines)"), tr("kernel context switches") };
    QCPBars* bars[3] = { nullptr, nullptr, nullptr };
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const double lowest = m_rungs.empty() ? 10 : m_rungs.front().nsPerOp;
    const double highest = m_rungs.empty() ? 1e4 : m_rungs.back().nsPerOp;
    const double base = std::pow(10.0, std::floor(std::log10(lowest / 2)));
    const QColor text = palette().color(QPalette::Text);
    for (std::size_t i = 0; i < m_rungs.size(); ++i) {
        const LadderRung& r = m_rungs[i];
        const Kind kind = kindOf(r);
        if (!bars[kind]) {
            bars[kind] = new QCPBars(m_plot->xAxis, m_plot->yAxis);
            bars[kind]->setName(names[kind]);
            bars[kind]->setWidth(0.62);
            bars[kind]->setBaseValue(base);
            bars[kind]->setPen(QPen(colors[kind].darker(130)));
            bars[kind]->setBrush(colors[kind]);
        }
        const double key = static_cast<double>(i + 1);
        bars[kind]->addData(key, r.nsPerOp);
        ticker->addTick(key, r.bench);
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(key, r.nsPerOp * 1.25);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setText(r.label);
        label->setColor(text);
        label->setFont(m_plot->xAxis->tickLabelFont());
        m_labels << r.label;
    }
    useCategoryAxis(*m_plot->xAxis, ticker, static_cast<int>(m_rungs.size()));
    // Room above the tallest bar for its two-line label.
    m_plot->yAxis->setRange(base, highest * 12);
    m_plot->legend->setVisible(!m_rungs.empty());
    if (m_rungs.empty()) {
        addPlotHint(*m_plot,
            tr("Run vdso, coro-cxx20, syscall, futex and pipe (or the coroutines lesson):\n"
               "the latest run of each benchmark stands here on one log scale."));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ctxscope::gui
