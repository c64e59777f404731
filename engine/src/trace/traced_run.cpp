// SPDX-License-Identifier: MIT
#include "ctxscope/traced_run.h"
#include "ctxscope/handover_probe.h"
#include "ctxscope/sched_watch.h" // bpfUnavailable
#include "ctxscope/trace_decoder.h"
#include "ctxscope/trace_session.h"

#include "ctxscope/sysinfo.h"
#include "ctxscope/version.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace ctxscope {

std::string_view toString(TraceBackend backend)
{
    switch (backend) {
    case TraceBackend::Ftrace:
        return "ftrace";
    case TraceBackend::Bpf:
        return "bpf";
    case TraceBackend::Auto:
        return "auto";
    }
    return "ftrace";
}

std::optional<TraceBackend> traceBackendFrom(std::string_view name)
{
    for (const auto b : { TraceBackend::Ftrace, TraceBackend::Bpf, TraceBackend::Auto })
        if (name == toString(b))
            return b;
    return std::nullopt;
}

std::vector<int> pinnedTracedCpus(const std::vector<int>& cpus)
{
    std::vector<int> out = cpus;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.empty() || out.front() < 0)
        return {};
    return out;
}

std::string traceRefusal(const BenchSpec& spec, const TracedRunOptions& options)
{
    const BenchInfo* info = findBenchmark(spec.bench);
    if (info == nullptr)
        return {};
    if (info->userSpaceSwitches || info->busyWait || info->handoffsPerOp == nullptr)
        return fmt::format("{} has nothing to trace: it hands nothing over through the scheduler (--trace takes "
                           "futex, pipe, spin-futex, yield or ring)",
            spec.bench);
    if (options.ops > kMaxTracedOps)
        return fmt::format("--trace-ops {} is more than a trace holds: at most {}", options.ops, kMaxTracedOps);
    const bool unpinned = spec.cpus.empty() ? spec.relation == Relation::Unpinned : pinnedTracedCpus(spec.cpus).empty();
    if (options.backend == TraceBackend::Bpf && unpinned)
        return "the bpf trace backend cuts the hand-overs of pinned tasks only: give each task a CPU (--cpus 0,1), "
               "or trace with ftrace";
    if (options.backend == TraceBackend::Bpf && options.eventsWanted)
        return "--trace-out needs the events, which the bpf trace backend does not keep: trace with "
               "--trace-backend ftrace (or auto)";
    if (options.bufferKbPerCpu > kMaxTraceBufferKb)
        return fmt::format("--trace-buffer {} KiB is more than ctxscope asks for: at most {} KiB",
            options.bufferKbPerCpu, kMaxTraceBufferKb);
    return {};
}

Status traceInputCheck(const BenchSpec& spec, const TracedRunOptions& options, const std::string& out)
{
    if (std::string refusal = traceRefusal(spec, options); !refusal.empty())
        return makeError(refusal);
    if (!out.empty())
        if (auto format = traceFileFormat(out); !format)
            return format.error();
    return {};
}

Status traceAllowed(const BenchSpec& spec, const TracedRunOptions& options)
{
    if (options.backend == TraceBackend::Bpf) {
        if (std::string why = bpfUnavailable(); !why.empty())
            return makeError("--trace-backend bpf: " + why);
        return {};
    }
    // auto takes bpf where the run's tasks turn out pinned; where it cannot, ftrace must be allowed.
    if (options.backend == TraceBackend::Auto && !options.eventsWanted && !pinnedTracedCpus(spec.cpus).empty()
        && bpfUnavailable().empty())
        return {};
    return tracingAllowed();
}

std::uint64_t tracedOps(const TracedRunOptions& options, double untracedNsPerOp)
{
    if (options.ops > 0)
        return options.ops;
    const double quarterSecond = untracedNsPerOp > 0 ? 0.25e9 / untracedNsPerOp : 20000;
    return static_cast<std::uint64_t>(std::clamp(quarterSecond, 1000.0, 20000.0));
}

namespace {

// The run once more with its hand-overs cut in the kernel (TraceBackend::Bpf) by `probe`.
Expected<TracedRun> runProbed(std::unique_ptr<HandoverProbe> probe, const BenchSpec& traced, const Topology& topology,
    const RunResult& untraced, const RunCallbacks& callbacks, std::stop_token stop)
{
    Status started = makeError("the traced run never reached its measured ops");
    RunContext context;
    context.measuredBegin = [&](const std::vector<long>& tasks, const std::vector<long>& keepAwake) {
        started = probe->begin(tasks, keepAwake);
    };
    context.measuredEnd = [&] { probe->end(); };
    auto run = runBenchmark(traced, topology, callbacks, stop, &context);
    if (!run)
        return run.error();
    if (!started)
        return started.error();
    TraceSummary summary = probe->summary();
    probe.reset(); // the programs go as soon as their bins are read
    if (!summary.idleStates.empty())
        nameIdleStates(summary, readCpuIdle(summary.cpus.back()));
    const std::uint64_t ops = run->iterations * static_cast<std::uint64_t>(run->repetitions);
    finishTraceSummary(summary, ops, run->stats.mean, untraced.stats.mean, run->observed.switchesPerOp(),
        untraced.observed.switchesPerOp());
    if (!run->interference)
        run->interference = traceInterference(summary);
    return TracedRun { std::move(*run), {}, {}, std::move(summary) };
}

} // namespace

