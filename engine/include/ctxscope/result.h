// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/clock.h"
#include "ctxscope/handover.h"
#include "ctxscope/interference.h"
#include "ctxscope/stats.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope {

// What one task did during the measured repetitions (calibration excluded).
struct TaskObservation {
    int task = 0;
    long id = 0; // the thread id (thread mode) or the child's pid (process mode)
    int pinnedCpu = -1; // -1 when unpinned
    std::vector<int> cpusSeen; // sched_getcpu samples, ascending
    std::uint64_t cpuChanges = 0; // changes between consecutive samples: a lower bound of migrations
    std::uint64_t voluntarySwitches = 0; // getrusage(RUSAGE_THREAD) deltas
    std::uint64_t involuntarySwitches = 0;
    std::uint64_t cpuNs = 0; // user + system CPU time in the measured repetitions (getrusage)
    std::optional<std::uint64_t> perfContextSwitches; // perf software counters (check phase), when permitted
    std::optional<std::uint64_t> perfMigrations;
};

// The self-checks: what the kernel says happened, summed over the tasks.
struct Observed {
    double voluntaryPerOp = 0;
    double involuntaryPerOp = 0;
    double switchesPerOp() const { return voluntaryPerOp + involuntaryPerOp; }
    // The perf software counters run in a check phase of their own after the measured
    // repetitions, because a task with perf events pays for them at every switch (a VM
    // traps the PMU accesses). Its ops and their mean time show that price.
    std::optional<double> perfSwitchesPerOp; // none when perf counters were not permitted
    std::optional<std::uint64_t> perfMigrations;
    std::string perfStatus; // "" when counted, else why not, as a sentence
    // CPU time (user + system) of all tasks together per op: Google Benchmark's cpu_time. On
    // one PU it is about the round trip; across PUs each task also waits, so it is less.
    double cpuNsPerOp = 0;
    std::uint64_t perfCheckOps = 0;
    double perfCheckNsPerOp = 0; // mean time per op with the counters on
    std::uint64_t migrations = 0; // CPU changes seen by sched_getcpu samples (a lower bound)
    std::vector<int> cpusSeen; // union over tasks
    std::vector<TaskObservation> tasks;
};

// Token hand-overs counted by the tasks of a spin-then-sleep kernel.
struct HandoffCount {
    std::uint64_t total = 0; // tokens received
    std::uint64_t slept = 0; // of those, received after sleeping on the futex
    double sleptShare() const { return total > 0 ? static_cast<double>(slept) / static_cast<double>(total) : 0; }
};

// Where a spin kernel's shared cache line lived: alone in a fresh page that the first task
// touched, pinned, before any other task started (so the kernel placed the page by that task's
// CPU, as first-touch placement does), asked with move_pages(2).
struct SharedLine {
    int firstTask = 0; // the task that touched the page first
    int firstCpu = -1; // the CPU it ran on then (sched_getcpu)
    std::optional<int> node; // the page's NUMA node after the run; none when the kernel could not say
    std::optional<int> nodeAtTouch; // the same right after the first touch
    std::string nodeError; // why there is no node, a sentence; "" when there is one
    std::vector<int> taskNodes; // the NUMA node of each task's pinned CPU (topology); -1 when unknown
};

// "line on node 0 (both tasks' node), first touched by task 0 on CPU 2", or the node's absence
// with the kernel's reason; without the CPU to compare machines ("..., first touched by task 0").
std::string sharedLineText(const SharedLine& line, bool withCpu = true);

// One kind of system call and how many of it one op made.
struct SyscallCount {
    std::string name; // "rt_sigprocmask", or "syscall N" for a number without a name here
    double perOp = 0;
};

// The syscall self-check of a single-task benchmark: the kernel counted the system calls of
// a separate short pass of its ops (see BenchInfo::syscallsPerOp).
struct SyscallCheck {
    std::optional<double> perOp; // every system call, per op; none when they could not be counted
    std::vector<SyscallCount> calls; // most frequent first
    std::uint64_t ops = 0; // ops of the counting pass
    double claimed = 0; // system calls one op makes by construction
    std::string how; // a sentence: the count and how it was made, or why there is none
};

// One finished run: an immutable value.
struct RunResult {
    BenchSpec spec; // as asked
    std::string bench;
    std::string op; // what one op is
    BenchMode mode = BenchMode::Thread;
    Placement placement;
    double switchesPerOp = 0; // by construction, see BenchInfo
    bool userSpaceSwitches = false; // coroutine switches, which the kernel never sees
    std::optional<double> perSwitchNs; // stats.p50 / switchesPerOp, when switchesPerOp > 0
    double handoffsPerOp = 0; // one-way token hand-overs one op holds, see BenchInfo
    std::optional<double> perHandoffNs; // stats.p50 / handoffsPerOp (one-way), when handoffsPerOp > 0
    // spin-futex: of the hand-overs in the measured repetitions, how many found the receiving
    // task asleep on the futex after its spin (counted by the tasks themselves).
    std::optional<HandoffCount> handoffs;
    SchedPolicy policy = SchedPolicy::Other; // what actually ran
    ClockInfo clock;
    std::uint64_t opsPerSample = 1; // K: a sample times K consecutive ops
    std::uint64_t iterations = 0; // ops per repetition
    int repetitions = 0;
    Summary stats; // ns per op, over every sample of every repetition
    bool percentilesFromHistogram = false; // more samples than rawSampleCap
    std::vector<double> repetitionMedians; // ns per op, one per repetition
    double repetitionCv = 0; // CV of the repetition medians (0 with one repetition)
    std::vector<double> samples; // ns per op, in time order, at most spec.rawSampleCap
    std::uint64_t totalSamples = 0;
    std::vector<HistogramBucket> histogram; // ns per op, every sample
    Observed observed;
    std::optional<SyscallCheck> syscalls; // benchmarks that state their system calls per op
    // What else ran on the measured CPUs during the measured repetitions; none when /proc
    // could not be read (or the accounting was off).
    std::optional<Interference> interference;
    // The traced run that followed this one (run --trace, a traced lesson step, the worker's
    // run with "trace"): what its events say about the hand-overs. It explains these figures
    // and never replaces them.
    std::optional<TraceSummary> trace;
    // spin: where its cache line lived and which task touched it first.
    std::optional<SharedLine> line;
    std::vector<std::string> warnings; // each a sentence
    double seconds = 0; // wall time of the whole run, calibration included
    // The keep-awake threads (spec.keepAwakeCpus): their ids and CPU time over the whole run.
    std::vector<long> keepAwakeTasks;
    double keepAwakeCpuNs = 0;
};

// "keep-awake 0,1", "pm-qos 0 µs", "keep-awake 1, pm-qos 0 µs"; "" for a run as is.
std::string conditionText(const BenchSpec& spec);

} // namespace ctxscope
