// SPDX-License-Identifier: MIT
// Synthetic descriptions: the pre-check must refuse everything libhwloc would crash or hang
// on, so whatever it lets through is built by hwloc and modelled without a crash.
#include "topology/synthetic_check.h"

#include "ctxscope/topology.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view description(reinterpret_cast<const char*>(data), size);
    if (!ctxscope::checkSyntheticDescription(description))
        return 0;
    auto topology = ctxscope::Topology::loadSynthetic(description);
    if (topology)
        (void)topology->allowedPus();
    return 0;
}
