// SPDX-License-Identifier: MIT
// Lesson "coroutines": why do coroutines help servers?
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include <algorithm>
#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const int cpu = firstCpu(topology);
    return {
        { "coro-cxx20: resume and suspend a C++20 coroutine", spec("coro-cxx20", BenchMode::Thread, { cpu }, o) },
        { "coro-fcontext: jump into a Boost.Context fiber and back",
            spec("coro-fcontext", BenchMode::Thread, { cpu }, o) },
        { "coro-ucontext: swapcontext there and back", spec("coro-ucontext", BenchMode::Thread, { cpu }, o) },
        { "futex round trip, both threads on one PU", spec("futex", BenchMode::Thread, { cpu, cpu }, o) },
    };
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<const RunResult*> ladder;
    for (const auto& r : results)
        ladder.push_back(&r);
    if (ladder.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    std::sort(ladder.begin(), ladder.end(), [](auto* a, auto* b) { return a->stats.p50 < b->stats.p50; });
    std::vector<std::string> out;
    std::string rungs;
    for (const RunResult* r : ladder)
        rungs += fmt::format("{}{} {}", rungs.empty() ? "" : " < ", r->bench, median(*r));
    out.push_back("The ladder, cheapest first (median per op, each op two switches): " + rungs + ".");
    const RunResult* futex = findResult(results, [](const RunResult& r) { return r.bench == "futex"; });
    const RunResult* fiber = findResult(results, [](const RunResult& r) { return r.bench == "coro-fcontext"; });
    const RunResult* stackless = findResult(results, [](const RunResult& r) { return r.bench == "coro-cxx20"; });
    const RunResult* best = fiber && stackless ? (fiber->stats.p50 < stackless->stats.p50 ? fiber : stackless)
                                               : (fiber ? fiber : stackless);
    if (futex && best && (wasDisturbed(*futex) || wasDisturbed(*best)))
        out.push_back(fmt::format("No conclusion on how much cheaper coroutines are than kernel switches: {} was "
                                  "disturbed.",
            runName(wasDisturbed(*futex) ? *futex : *best)));
    else if (futex && best)
        out.push_back(
            fmt::format("Switching between coroutines ({}) is {:.0f} times cheaper than letting the kernel "
                        "switch threads ({}): a server that waits on thousands of connections with coroutines "
                        "saves that difference on every wait, and it never enters the kernel to do so.",
                best->bench, futex->stats.p50 / best->stats.p50, median(*futex)));
    if (const RunResult* uc = findResult(results, [](const RunResult& r) { return r.bench == "coro-ucontext"; })) {
        std::string counted = "its system calls could not be counted here";
        if (uc->syscalls && uc->syscalls->perOp)
            counted = fmt::format("the kernel counted {:.1f} system calls per op{}", *uc->syscalls->perOp,
                uc->syscalls->calls.empty() ? std::string() : ", mostly " + uc->syscalls->calls.front().name);
        out.push_back(fmt::format("swapcontext cost {} per op: {}, because it saves and restores the signal mask "
                                  "each way. That hidden system call is why ucontext is the slow rung.",
            median(*uc), counted));
    }
    return out;
}

} // namespace

const LessonDefinition& coroutinesLesson()
{
    static const LessonDefinition d { { "coroutines", "Why do coroutines help servers?",
                                          "coro-cxx20, coro-fcontext, coro-ucontext, futex same-pu" },
        plan, conclude };
    return d;
}

} // namespace ctxscope::lesson
