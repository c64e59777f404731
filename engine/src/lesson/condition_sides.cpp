// SPDX-License-Identifier: MIT
// A conditioned run's sides: as is, then with the condition; their A/B (condition_ab.cpp).
#include "ctxscope/condition_sides.h"

#include "ctxscope/runner.h"

namespace ctxscope {

std::vector<BenchSpec> conditionSides(const BenchSpec& spec)
{
    std::vector<BenchSpec> sides { spec };
    if (spec.conditioned()) {
        sides.front().keepAwakeCpus.clear();
        sides.front().pmQosUs.reset();
        sides.push_back(spec);
    }
    return sides;
}

Status checkConditionSides(const BenchSpec& spec)
{
    if (spec.conditioned() && spec.wsBytes > 0)
        return makeError("--keep-awake and --pm-qos-us do not take --ws: run the condition without a working set");
    if (spec.pmQosUs)
        return checkPmQos(*spec.pmQosUs);
    return {};
}

Expected<SidesMeasured> measureSides(
    const BenchSpec& spec, const std::function<Expected<RunResult>(const BenchSpec& side, std::size_t index)>& measure)
{
    SidesMeasured out;
    const std::vector<BenchSpec> sides = conditionSides(spec);
    for (std::size_t i = 0; i < sides.size(); ++i) {
        auto result = measure(sides[i], i);
        if (!result)
            return result.error();
        out.results.push_back(std::move(*result));
    }
    if (out.results.size() == 2)
        out.ab = compareCondition(out.results[0], out.results[1]);
    return out;
}

} // namespace ctxscope
