// SPDX-License-Identifier: MIT
// What the BPF programs' loaders (bpf_sched_watch.cpp, bpf_handover.cpp) share: the clock the
// programs' timestamps use, and libbpf kept quiet.
#pragma once

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdint>
#include <ctime>

namespace ctxscope::bpf {

// CLOCK_MONOTONIC in ns: bpf_ktime_get_ns's clock.
inline std::uint64_t monotonicNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

// libbpf's messages go nowhere: a loader reports a failure as one sentence of its own.
inline void quietLibbpf()
{
    libbpf_set_print([](libbpf_print_level, const char*, va_list) { return 0; });
}

} // namespace ctxscope::bpf
