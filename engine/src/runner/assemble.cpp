// SPDX-License-Identifier: MIT
#include "runner/assemble.h"

#include "ctxscope/sysinfo.h"
#include "os/sys.h"
#include "runner/selfcheck.h"

#include <fmt/core.h>

namespace ctxscope::run {

namespace {

TaskObservation observe(int index, const TaskSlot& slot)
{
    TaskObservation t;
    t.task = index;
    t.id = static_cast<long>(slot.id);
    t.pinnedCpu = slot.pinnedCpu;
    for (int cpu = 0; cpu < kCpuWords * 64; ++cpu)
        if (slot.cpusSeen[cpu / 64] & (std::uint64_t { 1 } << (cpu % 64)))
            t.cpusSeen.push_back(cpu);
    t.cpuChanges = slot.cpuChanges;
    t.voluntarySwitches = slot.voluntary;
    t.involuntarySwitches = slot.involuntary;
    t.cpuNs = slot.cpuNs;
    if (slot.perfErrno == 0) {
        t.perfContextSwitches = slot.perfSwitches;
        t.perfMigrations = slot.perfMigrations;
    }
    return t;
}

std::string perfRefusal(int err)
{
    if (err == ENOENT || err == ENOSYS || err == EOPNOTSUPP)
        return "not available: this kernel has no perf software counters (" + sys::errnoText(err) + ").";
    return fmt::format("not permitted: perf_event_paranoid is {}; counting context switches needs kernel-side "
                       "counting (paranoid <= 1 or CAP_PERFMON), and user-space-only counters never see one ({}).",
        perfEventParanoid(), sys::errnoText(err));
}

Observed observeAll(const ControlBlock& block, std::uint64_t ops, std::uint64_t checkOps)
{
    Observed o;
    std::uint64_t voluntary = 0;
    std::uint64_t involuntary = 0;
    std::uint64_t cpuNs = 0;
    std::uint64_t perfSwitches = 0;
    std::uint64_t perfMigrations = 0;
    std::uint64_t sampledChanges = 0;
    int refused = 0;
    std::vector<bool> seen(static_cast<std::size_t>(kCpuWords) * 64, false);
    for (int i = 0; i < block.tasks(); ++i) {
        const TaskSlot& slot = block.slot(i);
        TaskObservation t = observe(i, slot);
        voluntary += t.voluntarySwitches;
        involuntary += t.involuntarySwitches;
        cpuNs += t.cpuNs;
        sampledChanges += t.cpuChanges;
        if (t.perfContextSwitches) {
            perfSwitches += *t.perfContextSwitches;
            perfMigrations += t.perfMigrations.value_or(0);
        } else if (refused == 0) {
            refused = slot.perfErrno;
        }
        for (int cpu : t.cpusSeen)
            seen[static_cast<std::size_t>(cpu)] = true;
        o.tasks.push_back(std::move(t));
    }
    const double perOp = ops > 0 ? 1.0 / static_cast<double>(ops) : 0;
    o.voluntaryPerOp = static_cast<double>(voluntary) * perOp;
    o.involuntaryPerOp = static_cast<double>(involuntary) * perOp;
    o.cpuNsPerOp = static_cast<double>(cpuNs) * perOp;
    o.migrations = sampledChanges;
    o.perfCheckOps = checkOps;
    if (refused == 0 && checkOps > 0) {
        o.perfSwitchesPerOp = static_cast<double>(perfSwitches) / static_cast<double>(checkOps);
        o.perfMigrations = perfMigrations;
    } else {
        o.perfStatus = perfRefusal(refused);
    }
    for (std::size_t cpu = 0; cpu < seen.size(); ++cpu)
        if (seen[cpu])
            o.cpusSeen.push_back(static_cast<int>(cpu));
    return o;
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

// The CPUs the tasks were pinned to, and where the unpinned ones were seen.
std::optional<Interference> accountInterference(
    const InterferenceMeter& meter, const Placement& placement, const Observed& observed)
{
    std::vector<int> cpus;
    std::vector<std::vector<int>> seen;
    for (const TaskObservation& t : observed.tasks) {
        seen.push_back(t.cpusSeen);
        if (t.pinnedCpu >= 0)
            cpus.push_back(t.pinnedCpu);
        else
            cpus.insert(cpus.end(), t.cpusSeen.begin(), t.cpusSeen.end());
    }
    for (int cpu : placement.cpus)
        if (cpu >= 0)
            cpus.push_back(cpu);
    return meter.finish(std::move(cpus), seen);
}

} // namespace

std::vector<std::string> switchWarnings(double claimed, double observed, bool onePu)
{
    std::vector<std::string> out;
    if (claimed > 0 && observed < 0.9 * claimed) {
        out.push_back(fmt::format("Observed {:.2f} context switches per op, fewer than the {:g} one op holds when "
                                  "every hand-over puts a task to sleep; {}",
            observed, claimed,
            onePu ? "on one PU that should not happen, so treat the time per switch with suspicion."
                  : "on separate CPUs a task that finds the token already there does not sleep, so the time "
                    "per switch is a mix of switches and hand-overs without one."));
    } else if (claimed > 0 && observed > 1.1 * claimed) {
        out.push_back(fmt::format("Observed {:.2f} context switches per op, more than the {:g} one op holds: wake-ups "
                                  "preempted the task that woke another, and it had to run again just to sleep, so "
                                  "the time per switch (time per op / {:g}) is an upper bound.",
            observed, claimed, claimed));
    } else if (claimed == 0 && observed > 0.05) {
        out.push_back(fmt::format("Observed {:.2f} context switches per op where the op holds none: other work "
                                  "preempted the task, and its time is in the samples.",
            observed));
    }
    return out;
}

std::string preemptionNote(const Observed& o)
{
    std::uint64_t voluntary = 0;
    std::uint64_t involuntary = 0;
    for (const TaskObservation& t : o.tasks) {
        voluntary += t.voluntarySwitches;
        involuntary += t.involuntarySwitches;
    }
    std::string out;
    if (involuntary > 0)
        out = fmt::format("The scheduler preempted the spinning tasks {} time{} while they measured; each "
                          "preemption stalls a hand-over for up to a time slice, in the slowest samples.",
            involuntary, involuntary == 1 ? "" : "s");
    if (voluntary > 0)
        out += fmt::format("{}The tasks slept {} time{} (voluntary switches) where a busy-wait never sleeps: "
                           "something else (a page fault, a signal) blocked them.",
            out.empty() ? "" : " ", voluntary, voluntary == 1 ? "" : "s");
    return out;
}

std::string syscallWarning(const SyscallCheck& check)
{
    if (!check.perOp)
        return {};
    const double counted = *check.perOp;
    if (counted >= check.claimed - 0.05 && counted <= check.claimed * 1.1 + 0.05)
        return {};
    return fmt::format("Counted {:.2f} system calls per op where the op makes {:g} by construction, so its time is "
                       "not what the op text says.",
        counted, check.claimed);
}

std::string spreadWarning(const RunResult& r)
{
    std::string s = "The median moved by " + percent(r.repetitionCv) + " (CV) between the "
        + std::to_string(r.repetitions) + " repetitions, more than 5%: ";
    if (!r.interference)
        return s + "the machine was busy, or the run needs a longer minimum time (what else ran could not be read).";
    if (std::string cause = interferenceCause(*r.interference); !cause.empty())
        return s + cause + ".";
    return s
        + fmt::format("neither other tasks ({}) nor the hypervisor ({}) took much of the measured CPUs, so the "
                      "run needs a longer minimum time (--min-time).",
            percent(r.interference->maxOtherShare()), percent(r.interference->maxStealShare()));
}

SharedLine sharedLineOf(const bench::LinePlacement& raw, const Placement& placement, const Topology& topology)
{
    SharedLine line;
    line.firstTask = raw.firstTask;
    line.firstCpu = raw.firstCpu;
    if (raw.nodeAtTouch >= 0)
        line.nodeAtTouch = raw.nodeAtTouch;
    // Where move_pages is refused (a container's seccomp profile without CAP_SYS_NICE), the
    // process's own numa_maps still lists the mapping's node.
    const std::optional<int> listed = raw.node < 0 && raw.page ? sys::numaMapsNode(raw.page) : std::nullopt;
    if (raw.node >= 0)
        line.node = raw.node;
    else if (listed)
        line.node = listed;
    else if (raw.node == -ENOSYS)
        line.nodeError = "this kernel has no NUMA support (move_pages: " + sys::errnoText(ENOSYS) + ")";
    else
        line.nodeError = "the kernel did not say where the page lives (move_pages: " + sys::errnoText(-raw.node) + ")";
    for (int cpu : placement.cpus) {
        const PuInfo* pu = cpu >= 0 ? topology.findPu(cpu) : nullptr;
        line.taskNodes.push_back(pu ? pu->numaNode : -1);
    }
    return line;
}

RunResult assembleResult(RunFacts facts, Measurement&& m, const ControlBlock& block)
{
    RunResult r;
    r.spec = *facts.spec;
    r.bench = std::string(facts.info->name);
    r.op = std::string(facts.info->op);
    r.mode = facts.mode;
    r.placement = facts.placement;
    r.switchesPerOp = facts.info->switchesPerOp(facts.placement.tasks, facts.placement.onePu());
    r.userSpaceSwitches = facts.info->userSpaceSwitches;
    r.policy = facts.policy;
    r.clock = facts.clock;
    r.opsPerSample = m.opsPerSample;
    r.iterations = m.iterations;
    r.repetitions = m.repetitions;
    r.totalSamples = m.running.count();
    r.percentilesFromHistogram = r.totalSamples > m.raw.size();
    r.stats = r.percentilesFromHistogram ? summarize(m.running, m.histogram) : summarize(m.raw);
    if (r.switchesPerOp > 0)
        r.perSwitchNs = r.stats.p50 / r.switchesPerOp;
    if (facts.info->handoffsPerOp)
        r.handoffsPerOp = facts.info->handoffsPerOp(facts.placement.tasks, facts.placement.onePu());
    if (r.handoffsPerOp > 0)
        r.perHandoffNs = r.stats.p50 / r.handoffsPerOp;
    r.handoffs = m.handoffs;
    r.repetitionMedians = m.repetitionMedians;
    r.repetitionCv = summarize(m.repetitionMedians).cv;
    r.samples = std::move(m.raw);
    r.histogram = m.histogram.buckets();
    r.observed = observeAll(block, m.iterations * static_cast<std::uint64_t>(m.repetitions), m.checkOps);
    if (m.checkOps > 0)
        r.observed.perfCheckNsPerOp = m.checkNs / static_cast<double>(m.checkOps);
    if (facts.interference)
        r.interference = accountInterference(*facts.interference, r.placement, r.observed);
    r.seconds = facts.seconds;
    r.syscalls = std::move(facts.syscalls);
    r.line = std::move(facts.line);

    auto& w = r.warnings;
    w = std::move(facts.warnings);
    if (r.repetitions >= 2 && r.repetitionCv > 0.05)
        w.push_back(spreadWarning(r));
    else if (r.repetitions == 1 && r.stats.cv > 0.05)
        w.push_back("The samples vary by " + percent(r.stats.cv)
            + " (CV), more than 5%; with one repetition there is no run-to-run spread to compare.");
    double kernelSwitches = r.userSpaceSwitches ? 0 : r.switchesPerOp;
    // A spin-then-sleep op holds a switch per hand-over that slept: the tasks counted them.
    if (r.handoffs)
        kernelSwitches = r.handoffs->sleptShare() * r.handoffsPerOp;
    for (std::string& s : switchWarnings(kernelSwitches, r.observed.switchesPerOp(), r.placement.onePu()))
        w.push_back(std::move(s));
    if (facts.info->busyWait)
        if (std::string s = preemptionNote(r.observed); !s.empty())
            w.push_back(std::move(s));
    for (const TaskObservation& t : r.observed.tasks)
        for (int cpu : t.cpusSeen)
            if (t.pinnedCpu >= 0 && cpu != t.pinnedCpu) {
                w.push_back(
                    fmt::format("Task {} was pinned to CPU {} but was seen on CPU {}.", t.task, t.pinnedCpu, cpu));
                break;
            }
    if (r.syscalls)
        if (std::string s = syscallWarning(*r.syscalls); !s.empty())
            w.push_back(std::move(s));
    if (r.line && r.line->node && r.line->nodeAtTouch && *r.line->node != *r.line->nodeAtTouch)
        w.push_back(fmt::format("The spin line's page moved from NUMA node {} (where the first touch put it) to node "
                                "{} during the run: automatic NUMA balancing moves pages towards the tasks using them.",
            *r.line->nodeAtTouch, *r.line->node));
    for (std::string& s : m.notes)
        w.push_back(std::move(s));
    if (r.interference)
        if (std::string s = disturbedWarning(*r.interference); !s.empty())
            w.push_back(std::move(s));
    // The machine's and the build's own caveats (VM, governor, debug or sanitizer build).
    for (std::string& s : facts.machineWarnings)
        w.push_back(std::move(s));
    return r;
}

} // namespace ctxscope::run
