// SPDX-License-Identifier: MIT
// The matrix as a square CSV a spreadsheet or numpy.loadtxt(comments='#') reads.
#include "ctxscope/matrix.h"

#include <fmt/core.h>
#include <unordered_map>

namespace ctxscope {

std::string matrixToCsv(const MatrixResult& m, const std::vector<std::string>& context)
{
    std::string out;
    for (const std::string& line : context)
        out += "# " + line + "\n";
    out += fmt::format("# {} matrix, {} mode, {}{}\n", m.bench, toString(m.mode),
        m.matrixMode == MatrixMode::AllPairs ? "every pair measured" : "one pair per class measured, the rest filled",
        m.cancelled ? "; cancelled before the end, so some cells are empty" : "");
    out += "# cell: one-way hand-over in ns (median round trip / hand-overs per op) between the row's and the "
           "column's PU; empty: not measured nor filled, or no hand-over (yield on two PUs)\n";
    // Rows and columns by PU; the matrix is symmetric, so each cell fills both halves.
    std::unordered_map<int, std::size_t> at;
    for (std::size_t i = 0; i < m.pus.size(); ++i)
        at.emplace(m.pus[i], i);
    const std::size_t n = m.pus.size();
    std::vector<std::string> grid(n * n);
    for (const MatrixCell& c : m.cells) {
        const auto a = at.find(c.a);
        const auto b = at.find(c.b);
        if (a == at.end() || b == at.end() || !c.oneWayNs)
            continue;
        const std::string v = fmt::format("{:.1f}", *c.oneWayNs);
        grid[a->second * n + b->second] = v;
        grid[b->second * n + a->second] = v;
    }
    // The corner says what the header row and the first column hold: P# numbers. It is not
    // "P#", because readers that strip comments from '#' on would cut the header row short.
    out += "pu";
    for (int pu : m.pus)
        out += fmt::format(",{}", pu);
    out += "\n";
    for (std::size_t i = 0; i < n; ++i) {
        out += std::to_string(m.pus[i]);
        for (std::size_t j = 0; j < n; ++j)
            out += "," + grid[i * n + j];
        out += "\n";
    }
    return out;
}

} // namespace ctxscope
