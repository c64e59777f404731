// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

namespace ctxscope::run {

// checkSpec, also telling whether SCHED_FIFO is permitted (probed in the same thread that
// tries the pins).
Expected<Placement> checkSpecAndProbe(const BenchSpec& spec, const Topology& topology, bool* fifoAllowed);

} // namespace ctxscope::run
