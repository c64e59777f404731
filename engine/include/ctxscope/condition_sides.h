// SPDX-License-Identifier: MIT
// A conditioned run measured as an A/B (run --keep-awake, --pm-qos-us, and the worker's run of a
// spec with keep_awake or pm_qos_us): the one policy both follow, so the CLI and the app measure
// the same sides in the same order and weigh them the same way.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/lesson.h"
#include "ctxscope/result.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace ctxscope {

// The sides of a spec, in the order they are measured: with a condition, the spec as is (its
// conditions cleared), then the spec itself; without one, the spec alone.
std::vector<BenchSpec> conditionSides(const BenchSpec& spec);

// What a condition's A/B refuses before anything runs, in the CLI's words: a working set, a PM
// QoS hold this process may not take. Nothing for a spec without a condition.
Status checkConditionSides(const BenchSpec& spec);

struct SidesMeasured {
    std::vector<RunResult> results; // one per side, in order
    std::optional<ConditionAb> ab; // with two sides: the condition's side against the one as is
};

// Each side measured by `measure(side, index)` (the caller's run: traced or not, printed or
// streamed), in order; the first error ends it and is returned.
Expected<SidesMeasured> measureSides(
    const BenchSpec& spec, const std::function<Expected<RunResult>(const BenchSpec& side, std::size_t index)>& measure);

} // namespace ctxscope
