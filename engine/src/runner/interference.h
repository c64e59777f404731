// SPDX-License-Identifier: MIT
// The interference meter: the runner marks it between the measured repetitions (never inside
// one), and it turns the counters read at each mark into what else ran on the measured CPUs.
#pragma once

#include "ctxscope/interference.h"
#include "os/proc_stat.h"
#include "os/task_stat.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ctxscope::run {

// One benchmark task: whose stat and schedstat to read, and where it was pinned (-1: not).
struct MeasuredTask {
    long pid = 0;
    long tid = 0;
    int pinnedCpu = -1;
};

class InterferenceMeter {
public:
    // `scanTasks` false: no scan of every task, so no top tasks (the cost benchmark's baseline).
    // `controllerPid`: the process that drives the run (the desktop app behind the worker), whose
    // time is counted apart from other tasks' (0: none).
    explicit InterferenceMeter(std::vector<MeasuredTask> tasks, bool scanTasks = true, long controllerPid = 0);

    // Before the first measured repetition: the counters and every task's CPU time so far.
    void begin();
    // After each measured repetition; after the last one it also scans every task, when other
    // tasks took more than kNameTasksShare of a CPU the run may have used.
    void mark(bool last);
    // The accounting for `cpus` (the pinned CPUs, or where the tasks were seen; seenByTask
    // follows the tasks' order), or none when /proc/stat could not be read or no repetition
    // was marked.
    std::optional<Interference> finish(std::vector<int> cpus, const std::vector<std::vector<int>>& seenByTask) const;

    // One mark's counters (exposed for tests of the arithmetic).
    struct Snapshot {
        std::chrono::steady_clock::time_point at;
        os::ProcStat stat;
        std::vector<os::PerCpuCount> irqs;
        std::vector<os::PerCpuCount> softirqs;
        std::vector<std::uint64_t> taskNs; // per MeasuredTask: its CPU time so far
        std::uint64_t controllerNs = 0; // the controller's CPU time so far, all its threads
    };
    // The figures of one CPU between two snapshots; ownNs is the benchmark tasks' time on it,
    // controllerNs the controller's (taken out of the other tasks' share into its own).
    static std::optional<CpuInterference> between(
        const Snapshot& a, const Snapshot& b, int cpu, double ownNs, double controllerNs = 0);
    // The benchmark tasks' CPU time between two snapshots on each of `cpus`: a pinned task's on
    // its CPU; an unpinned one's spread over the CPUs it was seen on (all of `cpus` when not
    // known) in proportion to each one's busy time.
    std::vector<double> ownNsByCpu(const Snapshot& a, const Snapshot& b, const std::vector<int>& cpus,
        const std::vector<std::vector<int>>& seenByTask) const;
    // The controller's CPU time between two snapshots on each of `cpus`, given the benchmark's
    // (`own`, by ownNsByCpu): the kernel does not say where a process ran, so its time is spread
    // over the CPUs it may run on (`allowed`, empty: all) in proportion to the time each gave
    // tasks other than the benchmark's. None on a CPU it may not run on.
    static std::vector<double> controllerNsByCpu(const Snapshot& a, const Snapshot& b, const std::vector<int>& cpus,
        const std::vector<double>& own, const std::vector<int>& allowed);

private:
    // The figures of each of `cpus` between two marks, the controller's time apart.
    std::vector<std::optional<CpuInterference>> figures(const Snapshot& a, const Snapshot& b,
        const std::vector<int>& cpus, const std::vector<std::vector<int>>& seenByTask) const;
    std::optional<Snapshot> snapshot() const;
    std::vector<InterferingTask> topTasks(const std::vector<CpuInterference>& cpus) const;

    std::vector<MeasuredTask> m_tasks;
    bool m_scanTasks = true;
    long m_controller = 0;
    std::string m_controllerComm;
    std::vector<int> m_controllerCpus; // where the controller may run (read at begin and at the last mark)
    std::vector<Snapshot> m_marks; // begin, then one after each repetition
    bool m_failed = false; // a read failed: no accounting rather than a wrong one
    // Every task's utime + stime (ticks) at begin, by TID, with its start time to tell a
    // reused TID from the same task.
    std::unordered_map<long, std::pair<std::uint64_t, std::uint64_t>> m_before;
    std::vector<os::TaskStat> m_after; // every task at the last mark, when it was scanned
    // When the two scans were taken: a task's gain is over this interval, which holds the
    // marks' (the scans sit just outside them).
    std::chrono::steady_clock::time_point m_beforeAt;
    std::chrono::steady_clock::time_point m_afterAt;
};

} // namespace ctxscope::run
