// SPDX-License-Identifier: MIT
#include "ctxscope/working_set.h"

#include <fstream>
#include <sstream>
#include <string>

namespace ctxscope {

std::optional<std::uint64_t> memAvailableBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        // "MemAvailable:   22841128 kB"
        if (line.rfind("MemAvailable:", 0) != 0)
            continue;
        std::istringstream fields(line.substr(13));
        std::uint64_t kib = 0;
        std::string unit;
        if (fields >> kib >> unit && unit == "kB")
            return kib * 1024;
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace ctxscope
