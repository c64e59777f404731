// SPDX-License-Identifier: MIT
#include "ctxscope/matrix.h"

#include "ctxscope/runner.h"

#include <chrono>
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

MatrixCell matrixCellOf(int a, int b, const RunResult& r, bool measured)
{
    return MatrixCell { a, b, r.placement.relation, r.stats.p50, r.perSwitchNs, measured, r.perHandoffNs };
}

namespace {

Expected<const BenchInfo*> matrixBench(const std::string& bench)
{
    const BenchInfo* info = findBenchmark(bench);
    if (!info)
        return makeError("unknown benchmark '" + bench + "'");
    if (info->minTasks != 2 || info->maxTasks != 2)
        return makeError("a matrix needs a two-task benchmark (spin, spin-futex, futex, pipe or yield), not " + bench);
    return info;
}

// The pairs to measure. All pairs: every pair of allowed PUs (a <= b), without the same-PU
// diagonal for a busy-waiting benchmark, which refuses it.
Expected<std::vector<PuPair>> pairsToRun(const BenchInfo& info, MatrixMode mode, const Topology& topology)
{
    if (mode == MatrixMode::Classes) {
        std::vector<PuPair> pairs = representativePairs(topology);
        std::erase_if(pairs, [&](const PuPair& p) { return info.busyWait && p.relation == Relation::SamePu; });
        return pairs;
    }
    auto pairs = allPairs(topology, kMatrixMaxPus);
    if (!pairs)
        return makeError(pairs.error().message + "; use --classes");
    std::erase_if(*pairs, [&](const PuPair& p) { return info.busyWait && p.a == p.b; });
    return pairs;
}

// All pairs: short runs, repeated with twice the time while the repetitions disagree; the
// steadiest run is kept. Classes: one run with the caller's budget.
Expected<RunResult> measurePair(BenchSpec spec, MatrixMode mode, const Topology& topology,
    const RunCallbacks& callbacks, std::stop_token stop, RunContext& context, int& attempts)
{
    std::optional<RunResult> best;
    const int maxAttempts = mode == MatrixMode::AllPairs ? kMatrixMaxAttempts : 1;
    for (attempts = 1;; ++attempts) {
        auto r = runBenchmark(spec, topology, callbacks, stop, &context);
        if (!r)
            return r;
        // The matrix keeps many runs: their raw samples would cost more memory than they tell.
        r->samples = {};
        r->samples.shrink_to_fit();
        if (!best || r->repetitionCv < best->repetitionCv)
            best = std::move(*r);
        if (best->repetitionCv <= kMatrixStableCv || attempts >= maxAttempts || stop.stop_requested())
            break;
        spec.minTimeSeconds *= 2;
    }
    if (attempts > 1 && best->repetitionCv > kMatrixStableCv)
        best->warnings.push_back(fmt::format("The pair stayed unstable over {} runs (repetition CV {:.1f}%); this is "
                                             "the steadiest.",
            attempts, best->repetitionCv * 100));
    return std::move(*best);
}

} // namespace

Expected<MatrixResult> runMatrix(const std::string& bench, BenchMode mode, MatrixMode matrixMode,
    const Topology& topology, const RunBudget& options, const std::function<void(const MatrixProgress&)>& progress,
    std::stop_token stop)
{
    auto info = matrixBench(bench);
    if (!info)
        return info.error();
    auto toRun = pairsToRun(**info, matrixMode, topology);
    if (!toRun)
        return toRun.error();
    return runMatrixPairs(bench, mode, matrixMode, topology, *toRun, options, progress, std::move(stop));
}

