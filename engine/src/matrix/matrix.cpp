// SPDX-License-Identifier: MIT
#include "ctxscope/matrix.h"

#include "ctxscope/runner.h"

#include <fmt/core.h>
#include <map>
#include <nlohmann/json.hpp>

namespace ctxscope {

const MatrixCell* MatrixResult::cell(int a, int b) const
{
    if (a > b)
        std::swap(a, b);
    for (const auto& c : cells)
        if (c.a == a && c.b == b)
            return &c;
    return nullptr;
}

Expected<MatrixResult> runMatrix(const std::string& bench, BenchMode mode, MatrixMode matrixMode,
    const Topology& topology, const RunBudget& options, const std::function<void(const MatrixProgress&)>& progress,
    std::stop_token stop)
{
    const BenchInfo* info = findBenchmark(bench);
    if (!info)
        return makeError("unknown benchmark '" + bench + "'");
    if (info->minTasks != 2 || info->maxTasks != 2)
        return makeError("a matrix needs a two-task benchmark (futex, pipe or yield), not " + bench);
    // Every cell of the matrix, with its class (cheap even for 256 PUs: no measuring here).
    std::vector<PuPair> all;
    const std::vector<int> usable = topology.allowedPus();
    for (std::size_t i = 0; i < usable.size(); ++i)
        for (std::size_t j = i; j < usable.size(); ++j)
            if (auto rel = relationOf(topology, usable[i], usable[j]))
                all.push_back(PuPair { usable[i], usable[j], *rel });
    std::vector<PuPair> toRun;
    if (matrixMode == MatrixMode::AllPairs) {
        auto pairs = allPairs(topology); // refuses machines too large to measure pair by pair
        if (!pairs)
            return makeError(pairs.error().message + "; use --classes");
        toRun = std::move(*pairs);
    } else {
        toRun = representativePairs(topology);
    }

    MatrixResult out;
    out.bench = bench;
    out.mode = mode;
    out.matrixMode = matrixMode;
    out.pus = topology.allowedPus();
    std::map<std::pair<int, int>, std::size_t> measuredAt; // pair -> index in runs
    std::map<Relation, std::size_t> byClass;
    const int n = static_cast<int>(toRun.size());
    for (int i = 0; i < n; ++i) {
        const PuPair& p = toRun[static_cast<std::size_t>(i)];
        BenchSpec spec;
        spec.bench = bench;
        spec.mode = mode;
        spec.cpus = { p.a, p.b };
        spec.minTimeSeconds = options.minTimeSeconds;
        spec.repetitions = options.repetitions;
        RunCallbacks callbacks;
        if (progress) {
            progress(MatrixProgress { i, n, p.a, p.b, static_cast<double>(i) / n, nullptr, {} });
            callbacks.progress = [&](const Progress& pr) {
                progress(MatrixProgress { i, n, p.a, p.b, (i + pr.fraction) / n, nullptr, {} });
            };
        }
        auto r = runBenchmark(spec, topology, callbacks, stop);
        if (stop.stop_requested())
            return makeError("the matrix was cancelled");
        const double done = static_cast<double>(i + 1) / n;
        if (!r) {
            out.failures.push_back(fmt::format("CPUs {},{}: {}", p.a, p.b, r.error().message));
            if (progress)
                progress(MatrixProgress { i, n, p.a, p.b, done, nullptr, out.failures.back() });
            continue;
        }
        measuredAt[{ p.a, p.b }] = out.runs.size();
        byClass.emplace(p.relation, out.runs.size());
        out.runs.push_back(std::move(*r));
        if (progress)
            progress(MatrixProgress { i, n, p.a, p.b, done, &out.runs.back(), {} });
    }
    for (const PuPair& p : all) {
        auto it = measuredAt.find({ p.a, p.b });
        const bool measured = it != measuredAt.end();
        std::size_t index = 0;
        if (measured)
            index = it->second;
        else if (auto c = byClass.find(p.relation); c != byClass.end())
            index = c->second;
        else
            continue; // its class could not be measured
        const RunResult& r = out.runs[index];
        out.cells.push_back(MatrixCell { p.a, p.b, p.relation, r.stats.p50, r.perSwitchNs, measured });
    }
    return out;
}

nlohmann::json matrixCellToJson(const MatrixCell& c)
{
    return { { "cpus", { c.a, c.b } }, { "relation", std::string(toString(c.relation)) }, { "median_ns", c.medianNs },
        { "per_switch_ns", c.perSwitchNs ? nlohmann::json(*c.perSwitchNs) : nlohmann::json(nullptr) },
        { "measured", c.measured } };
}

nlohmann::json matrixToJson(const MatrixResult& m)
{
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& c : m.cells)
        cells.push_back(matrixCellToJson(c));
    return { { "bench", m.bench }, { "mode", std::string(toString(m.mode)) },
        { "fill", m.matrixMode == MatrixMode::Classes ? "classes" : "all-pairs" }, { "pus", m.pus },
        { "cells", std::move(cells) }, { "failures", m.failures } };
}

} // namespace ctxscope
