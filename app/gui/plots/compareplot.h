// SPDX-License-Identifier: MIT
#pragma once

#include "comparedata.h"

#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPBars;
class QCPBarsGroup;

namespace ctxscope::gui {

// This session's runs beside results files from other machines or earlier sessions: one
// group of bars per benchmark (matched by bench, mode and relation class), one bar colour
// per machine, the legend naming host, CPU model and hypervisor.
class ComparePlot : public QWidget {
    Q_OBJECT
public:
    explicit ComparePlot(QWidget* parent = nullptr);

    // sources[0] is this session (it may have no runs).
    void setSources(std::vector<CompareSource> sources);
    const std::vector<CompareSource>& sources() const { return m_sources; }
    const std::vector<CompareRow>& rows() const { return m_rows; } // as drawn, left to right
    QCPBars* bars(std::size_t source) const; // null when that source has no bar
    QCustomPlot* plot() const { return m_plot; }
    void restyle();

private:
    void rebuild();

    QCustomPlot* m_plot = nullptr;
    std::vector<CompareSource> m_sources;
    std::vector<CompareRow> m_rows;
    std::vector<QCPBars*> m_bars;
    QCPBarsGroup* m_group = nullptr; // the plot's child, reused by every rebuild
};

} // namespace ctxscope::gui
