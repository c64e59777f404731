// SPDX-License-Identifier: MIT
// Lesson "mode-switch": is a syscall a context switch?
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    return {
        { "syscall: one getppid()", spec("syscall", BenchMode::Thread, { cpu }, o) },
        { "vdso: one clock_gettime()", spec("vdso", BenchMode::Thread, { cpu }, o) },
        { "futex round trip, both threads on one PU", spec("futex", BenchMode::Thread, { cpu, cpu }, o) },
    };
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<std::string> out;
    const RunResult* sys = findResult(results, [](const RunResult& r) { return r.bench == "syscall"; });
    const RunResult* vdso = findResult(results, [](const RunResult& r) { return r.bench == "vdso"; });
    const RunResult* futex = findResult(results, [](const RunResult& r) { return r.bench == "futex"; });
    if (sys)
        out.push_back(fmt::format("A system call cost {}, and caused {} context switches per call: it switches the CPU "
                                  "into the kernel and back (a mode switch), not to another task.",
            withSpread(*sys), observedSwitches(*sys)));
    if (vdso)
        out.push_back(fmt::format(
            "clock_gettime() through the vDSO cost {}: it never enters the kernel at all.", withSpread(*vdso)));
    if (sys && futex && (wasDisturbed(*sys) || wasDisturbed(*futex))) {
        out.push_back(fmt::format("A futex round trip between two threads on one PU cost {}, and holds 2 switches "
                                  "(observed {} per round trip). No conclusion on how much dearer it is than the "
                                  "system call: {} was disturbed.",
            withSpread(*futex), observedSwitches(*futex), runName(wasDisturbed(*sys) ? *sys : *futex)));
    } else if (sys && futex) {
        out.push_back(fmt::format("A futex round trip between two threads on one PU cost {}, and holds 2 switches "
                                  "(observed {} per round trip): {:.0f} times dearer than the system call.",
            withSpread(*futex), observedSwitches(*futex), futex->stats.p50 / sys->stats.p50));
        if (futex->stats.p50 <= sys->stats.p50)
            out.push_back("Here the round trip was not dearer than a system call: this finding does not hold on this "
                          "machine, so look at the warnings.");
    }
    if (out.empty())
        out.push_back("No experiment of this lesson could run here; see the failures.");
    return out;
}

} // namespace

const LessonDefinition& modeSwitchLesson()
{
    static const LessonDefinition d {
        { "mode-switch", "Is a syscall a context switch?", "syscall, vdso, futex same-pu" }, plan, conclude
    };
    return d;
}

} // namespace ctxscope::lesson
