// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/matrix.h"
#include "ctxscope/topology.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace ctxscope::gui {

enum class HeatValue { RoundTrip, PerSwitch };

// Adds the cells a worker left out of a large matrix ("filled_omitted"): every pair of its
// PUs without a cell gets the value of the measured cell of its relation class.
void fillFromClasses(MatrixResult& matrix, const Topology& topology);

// A matrix laid out as a dense square grid for QCPColorMap: row and column i are pus[i].
// Built once per matrix in O(cells), so 256 PUs (65536 cells) stay instant.
class HeatmapGrid {
public:
    HeatmapGrid() = default;
    HeatmapGrid(std::shared_ptr<const MatrixResult> matrix, HeatValue value);

    int size() const { return static_cast<int>(m_pus.size()); }
    const std::vector<int>& pus() const { return m_pus; }
    // The cell at column x, row y (both orders of a pair give the same cell); null outside
    // the grid or where the matrix has nothing.
    const MatrixCell* cellAt(int x, int y) const;
    std::optional<double> valueAt(int x, int y) const;
    int indexOfPu(int osIndex) const; // -1 when absent
    double minValue() const { return m_min; }
    double maxValue() const { return m_max; }
    const MatrixResult* matrix() const { return m_matrix.get(); }
    HeatValue value() const { return m_value; }

private:
    std::shared_ptr<const MatrixResult> m_matrix;
    HeatValue m_value = HeatValue::RoundTrip;
    std::vector<int> m_pus;
    std::vector<int> m_cellIndex; // size()^2, -1 for none
    double m_min = 0;
    double m_max = 0;
};

} // namespace ctxscope::gui
