// SPDX-License-Identifier: MIT
// The NUMA node of a mapping's pages from /proc/self/numa_maps, for where move_pages(2) is
// refused (a container's seccomp profile allows it only with CAP_SYS_NICE).
#include "os/sys.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace ctxscope::sys {

std::optional<int> numaMapsNode(const void* mappingStart)
{
    std::ifstream in("/proc/self/numa_maps");
    char start[32];
    std::snprintf(
        start, sizeof start, "%lx", static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(mappingStart)));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string address;
        fields >> address;
        if (address != start)
            continue;
        // "7f2a4c000000 default file=/dev/zero\040(deleted) dirty=1 N0=1 kernelpagesize_kB=4":
        // one "N<node>=<pages>" per node that holds pages of it.
        std::optional<int> node;
        for (std::string field; fields >> field;) {
            const std::size_t equals = field.find('=');
            int n = -1;
            if (field.size() < 4 || field[0] != 'N' || equals == std::string::npos
                || std::from_chars(field.data() + 1, field.data() + equals, n).ptr != field.data() + equals)
                continue;
            if (node)
                return std::nullopt; // on two nodes: no one answer
            node = n;
        }
        return node;
    }
    return std::nullopt;
}

} // namespace ctxscope::sys
