// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

// What else ran on the CPUs a run measured on, over its measured repetitions (calibration and
// the check phases excluded), from /proc/stat, /proc/interrupts, /proc/softirqs and the tasks'
// own stat and schedstat. Shares are fractions of the CPU's wall time over that interval.
// docs/measurement.md ("Interference") defines each figure.
namespace ctxscope {

// Other tasks (or the hypervisor) took more than this of a measured CPU: the top tasks are named.
inline constexpr double kNameTasksShare = 0.01;
// A repetition spread is put down to other tasks or steal when they took at least this.
inline constexpr double kCauseShare = 0.05;
// Other tasks or steal took more than this of a measured CPU over the run: the run is
// disturbed, and lessons say so instead of concluding from it.
inline constexpr double kDisturbedShare = 0.10;

struct CpuInterference {
    int cpu = 0;
    // user + nice + system time of the CPU minus the benchmark's own tasks' time and the
    // controller's (controllerShare)
    double otherShare = 0;
    double stealShare = 0; // time the hypervisor ran something else while this vCPU wanted to run
    double irqShare = 0;
    double softirqShare = 0;
    double irqsPerS = 0; // every row of /proc/interrupts for this CPU
    double softirqsPerS = 0; // every row of /proc/softirqs for this CPU
    std::vector<double> otherShareByRepetition; // the same figure for each measured repetition
    // The controller's (the app that drives the run: Interference::controllerPid) estimated
    // time on this CPU, counted apart from other tasks
    double controllerShare = 0;
};

struct InterferingTask {
    long pid = 0;
    long tid = 0;
    std::string comm;
    bool kernelThread = false; // [kworker/0:1], ksoftirqd: the kernel's own work
    double share = 0; // its CPU time gained over the interval / the interval's wall time
    int cpu = -1; // the measured CPU it last ran on, where its share counts (-1: not known, older files)
};

struct Interference {
    std::vector<CpuInterference> cpus; // the CPUs the run's tasks were pinned to (or ran on)
    std::vector<InterferingTask> topTasks; // up to three, busiest first, when other tasks took > kNameTasksShare
    double seconds = 0; // the accounted interval: the measured repetitions
    // The process that drives the run, named apart from other tasks (0: none was named): the
    // desktop app whose worker measured it (`ctxscope-cli worker --controller PID`).
    long controllerPid = 0;
    std::string controllerComm {}; // "ctxscope" (an initializer, so lists that stop before it need none)

    double maxOtherShare() const;
    double maxStealShare() const;
    double maxControllerShare() const;
    // The largest other-task share of one CPU in one repetition.
    double maxRepetitionOtherShare() const;
    // The controller's own load disturbs a run too, and is said to be its, not the machine's.
    bool disturbed() const
    {
        return maxOtherShare() > kDisturbedShare || maxStealShare() > kDisturbedShare
            || maxControllerShare() > kDisturbedShare;
    }
};

// "the ctxscope window": how sentences name the controller ("" when none was named).
std::string controllerName(const Interference& i);

// One line: "interference on CPU 0: other tasks 38.0%, the ctxscope window 2.0%, steal 0.2%, 1,210
// interrupts/s; busiest: sh (PID 4321) 37.0%", with "quiet" when nothing took more than
// kNameTasksShare (the window's share only when a controller was named).
std::string interferenceLine(const Interference& i);
// The cause of a repetition spread as a clause: "other tasks took 38.0% of CPU 0, busiest sh
// (PID 4321)", "the ctxscope window itself took 6.0% of CPU 1", "the hypervisor stole 12.0% of
// CPU 1", or "" when none took kCauseShare.
std::string interferenceCause(const Interference& i);
// A sentence for a disturbed run ("" when it is not). It sends the reader to a quiet machine only
// when other tasks or the hypervisor took the time; the controller's own load it names as such.
std::string disturbedWarning(const Interference& i);

} // namespace ctxscope
