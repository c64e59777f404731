// SPDX-License-Identifier: MIT
#pragma once

#include <set>

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

namespace ctxscope::run {

// checkSpec, also telling whether SCHED_FIFO is permitted (probed in the same thread that
// tries the pins).
// CPUs in `pinned` were pinned by an earlier run and are not probed again.
Expected<Placement> checkSpecAndProbe(
    const BenchSpec& spec, const Topology& topology, bool* fifoAllowed, const std::set<int>* pinned = nullptr);

} // namespace ctxscope::run
