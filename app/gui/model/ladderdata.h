// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"

#include <QString>

#include <memory>
#include <vector>

namespace ctxscope::gui {

// One bar of the ladder: the latest run of one benchmark.
struct LadderRung {
    QString bench;
    QString label; // the bar's text: ns per op and switches per op
    QString detail; // mode and placement of the run the bar shows
    double nsPerOp = 0; // median
    double switchesPerOp = 0;
    bool userSpace = false; // coroutine switches, which the kernel never sees
};

// The latest run of each benchmark (ring runs and working-set runs are left out: they are
// not one rung of the same ladder), cheapest first.
std::vector<LadderRung> ladderRungs(const std::vector<std::shared_ptr<const RunResult>>& runs);

} // namespace ctxscope::gui
