// SPDX-License-Identifier: MIT
#include "breakdownplot.h"

#include "durationticker.h"
#include "plotstyle.h"
#include "qcp.h"

#include "ctxscope/handover_step.h"
#include "ctxscope/units.h"

#include <QEvent>
#include <QMouseEvent>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace ctxscope::gui {

namespace {

constexpr double kBarHalf = 0.32; // of a category's height

QString qs(const std::string& text) { return QString::fromStdString(text); }

// A figure on the bar as the lessons and the results table write it (formatDuration), so the
// same quantity reads the same everywhere.
QString figure(double ns) { return qs(formatDuration(ns)); }

} // namespace

BreakdownPlot::BreakdownPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new DurationTicker));
    // The typical hand-over, as the lessons quote it: a step some hand-overs skip weighs with
    // the share that took it. The title shortens where the axis is shorter than it.
    setValueTitles(*m_plot->yAxis, tr("typical hand-over: each step's median × its share of hand-overs (whisker: p90)"),
        tr("typical hand-over (whisker: p90)"));
    m_plot->yAxis->setRangeReversed(true); // the first run on top
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend); // under the bars: they keep the width
    m_plot->legend->setWrap(4);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    connect(m_plot, &QCustomPlot::mousePress, this, &BreakdownPlot::clicked);
    m_plot->installEventFilter(this);
    restyle();
}

bool BreakdownPlot::eventFilter(QObject* watched, QEvent* event)
{
    // A step's label goes in only where it fits: that is known again at each new width.
    if (watched == m_plot && event->type() == QEvent::Resize)
        QTimer::singleShot(0, this, &BreakdownPlot::rebuild);
    return QWidget::eventFilter(watched, event);
}

QColor BreakdownPlot::stepColor(const std::string& step)
{
    // The wake-up's path from the waker's call to the wakee in user space, hues in that order;
    // the waker running on (one PU) in grey: it is time the wakee waits, not a step it takes.
    static const std::pair<const char*, QColor> colors[] = {
        { "wake call", QColor(0x56, 0xB4, 0xE9) },
        { "yield call", QColor(0x99, 0x77, 0xBB) },
        { "sleep call", QColor(0x99, 0x77, 0xBB) },
        { "IPI sent", QColor(0xD5, 0x5E, 0x00) },
        { "woken without IPI", QColor(0xE6, 0x9F, 0x00) },
        { "idle exit", QColor(0xCC, 0x79, 0xA7) },
        { "switch-in", QColor(0x00, 0x72, 0xB2) },
        { "waker runs on", QColor(0x99, 0x99, 0x99) },
        { "return to user", QColor(0x00, 0x9E, 0x73) },
        { "in user space", QColor(0xF0, 0xE4, 0x42) },
    };
    for (const auto& [name, color] : colors)
        if (step == name)
            return color;
    // What takes the switch-in's place on a busy CPU: one colour per way, whatever the task.
    switch (busyStepOf(step).way) {
    case BusyWay::Preempting:
        return QColor(0x3B, 0x6E, 0x8F); // near the switch-in's blue: it is the switch, from another task
    case BusyWay::WaitingBehind:
        return QColor(0x55, 0x55, 0x55);
    case BusyWay::None:
        break;
    }
    return QColor(0x66, 0x66, 0x66);
}

QString BreakdownPlot::legendName(const std::string& step)
{
    // One entry per way on a busy CPU: a loaded machine listed a dozen tasks, each in the same grey.
    switch (busyStepOf(step).way) {
    case BusyWay::Preempting:
        return tr("preempting another task");
    case BusyWay::WaitingBehind:
        return tr("waiting behind another task");
    case BusyWay::None:
        break;
    }
    return qs(step);
}

void BreakdownPlot::setRuns(std::vector<Run> runs)
{
    m_runs = std::move(runs);
    rebuild();
}

void BreakdownPlot::restyle()
{
    stylePlot(*m_plot);
    rebuild();
}

