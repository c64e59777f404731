// SPDX-License-Identifier: MIT
#include "plotsview.h"

#include "compareplot.h"
#include "distributionplot.h"
#include "heatmapplot.h"
#include "ladderplot.h"
#include "liveplot.h"
#include "timelinepage.h"
#include "workingsetplot.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace ctxscope::gui {

PlotsView::PlotsView(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    // Short titles and no corner widgets: every view's tab shows at 1280 pixels, beside the map
    // and in presentation mode's larger type; below 400 pixels they scroll.
    m_tabs->setUsesScrollButtons(true);
    m_live = new LivePlot(m_tabs);
    m_distribution = new DistributionPlot(m_tabs);
    m_tabs->addTab(m_live, tr("&Live"));
    m_tabs->addTab(m_distribution, tr("&Distribution"));
    m_ladder = new LadderPlot(m_tabs);
    m_workingSet = new WorkingSetPlot(m_tabs);
    m_heatmap = new HeatmapPlot(m_tabs);
    m_compare = new ComparePlot(m_tabs);
    m_tabs->addTab(m_ladder, tr("L&adder"));
    m_tabs->addTab(m_workingSet, tr("&Working set"));
    m_tabs->addTab(m_heatmap, tr("&Heatmap"));
    m_tabs->addTab(m_compare, tr("C&ompare"));
    m_timeline = new TimelinePage(m_tabs);
    m_tabs->addTab(m_timeline, tr("&Timeline"));

    // The switches of Live and Distribution sit under their plot, not in the tab bar's corner,
    // where they took the room of the tabs.
    m_controls = new QWidget(this);
    QWidget* corner = m_controls;
    auto* row = new QHBoxLayout(corner);
    row->setContentsMargins(4, 0, 4, 0);
    m_log = new QCheckBox(tr("Lo&g scale"), corner);
    m_log->setChecked(m_live->logScale());
    m_log->setToolTip(tr("Log scale shows every sample, outliers included; linear clips them"));
    m_kind = new QComboBox(corner);
    m_kind->addItem(tr("Histogram"));
    m_kind->addItem(tr("CDF"));
    m_kind->setToolTip(tr("Share of samples per log-spaced bin, or the share at or below each time"));
    m_earlier = new QCheckBox(tr("&Earlier runs"), corner);
    m_earlier->setToolTip(tr("Show the runs before this lesson or run too; each stays in the results table, and "
                             "selecting its row shows it"));
    row->addWidget(m_earlier);
    row->addWidget(m_log);
    row->addWidget(m_kind);
    row->addStretch(1);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_controls);

    connect(m_log, &QCheckBox::toggled, m_live, &LivePlot::setLogScale);
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_distribution->setMode(index == 1 ? DistributionPlot::Mode::Cdf : DistributionPlot::Mode::Histogram);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &PlotsView::updateCorner);
    updateCorner();
}

void PlotsView::showLive() { m_tabs->setCurrentWidget(m_live); }
void PlotsView::showDistribution() { m_tabs->setCurrentWidget(m_distribution); }

void PlotsView::updateCorner()
{
    const QWidget* current = m_tabs->currentWidget();
    m_log->setVisible(current == m_live);
    m_earlier->setVisible(current == m_live || current == m_distribution);
    m_kind->setVisible(current == m_distribution);
    m_controls->setVisible(current == m_live || current == m_distribution);
}

QCustomPlot* PlotsView::currentPlot() const
{
    const QWidget* current = m_tabs->currentWidget();
    if (current == m_live)
        return m_live->plot();
    if (current == m_distribution)
        return m_distribution->plot();
    if (current == m_ladder)
        return m_ladder->plot();
    if (current == m_workingSet)
        return m_workingSet->plot();
    if (current == m_heatmap)
        return m_heatmap->plot();
    if (current == m_timeline)
        return m_timeline->breakdown()->plot();
    return m_compare->plot();
}

QStringList PlotsView::viewNames()
{
    return { QStringLiteral("live"), QStringLiteral("distribution"), QStringLiteral("ladder"),
        QStringLiteral("working-set"), QStringLiteral("heatmap"), QStringLiteral("compare"),
        QStringLiteral("timeline") };
}

bool PlotsView::showView(const QString& name)
{
    const qsizetype index = viewNames().indexOf(name);
    if (index < 0)
        return false;
    m_tabs->setCurrentIndex(static_cast<int>(index));
    return true;
}

void PlotsView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Qt tells a parent before its children have the new palette: restyle once they have.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &PlotsView::restyle);
}

void PlotsView::restyle()
{
    m_live->restyle();
    m_distribution->restyle();
    m_ladder->restyle();
    m_workingSet->restyle();
    m_heatmap->restyle();
    m_compare->restyle();
    m_timeline->restyle();
}

} // namespace ctxscope::gui
