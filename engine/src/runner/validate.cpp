// SPDX-License-Identifier: MIT
// Input validation, in the order a person would fix things, before anything is allocated.
#include "runner/validate.h"

#include "ctxscope/runner.h"
#include "ctxscope/units.h"
#include "ctxscope/working_set.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <system_error>
#include <thread>

namespace ctxscope::run {

namespace {

// Checks spec.wsBytes against the benchmark and, when set, against the memory this machine
// has available (a quarter of MemAvailable for the buffers of all tasks).
Status checkWorkingSet(const BenchSpec& spec, const BenchInfo& info, int tasks)
{
    if (spec.wsBytes == 0) {
        if (info.workingSet && info.maxTasks == 1)
            return makeError(fmt::format("{} needs a working set: give its size (--ws 64K, say)", info.name));
        return {};
    }
    if (!info.workingSet) {
        return makeError(
            fmt::format("a working set applies to {}, not {}", benchmarkNameList(/*workingSetOnly=*/true), info.name));
    }
    if (spec.wsBytes > kMaxWsBytes)
        return makeError(fmt::format(
            "a working set of {} bytes is more than the {} allowed", spec.wsBytes, formatBytes(kMaxWsBytes)));
    const std::uint64_t total = spec.wsBytes * static_cast<std::uint64_t>(tasks);
    const std::optional<std::uint64_t> available = memAvailableBytes();
    if (available && total > *available / kWorkingSetMemoryDivisor)
        return makeError(fmt::format("{} tasks with a working set of {} each need {}, more than a quarter of the {} "
                                     "this machine has available",
            tasks, formatBytes(spec.wsBytes), formatBytes(total), formatBytes(*available)));
    return {};
}

Expected<int> taskCount(const BenchSpec& spec, const BenchInfo& info)
{
    const bool ring = info.maxTasks > info.minTasks;
    if (!ring) {
        if (spec.tasks != 0 && spec.tasks != info.minTasks)
            return makeError(fmt::format("{} always runs {} task{}; a task count ({}) only applies to ring", info.name,
                info.minTasks, info.minTasks == 1 ? "" : "s", spec.tasks));
        return info.minTasks;
    }
    int tasks = spec.tasks;
    if (tasks == 0)
        tasks = spec.cpus.size() > 1 ? static_cast<int>(spec.cpus.size()) : info.defaultTasks;
    if (tasks < info.minTasks)
        return makeError(fmt::format("a ring needs at least {} tasks, got {}", info.minTasks, tasks));
    if (tasks > info.maxTasks)
        return makeError(fmt::format("a ring of {} tasks is more than the {} allowed", tasks, info.maxTasks));
    return tasks;
}

Status checkNumbers(const BenchSpec& spec)
{
    if (spec.iterations) {
        if (*spec.iterations == 0)
            return makeError("iterations must be at least 1, got 0");
        if (*spec.iterations > kMaxIterations)
            return makeError(fmt::format("{} iterations is absurd (at most {})", *spec.iterations, kMaxIterations));
    } else if (!std::isfinite(spec.minTimeSeconds) || spec.minTimeSeconds <= 0) {
        return makeError(
            fmt::format("the minimum time must be a positive number of seconds, got {}", spec.minTimeSeconds));
    } else if (spec.minTimeSeconds > kMaxMinTimeSeconds) {
        return makeError(fmt::format(
            "a minimum time of {} s is more than the {} s allowed", spec.minTimeSeconds, kMaxMinTimeSeconds));
    }
    if (spec.repetitions < 1 || spec.repetitions > kMaxRepetitions)
        return makeError(fmt::format("repetitions must be from 1 to {}, got {}", kMaxRepetitions, spec.repetitions));
    if (spec.opsPerSample > kMaxIterations)
        return makeError(fmt::format("{} ops per sample is absurd (at most {})", spec.opsPerSample, kMaxIterations));
    return {};
}

// The conditions: keep-awake CPUs this process may run on, each once; a pm-qos in range.
Status checkConditions(const BenchSpec& spec, const Topology& topology)
{
    const std::vector<int> allowed = topology.allowedPus();
    std::set<int> seen;
    for (int cpu : spec.keepAwakeCpus) {
        if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
            return makeError(fmt::format(
                "--keep-awake CPU {} is not one this process may run on (allowed: {})", cpu, formatCpuList(allowed)));
        if (!seen.insert(cpu).second)
            return makeError(fmt::format("--keep-awake names CPU {} twice", cpu));
    }
    if (spec.pmQosUs && (*spec.pmQosUs < 0 || *spec.pmQosUs > kMaxPmQosUs))
        return makeError(fmt::format("--pm-qos-us takes 0 to {} microseconds, not {}", kMaxPmQosUs, *spec.pmQosUs));
    return {};
}

// The relation of the farthest pair of tasks that pass the token to each other.
Expected<Relation> relationOfCpus(const Topology& topology, const std::vector<int>& cpus)
{
    Relation widest = Relation::SamePu;
    const std::size_t n = cpus.size();
    for (std::size_t i = 0; i < n; ++i) {
        auto r = relationOf(topology, cpus[i], cpus[(i + 1) % n]);
        if (!r)
            return r.error();
        widest = std::max(widest, *r);
    }
    return widest;
}

Expected<std::vector<int>> cpusForRelation(const Topology& topology, Relation relation, int tasks)
{
    const std::vector<int> allowed = topology.allowedPus();
    if (allowed.empty())
        return makeError("this process may run on no CPU of the topology");
    if (relation == Relation::SamePu)
        return std::vector<int>(static_cast<std::size_t>(tasks), allowed.front());
    if (tasks == 1)
        return makeError(
            fmt::format("a benchmark with one task has no pair of CPUs to place as {}", toString(relation)));
    std::vector<std::string_view> classes;
    for (const PuPair& p : representativePairs(topology)) {
        if (p.relation == relation) {
            std::vector<int> cpus;
            for (int i = 0; i < tasks; ++i)
                cpus.push_back(i % 2 == 0 ? p.a : p.b);
            return cpus;
        }
        classes.push_back(toString(p.relation));
    }
    return makeError(fmt::format("this machine has no two allowed CPUs in class {} (classes here: {})",
        toString(relation), classes.empty() ? "none" : fmt::format("{}", fmt::join(classes, ", "))));
}

Expected<Placement> place(const BenchSpec& spec, const Topology& topology, const BenchInfo& info, int tasks)
{
    Placement p;
    p.tasks = tasks;
    if (spec.cpus.empty()) {
        const Relation want = spec.relation.value_or(Relation::SamePu);
        p.relation = want;
        if (want == Relation::Unpinned)
            return p;
        auto cpus = cpusForRelation(topology, want, tasks);
        if (!cpus)
            return cpus.error();
        p.cpus = std::move(*cpus);
        p.kinds = kindsText(topology, p.cpus);
        return p;
    }
    if (spec.relation == Relation::Unpinned)
        return makeError("CPUs were given and the placement is also 'unpinned': choose one");
    const bool ring = info.maxTasks > info.minTasks;
    if (spec.cpus.size() == 1 && ring) {
        p.cpus.assign(static_cast<std::size_t>(tasks), spec.cpus.front());
    } else if (static_cast<int>(spec.cpus.size()) == tasks) {
        p.cpus = spec.cpus;
    } else {
        const std::string example = tasks == 2 ? " (e.g. 0,0 for both on CPU 0)" : "";
        // The CPUs as given, one per task ("1,1,1"), not as a set ("1" hid the count).
        return makeError(fmt::format("{} runs {} task{} and needs {}{} CPU{}{}, got {}: {}", info.name, tasks,
            tasks == 1 ? "" : "s", ring ? "1 or " : "", tasks, tasks == 1 ? "" : "s", example, spec.cpus.size(),
            fmt::join(spec.cpus, ",")));
    }
    for (int cpu : p.cpus)
        if (cpu < 0)
            return makeError(fmt::format("CPU {} does not exist", cpu));
    auto relation = relationOfCpus(topology, p.cpus);
    if (!relation)
        return relation.error();
    if (spec.relation && *spec.relation != *relation)
        return makeError(fmt::format(
            "CPUs {} are {}, not {}", formatCpuList(spec.cpus), toString(*relation), toString(*spec.relation)));
    p.relation = *relation;
    p.kinds = kindsText(topology, p.cpus);
    return p;
}

Status checkSpin(const BenchSpec& spec, const BenchInfo& info)
{
    if (!spec.spinNs)
        return {};
    if (!info.spinThenSleep)
        return makeError(fmt::format("a spin time only applies to spin-futex, not {}", info.name));
    if (*spec.spinNs > kMaxSpinNs)
        return makeError(fmt::format("a spin time of {} ns is more than the {} ns allowed", *spec.spinNs, kMaxSpinNs));
    return {};
}

// Two busy-waiting tasks on one PU make progress only when the scheduler preempts one after
// its time slice: what that measures is the time slice, not a hand-over.
Status checkBusyWaitPlacement(const BenchInfo& info, const Placement& placement, const Topology& topology)
{
    if (!info.busyWait)
        return {};
    const bool unpinnedOnOne = placement.cpus.empty() && topology.allowedPus().size() < 2;
    if (!placement.onePu() && !unpinnedOnOne)
        return {};
    return makeError(fmt::format("{} needs two PUs: two spinning tasks on one PU hand over only when the scheduler "
                                 "preempts one; use futex or yield to measure a hand-over on one PU",
        info.name));
}

// Pins a short-lived thread to each CPU in turn, so a CPU that cannot be used fails here
// with the placement layer's own message, before any task or child exists.
Status probe(const Topology& topology, const std::vector<int>& cpus, bool wantFifo, bool* fifoAllowed,
    const std::set<int>* pinned)
{
    std::set<int> distinct(cpus.begin(), cpus.end());
    if (pinned)
        std::erase_if(distinct, [&](int cpu) { return pinned->contains(cpu); });
    Status result;
    bool fifo = false;
    if (distinct.empty() && !wantFifo) {
        if (fifoAllowed)
            *fifoAllowed = false;
        return result;
    }
    try {
        std::thread t([&] {
            for (int cpu : distinct) {
                if (Status s = pinCurrentThread(topology, cpu); !s) {
                    result = s;
                    return;
                }
            }
            if (wantFifo) {
                const sched_param param { 1 };
                fifo = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param) == 0;
            }
        });
        t.join();
    } catch (const std::system_error& e) {
        return makeError(std::string("could not start a thread to check the CPUs: ") + e.what());
    }
    if (fifoAllowed)
        *fifoAllowed = fifo;
    return result;
}

} // namespace

