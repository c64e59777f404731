// SPDX-License-Identifier: MIT
// The busy-wait of the spin kernels: one CPU hint per turn of the loop, so a spinning task
// leaves the core's shared resources to its SMT sibling and does not flood the memory
// system with speculative loads (what every spin lock's wait loop does).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ctxscope::bench {

inline void cpuRelax() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#else
    asm volatile("" ::: "memory"); // no hint here: only keep the compiler from caching the load
#endif
}

// How many turns of a wait loop pass between looks at the stop word: a look is a load of a
// line nobody writes, so it stays in the waiting core's cache, but it is kept out of every turn.
inline constexpr unsigned kStopCheckTurns = 256;

} // namespace ctxscope::bench
