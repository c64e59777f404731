// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QTabWidget;

namespace ctxscope::gui {

class DistributionPlot;
class LivePlot;

// The live latency plot and the distribution view as tabs, with their switches (log
// scale; histogram or CDF) in the tab bar's corner.
class PlotsView : public QWidget {
    Q_OBJECT
public:
    explicit PlotsView(QWidget* parent = nullptr);

    LivePlot* livePlot() const { return m_live; }
    DistributionPlot* distributionPlot() const { return m_distribution; }
    QTabWidget* tabs() const { return m_tabs; }
    QCheckBox* logScaleSwitch() const { return m_log; }
    QComboBox* distributionChooser() const { return m_kind; }

    void showLive();
    void showDistribution();

private:
    void updateCorner();

    QTabWidget* m_tabs = nullptr;
    LivePlot* m_live = nullptr;
    DistributionPlot* m_distribution = nullptr;
    QCheckBox* m_log = nullptr;
    QComboBox* m_kind = nullptr;
};

} // namespace ctxscope::gui
