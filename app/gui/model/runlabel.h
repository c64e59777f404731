// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/result.h"

#include <QString>

#include <optional>
#include <vector>

namespace ctxscope::gui {

// "futex · thread · same-pu (0,0)": how legends and messages name a run.
QString runLabel(
    std::string_view bench, BenchMode mode, std::optional<Relation> relation, const std::vector<int>& cpus);
QString runLabel(const RunResult& result);

} // namespace ctxscope::gui
