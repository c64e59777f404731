// SPDX-License-Identifier: MIT
// runBenchmark: check, build the kernel and the shared block, start the tasks, drive the
// phases, end every task on every path, then turn what happened into a result or an error.
#include "ctxscope/runner.h"

#include "bench/kernel.h"
#include "runner/assemble.h"
#include "runner/conditions.h"
#include "runner/driver.h"
#include "runner/interference.h"
#include "runner/launch.h"
#include "runner/syscall_count.h"
#include "runner/validate.h"

#include "ctxscope/sysinfo.h"

#include <algorithm>
#include <chrono>
#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ctxscope {

namespace {

using namespace std::chrono_literals;

// Children have this long to leave after Finish or stop before they are killed (a child
// that was stopped with SIGSTOP, say); every sample and count is in the shared block by then.
constexpr auto kGrace = 100ms;

// A ring of N tasks holds 2N pipe ends; raise the soft descriptor limit when needed.
Status ensureDescriptors(int tasks)
{
    const auto need = static_cast<rlim_t>(2 * tasks + 64);
    rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= need)
        return {};
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < need)
        return makeError(fmt::format("a ring of {} tasks needs {} file descriptors but the limit is {} (ulimit -Hn)",
            tasks, need, limit.rlim_max));
    limit.rlim_cur = need;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0)
        return makeError(
            fmt::format("a ring of {} tasks needs {} file descriptors and the limit could not be raised", tasks, need));
    return {};
}

// The syscall self-check's pass: about 20 ms of ops, 10 to 1000 of them (each call
// becomes a round trip to the counting thread, so the pass runs far slower than measured).
std::uint64_t syscallPassOps(double nsPerOp)
{
    const double ops = nsPerOp > 0 ? 2e7 / nsPerOp : 1000;
    return static_cast<std::uint64_t>(std::clamp(ops, 10.0, 1000.0));
}

// The benchmark's own tasks, once they have started and written their ids.
std::vector<run::MeasuredTask> measuredTasks(const run::ControlBlock& block, BenchMode mode)
{
    std::vector<run::MeasuredTask> out;
    for (int i = 0; i < block.tasks(); ++i) {
        const run::TaskSlot& s = block.slot(i);
        const long id = static_cast<long>(s.id);
        out.push_back({ mode == BenchMode::Thread ? static_cast<long>(::getpid()) : id, id, s.pinnedCpu });
    }
    return out;
}

std::string describeTaskError(const run::ControlBlock& block, const run::TaskGroup& group, int i)
{
    const run::TaskSlot& s = block.slot(i);
    const std::string who = "task " + std::to_string(i);
    switch (static_cast<run::TaskError>(s.error)) {
    case run::TaskError::PinFailed:
        if (std::string e = group.setupError(i); !e.empty())
            return e;
        return fmt::format("{} could not be pinned to CPU {}: {}", who, s.pinnedCpu, sys::errnoText(s.errnoValue));
    case run::TaskError::PinMoved:
        return fmt::format("{} was bound to CPU {} but runs on CPU {}", who, s.pinnedCpu, s.cpuOnError);
    case run::TaskError::SchedFailed:
        return fmt::format("{} could not switch to SCHED_FIFO: {}", who, sys::errnoText(s.errnoValue));
    case run::TaskError::PeerGone:
        return who + " lost its peer (a pipe was closed under it)";
    case run::TaskError::None:
        break;
    }
    return {};
}

// The most useful sentence about why a run did not finish.
Error explainFailure(
    const run::ControlBlock& block, const run::TaskGroup& group, const run::Driver& driver, const std::stop_token& stop)
{
    if (!driver.callbackError().empty())
        return makeError("a result callback failed: " + driver.callbackError());
    std::string peerGone;
    for (int i = 0; i < block.tasks(); ++i) {
        const auto error = static_cast<run::TaskError>(block.slot(i).error);
        if (error == run::TaskError::PeerGone) {
            if (peerGone.empty())
                peerGone = describeTaskError(block, group, i);
        } else if (error != run::TaskError::None) {
            return makeError(describeTaskError(block, group, i));
        }
    }
    if (!driver.death().empty())
        return makeError(driver.death());
    if (!peerGone.empty())
        return makeError(peerGone);
    if (stop.stop_requested())
        return makeError("the run was cancelled");
    return makeError("the run stopped without a reason (this is a bug in ctxscope)");
}

} // namespace

