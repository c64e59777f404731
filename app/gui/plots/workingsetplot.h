// SPDX-License-Identifier: MIT
#pragma once

#include "workingsetdata.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPGraph;

namespace ctxscope::gui {

// Cost per switch against the working set each task touches (log2 axis, K/M/G), with the
// cache sizes of the machine marked, error bars on every point, and optionally the round
// trip and the hot touch(W). Sweeps from several placements or machines overlay.
class WorkingSetPlot : public QWidget {
    Q_OBJECT
public:
    explicit WorkingSetPlot(QWidget* parent = nullptr);

    void addSweep(std::shared_ptr<const SweepCurves> sweep);
    // A live sweep grows point by point: its curve is replaced as each point arrives.
    void replaceSweep(std::size_t index, std::shared_ptr<const SweepCurves> sweep);
    void clear();
    const std::vector<std::shared_ptr<const SweepCurves>>& sweeps() const { return m_sweeps; }

    void setSeriesShown(WsSeries series, bool shown);
    void setSpread(WsSpread spread);

    QCustomPlot* plot() const { return m_plot; }
    // The graph drawn for a sweep's series, or null when not shown.
    QCPGraph* graph(std::size_t sweep, WsSeries series) const;
    // The cache markers drawn (their labels), for tests.
    QStringList markerLabels() const;
    void restyle();

private:
    void rebuild();
    void drawMarkers();

    QCustomPlot* m_plot = nullptr;
    QCheckBox* m_roundTrip = nullptr;
    QCheckBox* m_touch = nullptr;
    QComboBox* m_spread = nullptr;
    std::vector<std::shared_ptr<const SweepCurves>> m_sweeps;
    struct Drawn {
        std::size_t sweep = 0;
        WsSeries series = WsSeries::SwitchCost;
        QCPGraph* graph = nullptr;
    };
    std::vector<Drawn> m_drawn;
    QStringList m_markerLabels;
};

} // namespace ctxscope::gui
