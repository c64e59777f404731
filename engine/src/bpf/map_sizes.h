// SPDX-License-Identifier: MIT
// How large the BPF backend makes its maps for one program (sched_watch.bpf.c declares them at
// their largest). Maps made for 16,384 threads hold about 33 MB of preallocated kernel memory
// (`bpftool map show`'s memlock), made and freed with each watch. Sized for eight times the
// threads the program has when the watch starts (a pool may grow), within [least, largest]:
// about 13 MB for 1,000 threads. A program that grows past that has its updates refused and
// counted as lost events, never silently dropped.
#pragma once

#include "bpf/sched_maps.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace ctxscope {

struct BpfMapSizes {
    std::uint32_t threads = 0;
    std::uint32_t peers = 0; // each of wakers and preemptors: one interval's (thread, peer) pairs
    std::uint32_t moves = 0; // one interval's (thread, from, to) triples
    auto operator<=>(const BpfMapSizes&) const = default;
};

constexpr BpfMapSizes bpfMapSizes(std::size_t threads)
{
    constexpr std::size_t kGrowth = 8;
    const auto size = [&](std::size_t perThread, std::size_t least, std::size_t largest) {
        const std::size_t want = std::bit_ceil(std::max<std::size_t>(threads, 1) * kGrowth * perThread);
        return static_cast<std::uint32_t>(std::clamp(want, least, largest));
    };
    return { .threads = size(1, 4096, CTXSCOPE_MAX_THREADS),
        .peers = size(2, 8192, CTXSCOPE_MAX_PEERS),
        .moves = size(1, 4096, CTXSCOPE_MAX_MOVES) };
}

} // namespace ctxscope
