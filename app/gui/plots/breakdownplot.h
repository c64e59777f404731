// SPDX-License-Identifier: MIT
#pragma once

#include "breakdowndata.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QMouseEvent;

namespace ctxscope::gui {

// The hand-over taken apart: a horizontal stacked bar per traced run (one PU above, across
// CPUs below, ...), the typical hand-over's steps (BreakdownBar) each in its own colour, with a
// whisker to its p90 where every hand-over took the step one way, the step's time written in it
// where it fits. Clicking a step asks the timeline for a typical
// example of it (stepClicked).
class BreakdownPlot : public QWidget {
    Q_OBJECT
public:
    struct Run {
        quint64 id = 0;
        QString label; // "#3 futex · thread · cross-package (0,1)"
        BreakdownBar bar;
    };
    explicit BreakdownPlot(QWidget* parent = nullptr);

    void setRuns(std::vector<Run> runs);
    const std::vector<Run>& runs() const { return m_runs; }
    QCustomPlot* plot() const { return m_plot; }
    // A step's colour: the same step has the same colour in every bar.
    static QColor stepColor(const std::string& step);
    // A step's legend entry: its name, or for a busy CPU's step ("preempting cc1plus") its way.
    static QString legendName(const std::string& step);
    // Where a step of a run is drawn (its middle, in the plot's pixels), for clicks and tests.
    QPointF stepCenter(std::size_t run, std::size_t step) const;
    void restyle();

signals:
    void stepClicked(quint64 id, const QString& step, bool crossCpu);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    void clicked(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    std::vector<Run> m_runs;
};

} // namespace ctxscope::gui
