// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QTabWidget;

namespace ctxscope::gui {

class ComparePlot;
class DistributionPlot;
class HeatmapPlot;
class LadderPlot;
class LivePlot;
class TimelinePage;
class WorkingSetPlot;

// The plots as tabs: live samples and the distribution (their switches, earlier runs, log
// scale and histogram or CDF, in a row under the plot), the ladder, working-set curves, the placement
// heatmap, the comparison with other machines, and the traced runs' breakdown and timeline.
class PlotsView : public QWidget {
    Q_OBJECT
public:
    explicit PlotsView(QWidget* parent = nullptr);

    LivePlot* livePlot() const { return m_live; }
    DistributionPlot* distributionPlot() const { return m_distribution; }
    LadderPlot* ladderPlot() const { return m_ladder; }
    WorkingSetPlot* workingSetPlot() const { return m_workingSet; }
    HeatmapPlot* heatmapPlot() const { return m_heatmap; }
    ComparePlot* comparePlot() const { return m_compare; }
    TimelinePage* timelinePage() const { return m_timeline; }
    QTabWidget* tabs() const { return m_tabs; }
    // The plot of the tab on show (what Export saves).
    QCustomPlot* currentPlot() const;

    // The views by the names --view takes: live, distribution, ladder, working-set,
    // heatmap, compare, timeline.
    static QStringList viewNames();
    bool showView(const QString& name);
    // Colours and fonts again from the palette and the application font (dark/light,
    // presentation mode): QCustomPlot does not follow them by itself.
    void restyle();
    QCheckBox* logScaleSwitch() const { return m_log; }
    QComboBox* distributionChooser() const { return m_kind; }
    // Shows the runs before the stage on show (a lesson's, or the last run's) in Live and
    // Distribution too.
    QCheckBox* earlierRunsSwitch() const { return m_earlier; }

    void showLive();
    void showDistribution();

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateCorner();

    QTabWidget* m_tabs = nullptr;
    LivePlot* m_live = nullptr;
    DistributionPlot* m_distribution = nullptr;
    LadderPlot* m_ladder = nullptr;
    WorkingSetPlot* m_workingSet = nullptr;
    HeatmapPlot* m_heatmap = nullptr;
    ComparePlot* m_compare = nullptr;
    TimelinePage* m_timeline = nullptr;
    QCheckBox* m_log = nullptr;
    QComboBox* m_kind = nullptr;
    QCheckBox* m_earlier = nullptr;
    QWidget* m_controls = nullptr; // the row of those switches
};

} // namespace ctxscope::gui
