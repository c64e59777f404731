// SPDX-License-Identifier: MIT
#pragma once

#include "heatmapdata.h"

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QLabel;

namespace ctxscope::gui {

// A PU x PU colour map of a `matrix` (median round trip or cost per switch) with a log
// colour scale. Cells filled from their relation class's representative are plain; the
// measured ones carry a ring. Hovering shows the pair, its class and value; clicking a cell
// asks for that pair on the topology map.
class HeatmapPlot : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapPlot(QWidget* parent = nullptr);

    void setMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin = {});
    void setValue(HeatValue value);
    const HeatmapGrid& grid() const { return m_grid; }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_map; }
    QCPGraph* measuredMarks() const { return m_marks; }

    // The text shown when hovering the cell at column x, row y ("" outside the matrix).
    QString toolTipAt(int x, int y) const;
    // The cell under a pixel of the plot, or {-1, -1}.
    QPoint cellAtPixel(const QPointF& pos) const;
    void restyle();

signals:
    void pairClicked(int osA, int osB);

private:
    void rebuild();
    void mouseMoved(QMouseEvent* event);
    void mousePressed(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QComboBox* m_valueChooser = nullptr;
    QLabel* m_title = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QCPGraph* m_marks = nullptr;
    std::shared_ptr<const MatrixResult> m_matrix;
    QString m_origin;
    HeatmapGrid m_grid;
};

} // namespace ctxscope::gui
