// SPDX-License-Identifier: MIT
#include "topologytabs.h"

#include "topologymappanel.h"

#include "ctxscope/topology_report.h"

#include <QFontDatabase>
#include <QPlainTextEdit>

namespace ctxscope::gui {

TopologyTabs::TopologyTabs(QWidget* parent)
    : QTabWidget(parent)
    , m_map(new TopologyMapPanel(this))
    , m_text(new QPlainTextEdit(this))
{
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    addTab(m_map, tr("&Map"));
    addTab(m_text, tr("&Text"));
}

void TopologyTabs::setTopology(const Topology& topology)
{
    m_map->setTopology(topology);
    m_text->setPlainText(QString::fromStdString(describeTopology(topology)));
}

} // namespace ctxscope::gui