Expected<MatrixResult> runMatrixPairs(const std::string& bench, BenchMode mode, MatrixMode matrixMode,
    const Topology& topology, const std::vector<PuPair>& toRun, const RunBudget& options,
    const std::function<void(const MatrixProgress&)>& progress, std::stop_token stop)
{
    if (auto info = matrixBench(bench); !info)
        return info.error();
    MatrixResult out;
    out.bench = bench;
    out.mode = mode;
    out.matrixMode = matrixMode;
    out.pus = topology.allowedPus();
    std::map<std::pair<int, int>, std::size_t> measuredAt; // pair -> index in runs
    // A class's measured pair, per kind pair on a hybrid machine ("" elsewhere).
    std::map<std::pair<Relation, std::string>, std::size_t> byClass;
    const int n = static_cast<int>(toRun.size());
    const auto started = std::chrono::steady_clock::now();
    double estimate = 0;
    RunContext context; // what the pairs share: the machine's caveats, read once; the CPUs pinned so far
    context.nameInterferingTasks = false; // thousands of runs: no scan of every task per pair
    for (int i = 0; i < n && !out.cancelled; ++i) {
        const PuPair& p = toRun[static_cast<std::size_t>(i)];
        BenchSpec spec;
        spec.bench = bench;
        spec.mode = mode;
        spec.cpus = { p.a, p.b };
        spec.minTimeSeconds = options.minTimeSeconds;
        spec.repetitions = options.repetitions;
        int attempts = 1;
        RunCallbacks callbacks;
        if (progress) {
            progress(MatrixProgress { i, n, p.a, p.b, static_cast<double>(i) / n, nullptr, {}, estimate, attempts });
            callbacks.progress = [&](const Progress& pr) {
                progress(MatrixProgress { i, n, p.a, p.b, (i + pr.fraction) / n, nullptr, {}, estimate, attempts });
            };
        }
        auto r = measurePair(spec, matrixMode, topology, callbacks, stop, context, attempts);
        if (stop.stop_requested()) {
            out.cancelled = true; // this pair did not finish; the ones before it did
            break;
        }
        if (i == 0)
            estimate = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() * n;
        const double done = static_cast<double>(i + 1) / n;
        if (!r) {
            out.failures.push_back(fmt::format("CPUs {},{}: {}", p.a, p.b, r.error().message));
            if (progress)
                progress(MatrixProgress { i, n, p.a, p.b, done, nullptr, out.failures.back(), estimate, attempts });
            continue;
        }
        measuredAt[{ p.a, p.b }] = out.runs.size();
        byClass.emplace(std::pair { p.relation, p.kinds }, out.runs.size());
        out.runs.push_back(std::move(*r));
        if (progress)
            progress(MatrixProgress { i, n, p.a, p.b, done, &out.runs.back(), {}, estimate, attempts });
    }
    // Every cell of the matrix, with its class: measured, or filled from its class's pair.
    const std::vector<int>& usable = out.pus;
    for (std::size_t i = 0; i < usable.size(); ++i) {
        for (std::size_t j = i; j < usable.size(); ++j) {
            const int a = usable[i];
            const int b = usable[j];
            std::size_t index = 0;
            bool measured = false;
            if (auto it = measuredAt.find({ a, b }); it != measuredAt.end()) {
                index = it->second;
                measured = true;
            } else if (matrixMode == MatrixMode::AllPairs) {
                continue; // all pairs fills nothing: an unmeasured pair stays empty
            } else if (auto rel = relationOf(topology, a, b)) {
                auto c = byClass.find({ *rel, kindsText(topology, a == b ? std::vector { a } : std::vector { a, b }) });
                if (c == byClass.end())
                    continue; // its class could not be measured
                index = c->second;
            } else {
                continue;
            }
            out.cells.push_back(matrixCellOf(a, b, out.runs[index], measured));
        }
    }
    return out;
}

nlohmann::json matrixCellToJson(const MatrixCell& c)
{
    const auto orNull = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    return { { "cpus", { c.a, c.b } }, { "relation", std::string(toString(c.relation)) }, { "median_ns", c.medianNs },
        { "per_switch_ns", orNull(c.perSwitchNs) }, { "one_way_ns", orNull(c.oneWayNs) }, { "measured", c.measured } };
}

nlohmann::json matrixToJson(const MatrixResult& m)
{
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& c : m.cells)
        cells.push_back(matrixCellToJson(c));
    nlohmann::json j { { "bench", m.bench }, { "mode", std::string(toString(m.mode)) },
        { "fill", m.matrixMode == MatrixMode::Classes ? "classes" : "all-pairs" }, { "pus", m.pus },
        { "cells", std::move(cells) }, { "failures", m.failures } };
    if (m.cancelled)
        j["cancelled"] = true;
    return j;
}

} // namespace ctxscope
