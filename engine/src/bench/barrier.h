// SPDX-License-Identifier: MIT
// Google Benchmark's DoNotOptimize / ClobberMemory: the compiler must assume the value is
// read and written here, so work whose result is otherwise unused cannot be deleted.
#pragma once

namespace ctxscope::bench {

template <typename T> inline void doNotOptimize(T& value) { asm volatile("" : "+r,m"(value) : : "memory"); }

inline void clobberMemory() { asm volatile("" : : : "memory"); }

} // namespace ctxscope::bench
