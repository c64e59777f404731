// SPDX-License-Identifier: MIT
#include "heatmapdata.h"

#include "ctxscope/placement.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace ctxscope::gui {

void fillFromClasses(MatrixResult& matrix, const Topology& topology)
{
    std::map<Relation, MatrixCell> measured;
    std::set<std::pair<int, int>> present;
    for (const MatrixCell& c : matrix.cells) {
        present.insert({ c.a, c.b });
        if (c.measured)
            measured.emplace(c.relation, c);
    }
    for (std::size_t i = 0; i < matrix.pus.size(); ++i)
        for (std::size_t j = i; j < matrix.pus.size(); ++j) {
            const int a = matrix.pus[i], b = matrix.pus[j];
            if (present.count({ a, b }))
                continue;
            const auto relation = relationOf(topology, a, b);
            const auto from = relation ? measured.find(*relation) : measured.end();
            if (from == measured.end())
                continue;
            MatrixCell cell = from->second;
            cell.a = a;
            cell.b = b;
            cell.measured = false;
            matrix.cells.push_back(cell);
        }
}

HeatmapGrid::HeatmapGrid(std::shared_ptr<const MatrixResult> matrix, HeatValue value)
    : m_matrix(std::move(matrix))
    , m_value(value)
{
    if (!m_matrix)
        return;
    m_pus = m_matrix->pus;
    const std::size_t n = m_pus.size();
    m_cellIndex.assign(n * n, -1);
    std::unordered_map<int, std::size_t> index;
    for (std::size_t i = 0; i < n; ++i)
        index.emplace(m_pus[i], i);
    m_min = std::numeric_limits<double>::max();
    m_max = 0;
    for (std::size_t c = 0; c < m_matrix->cells.size(); ++c) {
        const MatrixCell& cell = m_matrix->cells[c];
        const auto a = index.find(cell.a);
        const auto b = index.find(cell.b);
        if (a == index.end() || b == index.end())
            continue;
        m_cellIndex[a->second * n + b->second] = static_cast<int>(c);
        m_cellIndex[b->second * n + a->second] = static_cast<int>(c);
        if (const auto v = valueAt(static_cast<int>(a->second), static_cast<int>(b->second))) {
            m_min = std::min(m_min, *v);
            m_max = std::max(m_max, *v);
        }
    }
    if (m_max == 0)
        m_min = 0;
}

const MatrixCell* HeatmapGrid::cellAt(int x, int y) const
{
    const int n = size();
    if (x < 0 || y < 0 || x >= n || y >= n)
        return nullptr;
    const int c = m_cellIndex[static_cast<std::size_t>(y) * static_cast<std::size_t>(n) + static_cast<std::size_t>(x)];
    return c < 0 ? nullptr : &m_matrix->cells[static_cast<std::size_t>(c)];
}

std::optional<double> HeatmapGrid::valueAt(int x, int y) const
{
    const MatrixCell* cell = cellAt(x, y);
    if (!cell)
        return std::nullopt;
    if (m_value == HeatValue::PerSwitch)
        return cell->perSwitchNs;
    return cell->medianNs > 0 ? std::optional<double>(cell->medianNs) : std::nullopt;
}

int HeatmapGrid::indexOfPu(int osIndex) const
{
    const auto it = std::find(m_pus.begin(), m_pus.end(), osIndex);
    return it == m_pus.end() ? -1 : static_cast<int>(it - m_pus.begin());
}

} // namespace ctxscope::gui
