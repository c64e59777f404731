// SPDX-License-Identifier: MIT
#pragma once

#include "ladderdata.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;

namespace ctxscope::gui {

// The ladder: the latest run of each benchmark as a bar on a log scale, cheapest first,
// each labelled with its time per op and the switches one op holds (vdso, coroutines,
// syscall, futex, pipe): why coroutines help servers, in one picture.
class LadderPlot : public QWidget {
    Q_OBJECT
public:
    explicit LadderPlot(QWidget* parent = nullptr);

    void setRuns(const std::vector<std::shared_ptr<const RunResult>>& runs);
    const std::vector<LadderRung>& rungs() const { return m_rungs; }
    QCustomPlot* plot() const { return m_plot; }
    QStringList barLabels() const; // the texts on the bars, cheapest first
    void restyle();

private:
    void rebuild();

    QCustomPlot* m_plot = nullptr;
    std::vector<LadderRung> m_rungs;
    QStringList m_labels;
};

} // namespace ctxscope::gui
