// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ctxscope {

// Where the runner's timestamps come from.
enum class ClockSource { Tsc, Monotonic };
std::string_view toString(ClockSource source);

// The clock a result was timed with, and how good it is, measured on this machine.
struct ClockInfo {
    ClockSource source = ClockSource::Monotonic;
    double nsPerTick = 1.0; // 1 for CLOCK_MONOTONIC; 1/GHz for the TSC
    double tscGhz = 0; // TSC frequency calibrated against CLOCK_MONOTONIC, 0 when not the TSC
    double readCostNs = 0; // mean cost of one read, reads back to back
    double resolutionNs = 0; // smallest non-zero step seen between two consecutive reads
    std::string why; // why this clock was chosen, as a sentence
};

// The clock every measurement uses: the TSC when it is invariant (constant_tsc and
// nonstop_tsc), else CLOCK_MONOTONIC through the vDSO. Chosen, calibrated and measured once
// per process; the first call takes about 50 ms.
const ClockInfo& measurementClock();

// Measures one clock now (read cost, resolution; the TSC is calibrated). For the harness's
// own benchmark; Tsc on a machine without an invariant TSC gives an Error-free but
// meaningless figure, so check tscInvariant() first.
ClockInfo measureClock(ClockSource source);
bool tscInvariant();

// One timestamp of the given clock, in ticks (multiply by ClockInfo::nsPerTick).
std::uint64_t readClock(ClockSource source);

} // namespace ctxscope
