// SPDX-License-Identifier: MIT
#pragma once

#include "comparedata.h"

#include "ctxscope/machine_compare.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPBars;
class QCPBarsGroup;
class QCPErrorBars;

namespace ctxscope::gui {

// Machines side by side, one group of bars per benchmark (matched by bench, mode and relation
// class), one bar colour per machine. Two inputs: the session's Compare tab gives sources (this
// session's runs beside results files from other machines or earlier sessions, the legend
// naming host, CPU model and hypervisor); File → Compare machines… gives the engine's
// comparison of machine cards (compareMachines, as `ctxscope-cli compare` makes it), whose
// rows it draws as they are (but those with a working set: MachineWsPlot draws them as
// curves), each bar after the baseline's with the 95% interval of its ratio to the baseline
// (on the baseline's scale: baseline median x [low, high]).
class ComparePlot : public QWidget {
    Q_OBJECT
public:
    // The legend's entries per row (under the bars).
    static constexpr int kLegendColumns = 4;

    explicit ComparePlot(QWidget* parent = nullptr);

    // sources[0] is this session (it may have no runs).
    void setSources(std::vector<CompareSource> sources);
    const std::vector<CompareSource>& sources() const { return m_sources; }
    // Draws a comparison instead of sources (null: back to the sources).
    void setComparison(std::shared_ptr<const MachineComparison> comparison);
    const MachineComparison* comparison() const { return m_comparison.get(); }
    // As drawn, left to right: "futex/thread/shared-l3", or a comparison's "futex thread/shared-l3".
    const std::vector<CompareRow>& rows() const { return m_rows; }
    QCPBars* bars(std::size_t source) const; // null when that source has no bar
    // A comparison's 95% intervals of a machine after the baseline; null for the baseline.
    QCPErrorBars* intervals(std::size_t source) const;
    QCustomPlot* plot() const { return m_plot; }
    // What the plot says while there is nothing to draw (the Compare tab: how to add files).
    void setEmptyHint(const QString& hint);
    void restyle();

protected:
    // Its own palette or font changed (the dark palette, presentation's type; a hidden tab's once shown).
    void changeEvent(QEvent* event) override;

private:
    struct Series {
        QString name;
        // Per row: the interval's ends in ns, when the series has one there.
        std::vector<std::optional<std::pair<double, double>>> interval;
    };
    void rebuild();
    void rowsOfComparison(std::vector<Series>& series);
    void draw(const std::vector<Series>& series);

    QCustomPlot* m_plot = nullptr;
    std::vector<CompareSource> m_sources;
    std::shared_ptr<const MachineComparison> m_comparison;
    std::vector<CompareRow> m_rows;
    std::vector<QCPBars*> m_bars;
    std::vector<QCPErrorBars*> m_intervals;
    QCPBarsGroup* m_group = nullptr; // the plot's child, reused by every rebuild
    QString m_emptyHint;
};

} // namespace ctxscope::gui
