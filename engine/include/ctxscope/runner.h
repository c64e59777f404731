// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/result.h"
#include "ctxscope/topology.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <stop_token>
#include <string_view>
#include <vector>

namespace ctxscope {

// New samples of a measured repetition, in time order.
struct SampleBatch {
    int repetition = 0; // 0-based
    std::uint64_t firstIndex = 0; // index of nsPerOp[0] within the repetition
    std::span<const double> nsPerOp;
};

struct Progress {
    std::string_view stage; // "starting", "calibrating", "measuring"
    int repetition = 0; // 0-based, while measuring
    int repetitions = 0;
    double fraction = 0; // of the whole run, estimated
};

// Both are called from the thread that called runBenchmark, never from a measured task;
// samples arrive in batches about every 20 ms while a repetition runs. A callback that
// throws ends the run with an error.
struct RunCallbacks {
    std::function<void(const SampleBatch&)> samples;
    std::function<void(const Progress&)> progress;
};

// What a caller that runs many benchmarks in a row (a matrix: thousands of short runs) learns
// once instead of every run learning it again; runBenchmark fills it in. The machine's and the
// build's caveats are read from /proc and /sys (which grows with the CPU count); a CPU an
// earlier run pinned its task to needs no probe thread again (every task still confirms its own
// pin with sched_getcpu, and every self-check still runs per run).
struct RunContext {
    std::optional<std::vector<std::string>> machineWarnings;
    std::set<int> pinnedCpus;
    // Scan every task before and after each run to name the busiest other tasks: a few ms
    // per run (docs/performance.md). A matrix leaves it off: its pairs still account every
    // CPU's other-task, steal and interrupt shares and are flagged when disturbed.
    bool nameInterferingTasks = true;
    // The process that drives the run (the desktop app behind `ctxscope-cli worker`): its CPU
    // time on the measured CPUs is counted apart from other tasks' (Interference::controllerPid),
    // so a run the app disturbed says so instead of blaming the machine. 0: none.
    long controllerPid = 0;
    // Called on the runner's thread right before the first measured repetition and right after
    // the last, with the tasks waiting at the phase barrier: a trace started and stopped here
    // holds exactly the measured ops. measuredBegin gets the measured tasks' thread ids (an
    // in-kernel counter filters on them) and the keep-awake threads' (none without them).
    std::function<void(const std::vector<long>& tasks, const std::vector<long>& keepAwake)> measuredBegin;
    std::function<void()> measuredEnd;
};

// Checks a spec against the topology before anything is allocated or started: the
// benchmark, counts, times, mode, the CPUs (each pinned once in a probe thread, so a CPU
// outside the allowed set gives the placement layer's message). Errors are bad input.
Expected<Placement> checkSpec(const BenchSpec& spec, const Topology& topology);

// Whether this process may hold /dev/cpu_dma_latency (--pm-qos-us): opened, written and let go,
// or a sentence saying why not.
Status checkPmQos(int us);

// Runs one benchmark on this machine: pins the tasks, calibrates, measures, self-checks.
// A stop request ends it within about 20 ms with every thread joined and every child
// reaped, and gives an Error ("the run was cancelled"). A task that dies is an Error
// within about 20 ms. Errors from checkSpec come back unchanged.
Expected<RunResult> runBenchmark(const BenchSpec& spec, const Topology& topology, const RunCallbacks& callbacks = {},
    std::stop_token stop = {}, RunContext* context = nullptr);

// The smallest K in 1, 2, 5, 10, 20, 50 ... for which one clock read costs under 1% of a
// sample of K ops (what the runner uses when BenchSpec::opsPerSample is 0).
std::uint64_t autoOpsPerSample(double nsPerOp, double clockReadNs);

} // namespace ctxscope
