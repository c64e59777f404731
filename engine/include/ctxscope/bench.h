// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/placement.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope {

// Thread mode: every task is a thread of this process. Process mode: every task is a forked
// child, pinned in the child, sharing only an anonymous shared mapping and pipes.
enum class BenchMode { Thread, Process };
std::string_view toString(BenchMode mode);
std::optional<BenchMode> benchModeFromString(std::string_view text);

// SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO; when refused the run uses SCHED_OTHER and
// the result says so.
enum class SchedPolicy { Other, Fifo };
std::string_view toString(SchedPolicy policy);
std::optional<SchedPolicy> schedPolicyFromString(std::string_view text);

// What a benchmark counts (see docs/measurement.md). Task 0 starts every op; the runner times it.
struct BenchInfo {
    std::string_view name;
    std::string_view op; // what one op is
    std::string_view notes;
    int minTasks = 1;
    int maxTasks = 1;
    int defaultTasks = 1;
    bool processMode = false; // its tasks can be processes (only for two or more tasks)
    // Context switches one op holds by construction, for a task count and whether every
    // task is pinned to one and the same PU.
    double (*switchesPerOp)(int tasks, bool onePu) = nullptr;
    // The switches are between user-space contexts of one thread (coroutines): the kernel
    // sees none, so the self-check expects 0 kernel context switches.
    bool userSpaceSwitches = false;
    // System calls one op makes by construction, for the syscall self-check of single-task
    // benchmarks; negative: not checked.
    double syscallsPerOp = -1;
    // Its tasks can touch a working set of BenchSpec::wsBytes after taking the token.
    bool workingSet = false;
    // One-way hand-overs of a token between tasks one op holds (a round trip holds 2), for a
    // task count and whether every task is on one PU; nullptr: it passes no token. A hand-over
    // is not a context switch: a spinning partner takes the token without one.
    double (*handoffsPerOp)(int tasks, bool onePu) = nullptr;
    // Its tasks busy-wait: on one PU they hand over only when the scheduler preempts one.
    bool busyWait = false;
    // It spins for BenchSpec::spinNs before it sleeps (spin-futex).
    bool spinThenSleep = false;
};

// Every benchmark, in the order a table shows them.
const std::vector<BenchInfo>& benchmarks();
const BenchInfo* findBenchmark(std::string_view name);
// Their names, comma-separated, for help text and error messages; only those that take a
// working set when asked.
std::string benchmarkNameList(bool workingSetOnly = false);

inline constexpr int kMaxRingTasks = 4096;
inline constexpr std::uint64_t kMaxIterations = 1'000'000'000;
inline constexpr double kMaxMinTimeSeconds = 3600;
inline constexpr int kMaxRepetitions = 1000;
inline constexpr std::uint64_t kMaxWsBytes = std::uint64_t { 1 } << 40;
// spin-futex: how long a waiting task spins before it sleeps, by default and at most.
inline constexpr std::uint64_t kDefaultSpinNs = 2000;
inline constexpr std::uint64_t kMaxSpinNs = 1'000'000'000;

// What to run. CPU numbers are OS indices, as taskset uses them.
struct BenchSpec {
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    // One CPU per task ("0,0" puts both tasks of a ping-pong on CPU 0), or one CPU for
    // every task of a ring. Empty: chosen from `relation`.
    std::vector<int> cpus;
    // With no cpus: a representative placement of this class; Unpinned lets the scheduler
    // place the tasks. Neither: same-pu on the first allowed CPU.
    std::optional<Relation> relation;
    int tasks = 0; // 0: the benchmark's default (ring: as many as cpus, at least 2)
    std::optional<std::uint64_t> iterations; // ops per repetition; none: calibrate to minTime
    double minTimeSeconds = 0.2; // per repetition, when iterations is not given
    int repetitions = 5;
    SchedPolicy policy = SchedPolicy::Other;
    // K; 0: 1 when an op holds context switches and costs 20 clock reads or more (a latency
    // distribution), else the smallest K whose clock read is < 1% of a sample
    std::uint64_t opsPerSample = 0;
    std::size_t rawSampleCap = std::size_t { 1 } << 20; // samples kept raw in the result
    // Bytes each task writes (one byte per cache line, random page order) after taking the
    // token, before passing it on; 0: none. For benchmarks with BenchInfo::workingSet.
    std::uint64_t wsBytes = 0;
    // spin-futex only: nanoseconds a waiting task spins before it sleeps on the futex; none:
    // kDefaultSpinNs.
    std::optional<std::uint64_t> spinNs;
    // Account what else ran on the measured CPUs between repetitions (RunResult::interference);
    // off only to measure the accounting's own cost (tests/perf). Not part of a result file.
    bool accountInterference = true;
    // Conditions held for the whole run (docs/measurement.md, "Conditions"), part of the result:
    // a SCHED_IDLE polling thread on each of these CPUs, so they never idle (--keep-awake); its
    // time is reported and never counted as interference.
    std::vector<int> keepAwakeCpus;
    // /dev/cpu_dma_latency held at this many µs (--pm-qos-us; 0: the shallowest idle state).
    std::optional<int> pmQosUs;
    bool conditioned() const { return !keepAwakeCpus.empty() || pmQosUs.has_value(); }
};

// The largest --pm-qos-us taken: the kernel's own default request is 2,000 s.
inline constexpr int kMaxPmQosUs = 2'000'000'000;

} // namespace ctxscope
