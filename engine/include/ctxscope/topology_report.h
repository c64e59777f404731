// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ctxscope {

// An lstopo-no-graphics style tree, then the allowed and affinity sets and one
// representative PU pair per relation class.
std::string describeTopology(const Topology& topology);

// The model as JSON: tree, pus, caches, numa nodes, sets, representative pairs.
nlohmann::json topologyToJson(const Topology& topology);

} // namespace ctxscope
