// SPDX-License-Identifier: MIT
#include "programplot.h"

#include "plotstyle.h"
#include "programwatch.h"
#include "qcp.h"

#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

namespace {

constexpr int kRedrawIntervalMs = 33;

void fill(QCPGraph& graph, const std::deque<ThreadPoint>& points, bool wait)
{
    QVector<QCPGraphData> data;
    data.reserve(static_cast<qsizetype>(points.size()));
    for (const ThreadPoint& p : points) {
        if (!wait)
            data.push_back({ p.seconds, p.switchesPerS });
        else if (p.runqueueWaitPerS)
            data.push_back({ p.seconds, *p.runqueueWaitPerS * 100.0 });
    }
    graph.data()->set(data, true);
}

} // namespace

ProgramPlot::ProgramPlot(const ProgramWatch& watch, QWidget* parent)
    : QWidget(parent)
    , m_watch(watch)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    stylePlot(*m_plot);
    m_plot->xAxis->setLabel(tr("seconds since the watch began"));
    m_plot->yAxis->setLabel(tr("switches/s"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("queue wait % (dashed)")); // the table's Run-queue wait, in a tab's height
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    QColor legendFill = palette().color(QPalette::Base);
    legendFill.setAlpha(200); // the curves show through
    m_plot->legend->setBrush(legendFill);
    setMinimumHeight(220);
    rebuild();
}

void ProgramPlot::setThreads(std::vector<long> tids)
{
    if (tids.size() > kMaxThreads)
        tids.resize(kMaxThreads);
    if (tids == m_tids)
        return;
    m_tids = std::move(tids);
    refresh();
}

void ProgramPlot::refresh()
{
    if (m_pending)
        return;
    m_pending = true;
    QTimer::singleShot(kRedrawIntervalMs, this, [this] {
        m_pending = false;
        rebuild();
    });
}

int ProgramPlot::curveCount() const { return m_plot->graphCount(); }

int ProgramPlot::pinLineCount() const
{
    int lines = 0;
    for (int i = 0; i < m_plot->itemCount(); ++i)
        lines += qobject_cast<QCPItemStraightLine*>(m_plot->item(i)) ? 1 : 0;
    return lines;
}

void ProgramPlot::rebuild()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    struct Series {
        QString label;
        const std::deque<ThreadPoint>* points;
    };
    std::vector<Series> series;
    // "ping0 (10985)": the thread's name as the table and the map's markers give it.
    const auto threadName = [this](long tid) {
        const auto& rows = m_watch.threads()->threads();
        const auto it = std::find_if(rows.begin(), rows.end(), [tid](const ThreadRates& t) { return t.tid == tid; });
        return it == rows.end() || it->name.empty() ? tr("thread %1").arg(tid)
                                                    : tr("%1 (%2)").arg(QString::fromStdString(it->name)).arg(tid);
    };
    if (m_tids.empty()) {
        if (!m_watch.processHistory().empty())
            series.push_back({ tr("all threads, summed"), &m_watch.processHistory() });
    } else {
        for (const long tid : m_tids)
            if (const auto* points = m_watch.history(tid))
                series.push_back({ threadName(tid), points });
    }
    double maxWait = 0;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const QColor color = runColor(static_cast<int>(i), palette());
        QCPGraph* switches = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
        switches->setName(series[i].label);
        switches->setPen(QPen(color, 2));
        fill(*switches, *series[i].points, false);
        QCPGraph* wait = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
        wait->setPen(QPen(color, 1.5, Qt::DashLine));
        fill(*wait, *series[i].points, true);
        wait->removeFromLegend();
        for (const ThreadPoint& p : *series[i].points)
            maxWait = std::max(maxWait, p.runqueueWaitPerS.value_or(0) * 100.0);
    }
    if (series.empty())
        addPlotHint(*m_plot, tr("Pick a program and Watch: its switch rate and run-queue wait appear here."));
    const double end = std::max(10.0, m_watch.lastSeconds());
    m_plot->xAxis->setRange(std::max(0.0, end - 120.0), end); // the last two minutes
    m_plot->yAxis->rescale();
    m_plot->yAxis->setRangeLower(0);
    m_plot->yAxis->setRangeUpper(std::max(10.0, m_plot->yAxis->range().upper * 1.1));
    m_plot->yAxis2->setRange(0, std::max(5.0, maxWait * 1.1));
    const QColor pinColor = palette().color(QPalette::Highlight);
    for (const PinMark& pin : m_watch.pins()) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(pin.seconds, 0);
        line->point2->setCoords(pin.seconds, 1);
        line->setPen(QPen(pinColor, 1.5, Qt::DotLine));
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(pin.seconds, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setColor(pinColor);
        label->setText(QStringLiteral(" ") + pin.what);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ctxscope::gui