Expected<TracedRun> runTraced(const BenchSpec& spec, const Topology& topology, const RunResult& untraced,
    const TracedRunOptions& options, const RunCallbacks& callbacks, std::stop_token stop)
{
    BenchSpec traced = spec;
    traced.iterations = tracedOps(options, untraced.stats.mean);
    traced.repetitions = 1;
    traced.accountInterference = false; // its /proc scans would be in the trace
    // BPF where asked, or (auto) where it can: every task pinned, few enough, BPF allowed and
    // the programs loaded. Auto records with ftrace otherwise, and says why in a note when the
    // run was one BPF could have cut.
    const std::vector<int> pinned = pinnedTracedCpus(untraced.placement.cpus);
    const bool fewTasks = untraced.observed.tasks.size() <= kMaxProbedTasks;
    if (options.backend == TraceBackend::Bpf && (pinned.empty() || !fewTasks))
        return makeError(fmt::format("the bpf trace backend cuts the hand-overs of 1 to {} pinned tasks, and this "
                                     "run's {} tasks were {}",
            kMaxProbedTasks, untraced.observed.tasks.size(), pinned.empty() ? "not all pinned" : "pinned"));
    std::string notLoaded;
    const bool couldProbe
        = options.backend == TraceBackend::Auto && !options.eventsWanted && !pinned.empty() && fewTasks;
    if (couldProbe)
        notLoaded = bpfUnavailable();
    if (options.backend == TraceBackend::Bpf || (couldProbe && notLoaded.empty())) {
        auto probe = HandoverProbe::open(pinned);
        if (probe)
            return runProbed(std::move(*probe), traced, topology, untraced, callbacks, stop);
        if (options.backend == TraceBackend::Bpf)
            return probe.error();
        notLoaded = probe.error().message;
    }
    TraceOptions to;
    to.cpus = untraced.placement.cpus;
    std::sort(to.cpus.begin(), to.cpus.end());
    to.cpus.erase(std::unique(to.cpus.begin(), to.cpus.end()), to.cpus.end());
    to.bufferKbPerCpu = options.bufferKbPerCpu;
    auto session = TraceSession::open(to);
    if (!session)
        return session.error();
    Status started = makeError("the traced run never reached its measured ops");
    Status stopped;
    RunContext context;
    context.measuredBegin = [&](const std::vector<long>&, const std::vector<long>&) {
        started = (*session)->start();
        for (const auto& m : options.marks)
            if (started)
                started = (*session)->mark(m);
    };
    context.measuredEnd = [&] { stopped = (*session)->stop(); };
    auto run = runBenchmark(traced, topology, callbacks, stop, &context);
    if (!run)
        return run.error();
    if (!started)
        return started.error();
    if (!stopped)
        return stopped.error();
    auto raw = (*session)->collect();
    if (!raw)
        return raw.error();
    session->reset(); // the instance goes as soon as its buffers are read
    auto trace = decodeTrace(*raw);
    if (!trace)
        return trace.error();
    std::vector<long> tasks;
    for (const auto& t : run->observed.tasks)
        tasks.push_back(t.id);
    TraceSummary summary = cutHandovers(*trace, tasks, run->keepAwakeTasks);
    nameIdleStates(summary, readCpuIdle(to.cpus.empty() ? 0 : to.cpus.back()));
    const std::uint64_t ops = run->iterations * static_cast<std::uint64_t>(run->repetitions);
    finishTraceSummary(summary, ops, run->stats.mean, untraced.stats.mean, run->observed.switchesPerOp(),
        untraced.observed.switchesPerOp());
    if (!notLoaded.empty())
        summary.notes.push_back(fmt::format("Recorded with ftrace: the BPF backend, which would have cut this run of "
                                            "pinned tasks for less, could not run here: {}.",
            notLoaded));
    // The traced run reads no /proc (its scans would be in the trace): the trace says who ran.
    if (!run->interference)
        run->interference = traceInterference(summary);
    return TracedRun { std::move(*run), std::move(*raw), std::move(*trace), std::move(summary) };
}

std::vector<std::string> traceComments(const RunResult& untraced, std::uint64_t ops)
{
    const SysInfo info = readSysInfo();
    const auto& cpus = untraced.placement.cpus;
    return {
        fmt::format("ctxscope {}: {} ({}) on CPUs {} ({}), {} traced ops", kVersion, untraced.bench,
            toString(untraced.mode), cpus.empty() ? std::string("any") : fmt::format("{}", fmt::join(cpus, ",")),
            toString(untraced.placement.relation), ops),
        fmt::format("machine: {} ({}), kernel {}, {} CPUs online{}", info.hostName, info.cpuModel, info.kernel,
            info.onlineCpus, info.hypervisor ? ", a virtual machine" : ""),
    };
}

} // namespace ctxscope
