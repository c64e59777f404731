// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/machine_compare.h"

#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;

namespace ctxscope::gui {

// Compare machines' working-set curves: the survey's futex round trip on one PU against the
// working set each task touches (log2 bytes across, log time up), one line per machine in its
// bar colour, and each machine's knee (where the round trip first rises clearly above the
// smallest working set's) as a dashed line of that colour. The bars leave these rows out: a
// curve reads where 16 bars per machine did not.
class MachineWsPlot : public QWidget {
    Q_OBJECT
public:
    explicit MachineWsPlot(QWidget* parent = nullptr);

    // `knees`: per machine of the comparison, its knee in bytes (none: no knee, or no survey).
    void setComparison(const MachineComparison* comparison, const std::vector<std::optional<std::uint64_t>>& knees);
    // Whether the comparison has working-set rows to draw.
    bool hasCurves() const { return !m_curves.empty(); }
    // The curve of machine `machine`; null when it has no working-set figures.
    QCPGraph* curve(std::size_t machine) const;
    // The knee drawn for machine `machine`, in bytes (none when none is drawn).
    std::optional<std::uint64_t> kneeDrawn(std::size_t machine) const;
    QCustomPlot* plot() const { return m_plot; }
    void restyle();

protected:
    // Its own palette or font changed (the dark palette, presentation's type; a hidden tab's once shown).
    void changeEvent(QEvent* event) override;

private:
    void rebuild();

    QCustomPlot* m_plot = nullptr;
    const MachineComparison* m_comparison = nullptr; // the view's, which outlives each call
    std::vector<std::optional<std::uint64_t>> m_knees;
    std::vector<QCPGraph*> m_curves; // per machine, null where it has none; empty: nothing to draw
    std::vector<std::optional<std::uint64_t>> m_kneesDrawn;
};

} // namespace ctxscope::gui