void BreakdownPlot::rebuild()
{
    m_plot->clearItems();
    m_plot->clearPlottables();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const QColor text = palette().color(QPalette::Text);
    double longest = 0;
    std::set<QString> named;
    for (std::size_t r = 0; r < m_runs.size(); ++r) {
        const Run& run = m_runs[r];
        const double key = static_cast<double>(r + 1);
        ticker->addTick(key, run.label + QLatin1Char('\n') + (run.bar.crossCpu ? tr("across CPUs") : tr("on one CPU")));
        double right = run.bar.totalNs(); // the bar's end, or its last whisker's
        for (const BreakdownStep& step : run.bar.steps) {
            const QColor color = stepColor(step.name);
            auto* rect = new QCPItemRect(m_plot);
            rect->topLeft->setCoords(step.fromNs, key - kBarHalf);
            rect->bottomRight->setCoords(step.fromNs + step.ns, key + kBarHalf);
            rect->setBrush(color);
            rect->setPen(QPen(palette().color(QPalette::Base)));
            rect->setSelectable(false);
            // The whisker: from the median's end to where the p90 would end, for a step every
            // hand-over took one way (a weighed step's p90 has no place on the bar).
            if (step.oneWay && step.p90Ns > step.p50Ns) {
                auto* whisker = new QCPItemLine(m_plot);
                const double end = step.fromNs + step.ns;
                const double y = key;
                whisker->start->setCoords(end, y);
                whisker->end->setCoords(end + (step.p90Ns - step.p50Ns), y);
                whisker->setPen(QPen(color.darker(150), 1.5));
                whisker->setTail(QCPLineEnding(QCPLineEnding::esBar, 6));
                whisker->setHead(QCPLineEnding(QCPLineEnding::esBar, 6));
                longest = std::max(longest, end + step.p90Ns - step.p50Ns);
                right = std::max(right, end + step.p90Ns - step.p50Ns);
            }
            if (const QString name = legendName(step.name); !named.contains(name)) {
                named.insert(name); // a legend entry per step: an empty bar of its colour
                auto* legend = new QCPBars(m_plot->yAxis, m_plot->xAxis);
                legend->setName(name);
                legend->setBrush(color);
                legend->setPen(QPen(color));
            }
        }
        longest = std::max(longest, run.bar.totalNs());
        if (!run.bar.steps.empty()) {
            // The bar's length after its end and its whiskers' ends, on its own line.
            auto* total = new QCPItemText(m_plot);
            total->position->setCoords(right, key);
            total->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            total->setText(QStringLiteral(" ") + figure(run.bar.totalNs()));
            total->setColor(text);
            total->setFont(m_plot->xAxis->tickLabelFont());
        }
    }
    // The steps' names and times inside them, where they fit (drawn after the range is known).
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(0.4, static_cast<double>(m_runs.size()) + 0.6);
    m_plot->xAxis->setRange(0, longest > 0 ? longest * 1.25 : 1000); // room for the totals
    for (std::size_t r = 0; r < m_runs.size(); ++r)
        for (const BreakdownStep& step : m_runs[r].bar.steps) {
            const double width
                = m_plot->xAxis->coordToPixel(step.fromNs + step.ns) - m_plot->xAxis->coordToPixel(step.fromNs);
            const QString label = figure(step.ns);
            if (width < QFontMetrics(m_plot->xAxis->tickLabelFont()).horizontalAdvance(label) + 6)
                continue;
            auto* in = new QCPItemText(m_plot);
            in->position->setCoords(step.fromNs + step.ns / 2, static_cast<double>(r + 1));
            in->setText(label);
            in->setFont(m_plot->xAxis->tickLabelFont());
            // Dark text on the light steps, white on the dark ones.
            in->setColor(stepColor(step.name).lightnessF() > 0.55 ? QColor(0x11, 0x11, 0x11) : QColor(Qt::white));
        }
    if (m_runs.empty())
        addPlotHint(*m_plot,
            tr("Check \"Trace the scheduler\" in the run panel and run futex, pipe, spin-futex, yield or ring: each "
               "hand-over is cut into its steps here"));
    m_plot->replot();
}

QPointF BreakdownPlot::stepCenter(std::size_t run, std::size_t step) const
{
    const BreakdownStep& s = m_runs.at(run).bar.steps.at(step);
    return { m_plot->xAxis->coordToPixel(s.fromNs + s.ns / 2), m_plot->yAxis->coordToPixel(double(run + 1)) };
}

void BreakdownPlot::clicked(QMouseEvent* event)
{
    const double key = m_plot->yAxis->pixelToCoord(event->position().y());
    const double index = std::round(key) - 1;
    if (index < 0 || index >= static_cast<double>(m_runs.size()) || std::abs(key - std::round(key)) > kBarHalf)
        return;
    const Run& run = m_runs[static_cast<std::size_t>(index)];
    if (auto step = run.bar.stepAt(m_plot->xAxis->pixelToCoord(event->position().x())))
        emit stepClicked(run.id, qs(run.bar.steps[*step].name), run.bar.crossCpu);
}

} // namespace ctxscope::gui
