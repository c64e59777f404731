// SPDX-License-Identifier: MIT
#include "plotsview.h"

#include "distributionplot.h"
#include "liveplot.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QTabWidget>
#include <QVBoxLayout>

namespace ctxscope::gui {

PlotsView::PlotsView(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    m_live = new LivePlot(m_tabs);
    m_distribution = new DistributionPlot(m_tabs);
    m_tabs->addTab(m_live, tr("&Live samples"));
    m_tabs->addTab(m_distribution, tr("&Distribution"));

    auto* corner = new QWidget(m_tabs);
    auto* row = new QHBoxLayout(corner);
    row->setContentsMargins(4, 0, 4, 0);
    m_log = new QCheckBox(tr("Lo&g scale"), corner);
    m_log->setChecked(m_live->logScale());
    m_log->setToolTip(tr("Log scale shows every sample, outliers included; linear clips them"));
    m_kind = new QComboBox(corner);
    m_kind->addItem(tr("Histogram"));
    m_kind->addItem(tr("CDF"));
    m_kind->setToolTip(tr("Share of samples per log-spaced bin, or the share at or below each time"));
    row->addWidget(m_log);
    row->addWidget(m_kind);
    m_tabs->setCornerWidget(corner, Qt::TopRightCorner);
    layout->addWidget(m_tabs);

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
    const bool live = m_tabs->currentWidget() == m_live;
    m_log->setVisible(live);
    m_kind->setVisible(!live);
}

} // namespace ctxscope::gui