Expected<Placement> checkSpecAndProbe(
    const BenchSpec& spec, const Topology& topology, bool* fifoAllowed, const std::set<int>* pinned)
{
    const BenchInfo* info = findBenchmark(spec.bench);
    if (!info)
        return makeError(fmt::format("unknown benchmark '{}' (known: {})", spec.bench, benchmarkNameList()));
    auto tasks = taskCount(spec, *info);
    if (!tasks)
        return tasks.error();
    if (spec.mode == BenchMode::Process && !info->processMode)
        return makeError(
            fmt::format("{} runs in one task; process mode needs a benchmark with two or more tasks", info->name));
    if (Status s = checkNumbers(spec); !s)
        return s.error();
    if (Status s = checkWorkingSet(spec, *info, *tasks); !s)
        return s.error();
    if (Status s = checkSpin(spec, *info); !s)
        return s.error();
    if (Status s = checkConditions(spec, topology); !s)
        return s.error();
    auto placement = place(spec, topology, *info, *tasks);
    if (!placement)
        return placement.error();
    if (Status s = checkBusyWaitPlacement(*info, *placement, topology); !s)
        return s.error();
    if (!topology.isThisSystem())
        return makeError("measuring needs this machine's live topology, not " + topology.origin());
    if (Status s = probe(topology, placement->cpus, spec.policy == SchedPolicy::Fifo, fifoAllowed, pinned); !s)
        return s.error();
    return placement;
}

} // namespace ctxscope::run

namespace ctxscope {

Expected<Placement> checkSpec(const BenchSpec& spec, const Topology& topology)
{
    return run::checkSpecAndProbe(spec, topology, nullptr);
}

} // namespace ctxscope
