// SPDX-License-Identifier: MIT
// The runner's own (unmeasured) thread: it starts phases, waits for them while draining
// task 0's samples into the statistics and the sink, watches for dead children, and
// decides iterations (calibration) and K.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/clock.h"
#include "ctxscope/result.h"
#include "ctxscope/runner.h"
#include "ctxscope/stats.h"
#include "runner/control.h"
#include "runner/launch.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope::run {

// The largest number of samples one repetition may hold (8 bytes each in the shared mapping,
// committed only as used). A longer repetition is shortened, and the result says so.
inline constexpr std::uint64_t kSampleCapacity = std::uint64_t { 1 } << 22;

struct Measurement {
    std::uint64_t opsPerSample = 1;
    std::uint64_t iterations = 0;
    int repetitions = 0;
    std::vector<double> repetitionMedians;
    std::vector<double> raw; // ns per op, first rawSampleCap samples
    RunningStats running;
    LogHistogram histogram;
    std::vector<std::string> notes; // sentences for the warnings
    std::uint64_t checkOps = 0; // ops of the perf-counter check phase
    double checkNs = 0; // its time (task 0)
    std::optional<HandoffCount> handoffs; // counted by the kernel over the measured repetitions
};

class Driver {
public:
    Driver(ControlBlock& block, bench::Kernel& kernel, TaskGroup& group, const ClockInfo& clock,
        const RunCallbacks& callbacks, const BenchSpec& spec);

    // Every task pinned and at the start barrier.
    Status waitForStart();
    // One phase of `ops` ops in samples of `chunk` ops; task 0's time for it in ns.
    Expected<double> phase(std::uint64_t ops, std::uint64_t chunk, bool record, int repetition, bool check = false);
    // Tells the tasks to leave (they are joined or reaped by the TaskGroup).
    void finishTasks();

    Measurement& measurement() { return m_measurement; }
    const bench::Kernel& kernel() const { return m_kernel; }
    const std::string& death() const { return m_death; }
    const std::string& callbackError() const { return m_callbackError; }

private:
    Status waitAll(bool record, int repetition);
    Status stopped();
    void drain(int repetition);
    void progress(std::string_view stage, int repetition);

    ControlBlock& m_block;
    bench::Kernel& m_kernel;
    TaskGroup& m_group;
    const ClockInfo& m_clock;
    const RunCallbacks& m_callbacks;
    const BenchSpec& m_spec;
    Measurement m_measurement;
    std::vector<double> m_repetition; // ns per op of the current repetition
    std::uint64_t m_phaseOps = 0;
    std::uint64_t m_chunk = 1;
    std::uint64_t m_expectedSamples = 0;
    double m_lastFraction = 0; // progress never goes backwards (the check phases run after measuring)
    std::string m_death;
    std::string m_callbackError;
};

// Called on the runner's thread around the measured repetitions, never inside one (the
// tasks wait at the phase barrier): before the first, and after each (`last` after the last).
struct RepetitionHooks {
    std::function<void()> before;
    std::function<void(bool last)> after;
};

// Calibration (at most 10x more ops per step, like Google Benchmark; the calibration
// phases are the warm-up), the choice of K (1 when an op holds switches), the measured
// repetitions, then the perf-counter check phase.
Expected<Measurement> measure(Driver& driver, const BenchSpec& spec, const ClockInfo& clock, bool holdsSwitches,
    const RepetitionHooks& hooks = {});

} // namespace ctxscope::run
