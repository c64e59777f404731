// SPDX-License-Identifier: MIT
#pragma once

#include <QTabWidget>

class QPlainTextEdit;

namespace ctxscope {
class Topology;
}

namespace ctxscope::gui {

class TopologyMapPanel;

// The topology shown two ways, as tabs: the map (click PUs to place tasks) and the text that
// `ctxscope-cli topology` prints.
class TopologyTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit TopologyTabs(QWidget* parent = nullptr);

    void setTopology(const Topology& topology); // both tabs
    TopologyMapPanel* mapPanel() const { return m_map; }
    QPlainTextEdit* text() const { return m_text; }

private:
    TopologyMapPanel* m_map = nullptr;
    QPlainTextEdit* m_text = nullptr;
};

} // namespace ctxscope::gui
