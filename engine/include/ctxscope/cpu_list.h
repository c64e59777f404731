// SPDX-License-Identifier: MIT
// CPU lists as taskset, cpusets and /proc write them ("0-3,5"). Kept apart from the topology
// so that the readers of /proc (os/) can parse them without depending on it.
#pragma once

#include "ctxscope/expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

// "0-3,5,7-8" for {0,1,2,3,5,7,8}, as taskset and cpusets write it.
std::string formatCpuList(const std::vector<int>& cpus);
// The inverse; rejects anything that is not a list of non-negative numbers and ranges.
Expected<std::vector<int>> parseCpuList(std::string_view text);

} // namespace ctxscope
