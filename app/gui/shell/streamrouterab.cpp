// SPDX-License-Identifier: MIT
// StreamRouter: a condition's A/B (a run with keep-awake or a PM QoS hold, measured as is, then
// with the condition): the side as is as a row of its own, paired with the condition's side.
#include "streamrouter.h"

#include "conditionpair.h"
#include "liveplot.h"
#include "plotsview.h"
#include "qcp.h"
#include "runmenu.h"
#include "sessionstore.h"
#include "sessionviews.h"
#include "statuspanel.h"

#include "ctxscope/units.h"

namespace ctxscope::gui {

void StreamRouter::onAsIsResult(quint64 id, std::shared_ptr<const RunResult> result)
{
    // Its own row id and colour (the condition's side keeps the run's), naming the run's id: the
    // row the condition's side will be.
    ResultRow row = std::move(m_views.rowsOf({ *result }).front());
    row.machine = serverName();
    row.abPartner = id;
    if (auto window = m_traceWindows.extract(id); !window.empty() && !window.mapped().events.empty())
        row.traceWindow = std::make_shared<const TraceWindow>(std::move(window.mapped()));
    m_asIsRows[id] = row.id;
    // The stream so far was this side's: its curve becomes the row's, and the condition's side
    // streams on under the run's id.
    LivePlot* live = m_plots.livePlot();
    const quint64 asIs = row.id;
    const QString label = rowLabel(row) + onServer();
    live->beginRun(asIs, label, row.color);
    live->addSamples(asIs, QVector<double>(result->samples.begin(), result->samples.end()));
    live->finishRun(asIs, result);
    m_views.store().addRun(std::move(row));
    m_views.fitResultColumns();
    m_views.runContinues(id);
    if (QCPGraph* median = live->medianGraph(asIs))
        median->setName(m_views.legendLabel(asIs, label));
    live->beginRun(id, m_views.legendLabel(id, m_liveLabel), m_views.colorOf(id));
    m_repetition = -1;
    m_launcher.status()->setRunProgress(
        tr("As is: median %1; now with the condition…").arg(QString::fromStdString(formatDuration(result->stats.p50))));
}

quint64 StreamRouter::takeAsIsRow(quint64 id)
{
    const auto it = m_asIsRows.find(id);
    if (it == m_asIsRows.end())
        return 0;
    const quint64 row = it->second;
    m_asIsRows.erase(it);
    return row;
}

QString StreamRouter::takeAbText(quint64 id)
{
    const auto it = m_abs.find(id);
    if (it == m_abs.end())
        return {};
    const QString text = it->second ? abText(*it->second) : QString();
    m_abs.erase(it);
    return text;
}

} // namespace ctxscope::gui