Expected<RunResult> runBenchmark(const BenchSpec& spec, const Topology& topology, const RunCallbacks& callbacks,
    std::stop_token stop, RunContext* context)
{
    const auto started = std::chrono::steady_clock::now();
    bool fifoAllowed = false;
    auto placement = run::checkSpecAndProbe(spec, topology, &fifoAllowed, context ? &context->pinnedCpus : nullptr);
    if (!placement)
        return placement.error();
    if (stop.stop_requested())
        return makeError("the run was cancelled");
    const BenchInfo& info = *findBenchmark(spec.bench);
    const int tasks = placement->tasks;

    run::RunFacts facts;
    facts.spec = &spec;
    facts.info = &info;
    facts.placement = *placement;
    facts.clock = measurementClock();
    facts.mode = spec.mode;
    const bool fifo = spec.policy == SchedPolicy::Fifo && fifoAllowed;
    facts.policy = fifo ? SchedPolicy::Fifo : SchedPolicy::Other;
    if (spec.policy == SchedPolicy::Fifo && !fifoAllowed)
        facts.warnings.push_back("SCHED_FIFO was not permitted (it needs CAP_SYS_NICE or an RLIMIT_RTPRIO above 0), "
                                 "so the run used SCHED_OTHER.");

    if (Status s = ensureDescriptors(tasks); !s)
        return s.error();
    auto kernel = bench::factoryFor(info.name)(
        bench::KernelParams { tasks, spec.mode, spec.wsBytes, spec.spinNs.value_or(kDefaultSpinNs) });
    if (!kernel)
        return kernel.error();
    auto block = run::ControlBlock::create(tasks, run::kSampleCapacity);
    if (!block)
        return block.error();

    // The conditions are held before the tasks start and let go after they end, on every path.
    std::optional<run::PmQosHold> pmQos;
    if (spec.pmQosUs) {
        auto held = run::PmQosHold::hold(*spec.pmQosUs);
        if (!held)
            return held.error();
        pmQos.emplace(std::move(*held));
    }
    std::unique_ptr<run::KeepAwake> awake;
    if (!spec.keepAwakeCpus.empty()) {
        auto kept = run::KeepAwake::start(spec.keepAwakeCpus);
        if (!kept)
            return kept.error();
        awake = std::move(*kept);
    }

    run::LaunchPlan plan;
    plan.topology = &topology;
    plan.block = &*block;
    plan.kernel = kernel->get();
    plan.cpus = placement->cpus.empty() ? std::vector<int>(static_cast<std::size_t>(tasks), -1) : placement->cpus;
    plan.fifo = fifo;
    plan.clock = facts.clock.source;

    // Declared after the kernel and the block and before the tasks, so it is gone before
    // them and the tasks are gone before it.
    std::stop_callback onStop(stop, [&] {
        run::requestStop(block->control());
        (*kernel)->interrupt();
    });
    auto group = spec.mode == BenchMode::Thread ? run::startThreads(plan) : run::startProcesses(plan);
    if (!group)
        return group.error();

    run::Driver driver(*block, **kernel, **group, facts.clock, callbacks, spec);
    std::optional<run::InterferenceMeter> meter;
    Expected<run::Measurement> measured = [&]() -> Expected<run::Measurement> {
        if (Status s = driver.waitForStart(); !s)
            return s.error();
        const bool holdsSwitches = info.switchesPerOp(tasks, placement->onePu()) > 0;
        run::RepetitionHooks hooks;
        if (spec.accountInterference) {
            // The keep-awake threads' time is the run's own, never other tasks'.
            auto own = measuredTasks(*block, spec.mode);
            if (awake)
                for (std::size_t i = 0; i < awake->tids().size(); ++i)
                    own.push_back({ static_cast<long>(::getpid()), awake->tids()[i], awake->cpus()[i] });
            meter.emplace(
                std::move(own), !context || context->nameInterferingTasks, context ? context->controllerPid : 0);
        }
        hooks.before = [&] {
            if (meter)
                meter->begin();
            if (context && context->measuredBegin) {
                std::vector<long> tids;
                for (const auto& t : measuredTasks(*block, spec.mode))
                    tids.push_back(t.tid);
                context->measuredBegin(tids, awake ? awake->tids() : std::vector<long> {});
            }
        };
        hooks.after = [&](bool last) {
            if (last && context && context->measuredEnd)
                context->measuredEnd();
            if (meter)
                meter->mark(last);
        };
        return run::measure(driver, spec, facts.clock, holdsSwitches, hooks);
    }();
    facts.interference = meter ? &*meter : nullptr;
    if (measured)
        driver.finishTasks();
    (*group)->finish(kGrace);
    if (!measured)
        return explainFailure(*block, **group, driver, stop);
    if (info.syscallsPerOp >= 0 && !stop.stop_requested())
        facts.syscalls = run::countSyscalls(**kernel, syscallPassOps(measured->running.mean()), info.syscallsPerOp);
    if (const auto line = (*kernel)->linePlacement(); line && line->firstTask >= 0)
        facts.line = run::sharedLineOf(*line, *placement, topology);
    if (context) {
        if (!context->machineWarnings)
            context->machineWarnings = machineWarnings(readSysInfo());
        facts.machineWarnings = *context->machineWarnings;
        context->pinnedCpus.insert(placement->cpus.begin(), placement->cpus.end());
    } else {
        facts.machineWarnings = machineWarnings(readSysInfo());
    }
    facts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    auto result = run::assembleResult(std::move(facts), std::move(*measured), *block);
    if (awake) {
        result.keepAwakeTasks = awake->tids();
        result.keepAwakeCpuNs = static_cast<double>(awake->cpuNs());
    }
    return result;
}

} // namespace ctxscope
