// SPDX-License-Identifier: MIT
// Synthetic lesson results: what a step would have measured, built from repetition medians,
// so every lesson's conclusion can be checked without running a benchmark.
#pragma once

#include "ctxscope/result.h"
#include "ctxscope/stats.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope::test {

// A run whose repetitions have these medians; each repetition holds `perRep` samples spread
// evenly over +-jitter (relative) around its median, so quartiles and bootstraps have data.
inline RunResult synthRun(std::string bench, BenchMode mode, std::vector<int> cpus, Relation relation,
    std::vector<double> repMedians, double jitter = 0.01, int perRep = 41)
{
    RunResult r;
    r.bench = std::move(bench);
    r.spec.bench = r.bench;
    r.mode = mode;
    r.placement.cpus = std::move(cpus);
    r.placement.tasks = r.placement.cpus.empty() ? 2 : static_cast<int>(r.placement.cpus.size());
    r.placement.relation = relation;
    r.switchesPerOp = 2;
    r.repetitionMedians = repMedians;
    r.repetitions = static_cast<int>(repMedians.size());
    r.repetitionCv = repMedians.size() > 1 ? summarize(repMedians).cv : 0;
    for (double m : repMedians)
        for (int i = 0; i < perRep; ++i)
            r.samples.push_back(m * (1 + jitter * (2.0 * i / (perRep - 1) - 1)));
    r.totalSamples = r.samples.size();
    r.stats = summarize(r.samples);
    r.observed.cpusSeen = r.placement.cpus;
    if (relation == Relation::Unpinned)
        r.observed.cpusSeen = { 0, 1 };
    return r;
}

// Whether any of a conclusion's sentences holds `needle`.
inline bool anyContains(const std::vector<std::string>& sentences, std::string_view needle)
{
    return std::any_of(
        sentences.begin(), sentences.end(), [&](const std::string& s) { return s.find(needle) != std::string::npos; });
}

} // namespace ctxscope::test
