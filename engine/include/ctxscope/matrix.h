// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/budget.h"
#include "ctxscope/placement.h"
#include "ctxscope/result.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

// A PU x PU map of the median round trip of a two-task benchmark (spin, spin-futex, futex,
// pipe, yield). With classes, one representative pair per relation class is measured and its
// value fills every pair of that class (marked as filled); with all pairs, every pair is
// measured (busy-waiting benchmarks leave out the same-PU diagonal, which they refuse).
enum class MatrixMode { Classes, AllPairs };

// All pairs: up to this many allowed PUs (524,800 pairs at 1024).
inline constexpr std::size_t kMatrixMaxPus = 1024;
// All pairs: each pair starts with a short run (its own calibration included); while the
// medians of its repetitions disagree by more than kMatrixStableCv, it runs again with twice
// the time, up to kMatrixMaxAttempts runs. The steadiest run is kept.
inline constexpr double kAllPairsMinTimeSeconds = 0.002;
inline constexpr double kMatrixStableCv = 0.05;
inline constexpr int kMatrixMaxAttempts = 4;

struct MatrixCell {
    int a = 0;
    int b = 0;
    Relation relation = Relation::SamePu;
    double medianNs = 0; // per op (round trip)
    std::optional<double> perSwitchNs;
    bool measured = false; // false: filled from its class's representative
    std::optional<double> oneWayNs; // one hand-over (median / hand-overs per op), see BenchInfo
};

struct MatrixResult {
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    MatrixMode matrixMode = MatrixMode::Classes;
    std::vector<int> pus; // the allowed PUs, rows and columns
    std::vector<MatrixCell> cells; // a <= b
    std::vector<RunResult> runs; // what was measured
    std::vector<std::string> failures;
    bool cancelled = false; // stopped before every pair was measured; the cells hold what finished

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
    // Once the first pair is done: its wall time times the pairs, in seconds (0 before).
    double estimateSeconds = 0;
    int attempts = 1; // runs of this pair so far (all pairs: more while it is unstable)
};

// The cell of pair a, b from a run of it (or of its class's representative).
MatrixCell matrixCellOf(int a, int b, const RunResult& run, bool measured);

// Cancelling keeps the finished pairs: the result has cancelled set and the cells measured so far.
Expected<MatrixResult> runMatrix(const std::string& bench, BenchMode mode, MatrixMode matrixMode,
    const Topology& topology, const RunBudget& options, const std::function<void(const MatrixProgress&)>& progress = {},
    std::stop_token stop = {});
// What runMatrix does once it knows its pairs: measures them in this order. tests/perf gives it
// one pair many times to time a pair of a large matrix on a small machine.
Expected<MatrixResult> runMatrixPairs(const std::string& bench, BenchMode mode, MatrixMode matrixMode,
    const Topology& topology, const std::vector<PuPair>& pairs, const RunBudget& options,
    const std::function<void(const MatrixProgress&)>& progress = {}, std::stop_token stop = {});

// One cell: {"cpus": [a, b], "relation", "median_ns", "per_switch_ns" (or null), "measured"}.
nlohmann::json matrixCellToJson(const MatrixCell& cell);
// The matrix itself (pus, cells, failures); the measured runs go into a results file's
// "benchmarks" array beside it.
nlohmann::json matrixToJson(const MatrixResult& matrix);

// A square CSV: `#` lines of context (each line of `context`, then what a cell holds), a
// header row of the PUs' P# numbers, then one row per PU: its number and the one-way ns to each
// column's PU, empty where the pair was neither measured nor filled. The corner cell is "pu"
// (no '#', which comment-stripping readers would cut the header row at).
std::string matrixToCsv(const MatrixResult& matrix, const std::vector<std::string>& context);

} // namespace ctxscope
