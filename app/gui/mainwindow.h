// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <QMainWindow>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace ctxscope::gui {

class TopologyMapPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Show a topology; a non-live one disables runs behind a banner saying why.
    void setTopology(const Topology& topology);
    const std::optional<Topology>& topology() const { return m_topology; }

    TopologyMapPanel* mapPanel() const { return m_mapPanel; }
    QAction* runAction() const { return m_runAction; }
    QAction* cancelAction() const { return m_cancelAction; }

signals:
    void topologyFailed(const QString& message);

private:
    void createMenus();
    void openTopologyXml();
    void openSynthetic();
    void showAbout();

    std::optional<Topology> m_topology;
    QLabel* m_banner = nullptr;
    QTabWidget* m_tabs = nullptr;
    TopologyMapPanel* m_mapPanel = nullptr;
    QPlainTextEdit* m_topologyText = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
};

} // namespace ctxscope::gui
