// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/budget.h"
#include "ctxscope/placement.h"
#include "ctxscope/result.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <optional>
#include <stop_token>
#include <string_view>
#include <vector>

namespace ctxscope {

// A PU x PU map of the median round trip of a two-task benchmark (futex, pipe, yield).
// With classes, one representative pair per relation class is measured and its value fills
// every pair of that class (marked as filled); with all pairs, every pair is measured.
enum class MatrixMode { Classes, AllPairs };

struct MatrixCell {
    int a = 0;
    int b = 0;
    Relation relation = Relation::SamePu;
    double medianNs = 0; // per op (round trip)
    std::optional<double> perSwitchNs;
    bool measured = false; // false: filled from its class's representative
};

struct MatrixResult {
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    MatrixMode matrixMode = MatrixMode::Classes;
    std::vector<int> pus; // the allowed PUs, rows and columns
    std::vector<MatrixCell> cells; // a <= b
    std::vector<RunResult> runs; // what was measured
    std::vector<std::string> failures;

    const MatrixCell* cell(int a, int b) const;
};

struct MatrixProgress {
    int run = 0;
    int runs = 0;
    int a = 0;
    int b = 0;
    double fraction = 0;
    // Once the pair is done (fraction (run + 1) / runs): its result, or why it failed.
    const RunResult* finished = nullptr;
    std::string_view failure;
};

Expected<MatrixResult> runMatrix(const std::string& bench, BenchMode mode, MatrixMode matrixMode,
    const Topology& topology, const RunBudget& options, const std::function<void(const MatrixProgress&)>& progress = {},
    std::stop_token stop = {});

// One cell: {"cpus": [a, b], "relation", "median_ns", "per_switch_ns" (or null), "measured"}.
nlohmann::json matrixCellToJson(const MatrixCell& cell);
// The matrix itself (pus, cells, failures); the measured runs go into a results file's
// "benchmarks" array beside it.
nlohmann::json matrixToJson(const MatrixResult& matrix);

} // namespace ctxscope
