// SPDX-License-Identifier: MIT
// What one pair of `matrix spin --all-pairs` costs, end to end: its calibration, its short
// repetitions, its re-runs while they disagree, its self-checks and the runner's setup. A
// machine with two PUs has one pair, so the matrix here is one pair (the first two allowed PUs)
// repeated --pairs times (default 100) through runMatrixPairs, the loop runMatrix runs. Prints
// the wall time per pair, the share of it spent in measured repetitions, the runs per pair, and
// that time times 8,128 (the pairs of 128 PUs), stated as such. Goal: 8,128 pairs in <= 180 s.
// With `--json FILE` writes the figures. Exit 0 when the goal holds, 1 when not, 2 when it
// could not run (fewer than two CPUs, say).
#include "ctxscope/matrix.h"
#include "perf_util.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>

using namespace ctxscope;

namespace {

constexpr double kPairsOf128 = 128.0 * 127 / 2; // 8,128
constexpr double kGoalSeconds = 180;

} // namespace

int main(int argc, char** argv)
{
    std::optional<std::string> jsonPath;
    int pairs = 100;
    std::string bench = "spin";
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        if (arg == "--json" && i + 1 < argc) {
            jsonPath = argv[++i];
        } else if (arg == "--pairs" && i + 1 < argc) {
            pairs = std::atoi(argv[++i]);
        } else if (arg == "--bench" && i + 1 < argc) {
            bench = argv[++i];
        } else {
            fmt::print(stderr, "usage: perf_matrix [--pairs N] [--bench NAME] [--json FILE]\n");
            return 2;
        }
    }
    auto topology = Topology::loadLive();
    if (!topology || topology->allowedPus().size() < 2 || pairs < 1) {
        fmt::print(stderr, "perf_matrix: needs two allowed CPUs and --pairs >= 1\n");
        return 2;
    }
    const int a = topology->allowedPus()[0];
    const int b = topology->allowedPus()[1];
    const auto relation = relationOf(*topology, a, b);
    const std::vector<PuPair> repeated(
        static_cast<std::size_t>(pairs), PuPair { a, b, relation ? *relation : Relation::SamePu, {} });
    int runs = 0;
    auto progress = [&](const MatrixProgress& p) {
        if (p.finished || !p.failure.empty())
            runs += p.attempts;
    };
    const double started = perf::nowNs();
    auto m = runMatrixPairs(bench, BenchMode::Thread, MatrixMode::AllPairs, *topology, repeated,
        RunBudget { kAllPairsMinTimeSeconds, 3 }, progress);
    const double wallS = (perf::nowNs() - started) / 1e9;
    if (!m || m->runs.empty()) {
        fmt::print(stderr, "perf_matrix: {}\n", m ? "no pair finished" : m.error().message);
        return 2;
    }
    // The measured repetitions of the kept runs (the re-runs of an unstable pair are left out,
    // so this is a floor): iterations x repetitions x mean ns per op.
    double measuringS = 0;
    for (const RunResult& r : m->runs)
        measuringS += static_cast<double>(r.iterations) * r.repetitions * r.stats.mean / 1e9;
    const double perPairS = wallS / pairs;
    const double projected = perPairS * kPairsOf128;
    const bool met = projected <= kGoalSeconds;
    fmt::print("perf_matrix: {} --all-pairs, CPUs {},{} repeated {} times ({} failed)\n", bench, a, b, pairs,
        m->failures.size());
    fmt::print("  per pair {:.1f} ms (measured repetitions >= {:.1f} ms of it), {:.2f} runs per pair\n", perPairS * 1e3,
        measuringS / pairs * 1e3, static_cast<double>(runs) / pairs);
    fmt::print("  x 8,128 pairs (128 PUs) = {:.0f} s, goal <= {:.0f} s: {}\n", projected, kGoalSeconds,
        met ? "met" : "MISSED");
    if (jsonPath) {
        const nlohmann::json report { { "bench", bench }, { "cpus", { a, b } }, { "pairs", pairs },
            { "failed", m->failures.size() }, { "per_pair_ms", perPairS * 1e3 },
            { "measuring_ms_per_pair", measuringS / pairs * 1e3 },
            { "runs_per_pair", static_cast<double>(runs) / pairs }, { "projected_8128_s", projected },
            { "goal_s", kGoalSeconds }, { "met", met } };
        std::ofstream out(*jsonPath);
        out << report.dump(2) << '\n';
        if (!out) {
            fmt::print(stderr, "perf_matrix: could not write {}\n", *jsonPath);
            return 2;
        }
    }
    return met ? 0 : 1;
}
