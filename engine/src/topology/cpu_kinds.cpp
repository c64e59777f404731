// SPDX-License-Identifier: MIT
// hwloc's CPU kinds read into the model, and the names people use for them.
#include "topology_impl.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ctxscope {

namespace {

int frequencyOf(const char* text)
{
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    return end != text && v > 0 && v < 1'000'000 ? static_cast<int>(v) : 0;
}

} // namespace

void nameCpuKinds(std::vector<CpuKind>& kinds)
{
    // Two kinds that hwloc ranked: the more performant is the P-core (hwloc's "efficiency" grows
    // with performance), whatever the vendor calls them.
    if (kinds.size() == 2 && kinds[0].efficiency >= 0 && kinds[1].efficiency >= 0
        && kinds[0].efficiency != kinds[1].efficiency) {
        const bool firstFaster = kinds[0].efficiency > kinds[1].efficiency;
        kinds[firstFaster ? 0 : 1].name = "P-core";
        kinds[firstFaster ? 0 : 1].shortName = "P";
        kinds[firstFaster ? 1 : 0].name = "E-core";
        kinds[firstFaster ? 1 : 0].shortName = "E";
        return;
    }
    for (auto& k : kinds) {
        const bool unique = !k.coreType.empty() && std::count_if(kinds.begin(), kinds.end(), [&](const CpuKind& o) {
            return o.coreType == k.coreType;
        }) == 1;
        k.name = unique ? k.coreType : "kind " + std::to_string(k.index);
        k.shortName = k.name;
    }
}

std::vector<CpuKind> readCpuKinds(hwloc_topology_t t)
{
    std::vector<CpuKind> kinds;
    const int n = hwloc_cpukinds_get_nr(t, 0);
    HwlocBitmap set(hwloc_bitmap_alloc());
    if (n <= 0 || !set)
        return kinds;
    for (int i = 0; i < n; ++i) {
        CpuKind kind;
        unsigned nInfos = 0;
        hwloc_info_s* infos = nullptr;
        if (hwloc_cpukinds_get_info(t, static_cast<unsigned>(i), set.get(), &kind.efficiency, &nInfos, &infos, 0) != 0)
            continue;
        for (unsigned j = 0; j < nInfos; ++j) {
            if (!infos[j].name || !infos[j].value)
                continue;
            if (std::strcmp(infos[j].name, "CoreType") == 0)
                kind.coreType = infos[j].value;
            else if (std::strcmp(infos[j].name, "FrequencyMaxMHz") == 0)
                kind.frequencyMaxMhz = frequencyOf(infos[j].value);
        }
        kind.pus = bitmapToVector(set.get());
        kind.index = static_cast<int>(kinds.size()); // the model's index, kinds.at(index)
        kinds.push_back(std::move(kind));
    }
    nameCpuKinds(kinds);
    return kinds;
}

} // namespace ctxscope
