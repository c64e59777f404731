// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <vector>

class QCustomPlot;

namespace ctxscope::gui {

class ProgramWatch;

// The Programs dock's live plot: switches per second (left axis) and run-queue wait (right
// axis, % of wall time, dashed) over the watch's time, for the selected threads or, with none
// selected, the whole process; a vertical line at every re-pin. Redrawn at most 30 times a
// second whatever the sample rate.
class ProgramPlot : public QWidget {
    Q_OBJECT
public:
    // Threads drawn at once; more selected are summed into none (the table still shows them).
    static constexpr std::size_t kMaxThreads = 8;

    explicit ProgramPlot(const ProgramWatch& watch, QWidget* parent = nullptr);

    // The threads to draw; empty: the process as a whole.
    void setThreads(std::vector<long> tids);
    const std::vector<long>& threads() const { return m_tids; }
    QCustomPlot* plot() const { return m_plot; }
    // Curves (one or two per thread) and re-pin lines now drawn, for tests.
    int curveCount() const;
    int pinLineCount() const;

    void refresh(); // soon: coalesced into one replot

private:
    void rebuild();

    const ProgramWatch& m_watch;
    QCustomPlot* m_plot = nullptr;
    std::vector<long> m_tids;
    bool m_pending = false;
};

} // namespace ctxscope::gui
