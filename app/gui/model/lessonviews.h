// SPDX-License-Identifier: MIT
#pragma once

#include "workingsetdata.h"

#include "ctxscope/result.h"

#include <QString>

#include <memory>
#include <string_view>
#include <vector>

namespace ctxscope::gui {

// The view that shows a lesson's point (a PlotsView::viewNames() entry): the ladder for
// mode-switch and coroutines, working-set curves for cache-pollution, the distributions
// for the placement and thread/process lessons.
QString lessonView(std::string_view lessonId);

// The cache-pollution lesson's runs as working-set curves: each futex run with a working
// set paired with the touch run of the same size (same-pu, then the farthest class), the
// switch cost derived as the engine derives it. Empty for other lessons.
std::vector<std::shared_ptr<const SweepCurves>> lessonSweeps(
    std::string_view lessonId, const std::vector<RunResult>& results, const std::vector<CacheInfo>& caches);

} // namespace ctxscope::gui
