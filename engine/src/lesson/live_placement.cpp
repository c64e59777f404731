// SPDX-License-Identifier: MIT
// Lesson "live-placement": what does re-pinning a running program do to it? Unlike the other
// lessons it runs no benchmark: it starts `workload pingpong` (one pair of threads handing a
// message back and forth through futexes), watches it through ProcessWatch unpinned, with both
// threads on one PU and with them across the farthest class of PUs this machine has, pinning
// through pin.h, and gives the threads their affinity back whatever happens.
//
// The workload runs as threads of this process (RunningWorkload), not as a child process:
// the engine does not know where a `ctxscope-cli` binary is (the worker may run over ssh from
// anywhere), forking a multi-threaded worker to run more threads is fragile, and threads end
// with the process, so neither a crash nor a lost controller leaves a busy pair running on the
// machine. The watch reads the whole process and keeps only the workload's threads.
#include "lesson/live_placement.h"

#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include "ctxscope/pin.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/thread_affinity.h"
#include "ctxscope/units.h"
#include "ctxscope/watch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <unistd.h>

#include <fmt/format.h>

namespace ctxscope::lesson {

namespace {

constexpr const char* kWorkload = "pingpong";
constexpr double kSettleS = 0.2; // after a pin, before the phase's watch begins

struct PhasePlan {
    std::string label;
    std::vector<int> cpus; // one per workload thread (ping, pong); empty: unpinned
    std::optional<Relation> relation;
};

std::string describe(Relation r)
{
    switch (r) {
    case Relation::SamePu:
        return "one PU";
    case Relation::Smt:
        return "SMT siblings of one core";
    case Relation::SharedL2:
        return "two cores sharing an L2 cache";
    case Relation::SharedL3:
        return "two cores sharing an L3 cache";
    case Relation::SamePackage:
        return "two cores of one package sharing no cache";
    case Relation::CrossPackage:
        return "two packages";
    case Relation::CrossNuma:
        return "two NUMA nodes";
    case Relation::Unpinned:
        break;
    }
    return "PUs the scheduler chose";
}

// Every class of pairs this machine's allowed PUs form (no same-pu), nearest first.
std::vector<PuPair> acrossPairs(const Topology& topology)
{
    std::vector<PuPair> across;
    for (const PuPair& p : representativePairs(topology))
        if (p.relation != Relation::SamePu)
            across.push_back(p);
    return across;
}

std::vector<PhasePlan> phasePlans(const Topology& topology)
{
    const std::vector<PuPair> across = acrossPairs(topology);
    const int one = across.empty() ? firstCpu(topology) : across.back().a;
    std::vector<PhasePlan> plans { { "unpinned", {}, std::nullopt },
        { fmt::format("both threads on CPU {}", one), { one, one }, Relation::SamePu } };
    if (!across.empty()) {
        const PuPair& far = across.back();
        plans.push_back(
            { fmt::format("ping0 on CPU {}, pong0 on CPU {} ({})", far.a, far.b, relationText(far.relation, far.kinds)),
                { far.a, far.b }, far.relation });
    }
    return plans;
}

std::vector<LessonStep> plan(const Topology& topology, const RunBudget&)
{
    std::vector<LessonStep> steps;
    for (PhasePlan& p : phasePlans(topology)) {
        LessonStep step { std::move(p.label), {} };
        step.spec.cpus = std::move(p.cpus); // where the phase pins (the worker keeps its reader off them); nothing runs
        steps.push_back(std::move(step));
    }
    return steps;
}

// False when stopped first.
bool pause(double seconds, std::stop_token stop)
{
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    wake.wait_for(lock, stop, std::chrono::duration<double>(seconds), [] { return false; });
    return !stop.stop_requested();
}

bool isWorkloadThread(long tid, const std::vector<WorkloadThread>& threads)
{
    return std::any_of(threads.begin(), threads.end(), [&](const WorkloadThread& t) { return t.tid == tid; });
}

// Gives the workload's threads the affinity they started with, then tells the hook, on every
// way out of the lesson; declared after the workload, so it runs before the threads stop.
class RestoreOnExit {
public:
    RestoreOnExit(const RunningWorkload& workload, const LivePlacementHooks& hooks)
        : m_workload(workload)
        , m_hooks(hooks)
    {
        for (const WorkloadThread& t : workload.threads())
            m_original.push_back(threadAffinity(static_cast<int>(t.tid)));
    }
    RestoreOnExit(const RestoreOnExit&) = delete;
    RestoreOnExit& operator=(const RestoreOnExit&) = delete;
    ~RestoreOnExit()
    {
        restore();
        if (m_hooks.restored)
            m_hooks.restored(m_workload.threads());
    }
    const std::vector<int>& original(std::size_t i) const { return m_original[i]; }

    // An error sentence for each thread whose affinity did not come back.
    std::vector<std::string> restore()
    {
        std::vector<std::string> failed;
        const auto& threads = m_workload.threads();
        for (std::size_t i = 0; i < threads.size(); ++i) {
            const int tid = static_cast<int>(threads[i].tid);
            // setThreadAffinity, not pinThread: the original set is given back as it was, even
            // where it holds a CPU this topology does not allow.
            if (!m_original[i].empty()
                && (!setThreadAffinity(tid, m_original[i]) || threadAffinity(tid) != m_original[i]))
                failed.push_back(fmt::format("{} (thread {}) did not get its affinity {} back", threads[i].name, tid,
                    formatCpuList(m_original[i])));
        }
        return failed;
    }

private:
    const RunningWorkload& m_workload;
    const LivePlacementHooks& m_hooks;
    std::vector<std::vector<int>> m_original;
};

// Watches the workload for one phase; every reading adds one value to each of its series.
Status watchPhase(LessonPhase& phase, const RunningWorkload& workload, int intervals,
    const std::function<void(double)>& tick, std::stop_token stop)
{
    const auto& threads = workload.threads();
    auto watch = ProcessWatch::start(::getpid());
    if (!watch)
        return watch.error();
    using Clock = std::chrono::steady_clock;
    auto last = Clock::now();
    std::uint64_t lastWork = workload.work();
    bool schedstat = true;
    for (int k = 0; k < intervals; ++k) {
        if (!pause(kLivePlacementIntervalS, stop))
            return makeError("the lesson was cancelled");
        auto sample = watch->next();
        const auto now = Clock::now();
        const std::uint64_t work = workload.work();
        if (!sample)
            return sample.error();
        const double span = std::chrono::duration<double>(now - last).count();
        double switches = 0, wait = 0;
        for (const ThreadRates& t : sample->threads) {
            if (!isWorkloadThread(t.tid, threads))
                continue;
            switches += t.voluntaryPerS + t.involuntaryPerS;
            if (t.runqueueWaitPerS)
                wait += *t.runqueueWaitPerS;
            else
                schedstat = false;
        }
        phase.workPerS.push_back(span > 0 ? static_cast<double>(work - lastWork) / span : 0);
        phase.switchesPerS.push_back(switches);
        phase.runqueueWaitPerS.push_back(wait);
        phase.seconds += span;
        last = now;
        lastWork = work;
        if (tick)
            tick(static_cast<double>(k + 1) / intervals);
    }
    if (!schedstat)
        phase.runqueueWaitPerS.clear();
    for (const ThreadSummary& t : watch->summary().threads) {
        if (!isWorkloadThread(t.tid, threads))
            continue;
        phase.involuntaryPerS += t.involuntaryPerS;
        phase.migrationsPerS += t.migrationsPerS;
        phase.migrationsLowerBound = phase.migrationsLowerBound || t.migrationsLowerBound;
        for (int cpu : t.cpusSeen)
            if (std::find(phase.cpusSeen.begin(), phase.cpusSeen.end(), cpu) == phase.cpusSeen.end())
                phase.cpusSeen.push_back(cpu);
    }
    std::sort(phase.cpusSeen.begin(), phase.cpusSeen.end());
    return {};
}

// Pins thread i of the workload to cpus[i]; the kernel's answer is checked by pinThread.
Status pinPhase(const Topology& topology, const RunningWorkload& workload, const std::vector<int>& cpus)
{
    const auto& threads = workload.threads();
    for (std::size_t i = 0; i < threads.size() && i < cpus.size(); ++i)
        if (auto change = pinThread(topology, threads[i].tid, { cpus[i] }); !change)
            return change.error();
    return {};
}

std::string classesNote(const Topology& topology)
{
    const std::vector<PuPair> across = acrossPairs(topology);
    if (across.empty())
        return "Only one PU is allowed here, so there was no second PU to spread the threads over.";
    std::vector<std::string> names;
    for (const PuPair& p : across)
        names.emplace_back(toString(p.relation));
    const PuPair& far = across.back();
    std::string note = fmt::format("This machine's allowed PUs pair in {} {} ({}); the farthest, {}, put the threads "
                                   "on {} (CPUs {} and {})",
        across.size(), across.size() == 1 ? "class" : "classes", fmt::join(names, ", "), toString(far.relation),
        describe(far.relation), far.a, far.b);
    if (across.size() == 1)
        note += ", so the farthest class is also the nearest";
    return note + ".";
}

Expected<LessonResult> run(const Topology& topology, const RunBudget& budget,
    const std::function<void(const LessonProgress&)>& progress, std::stop_token stop)
{
    return runLivePlacement(topology, budget, progress, stop);
}

// Conclusions --------------------------------------------------------------------------------

std::string perSecond(double seconds) { return formatDuration(seconds * 1e9) + " per second"; }

// "round trip" for "round trips".
std::string singular(const std::string& unit)
{
    if (unit.empty())
        return "unit";
    return unit.ends_with('s') ? unit.substr(0, unit.size() - 1) : unit;
}

std::string phaseName(const LessonPhase& p)
{
    if (p.cpus.empty())
        return "Unpinned"
            + (p.cpusSeen.empty()
                    ? std::string()
                    : fmt::format(" (ran on CPU{} {})", p.cpusSeen.size() == 1 ? "" : "s", formatCpuList(p.cpusSeen)));
    return capitalized(p.label);
}

std::string phaseSentence(const LessonPhase& p)
{
    const double work = medianOf(p.workPerS);
    const double switches = medianOf(p.switchesPerS);
    std::string s = fmt::format("{}: {} {} per second, {} switches per second", phaseName(p), formatCount(work),
        p.unit.empty() ? "units" : p.unit, formatCount(switches));
    if (work > 0)
        s += fmt::format(" ({:.2f} per {})", switches / work, singular(p.unit));
    s += fmt::format(", {} involuntary", formatCount(p.involuntaryPerS));
    if (!p.runqueueWaitPerS.empty())
        s += ", run-queue wait " + perSecond(medianOf(p.runqueueWaitPerS));
    s += fmt::format(", {} migrations per second{} (medians over {} readings in {:.1f} s)",
        formatCount(p.migrationsPerS), p.migrationsLowerBound ? " at least" : "", p.workPerS.size(), p.seconds);
    return s + ".";
}

// "2.10 times (95% interval ...) higher than", "within 10% of", "not told apart from" (no ratio
// where none can be told): b against a.
std::string versus(const std::vector<double>& a, const std::vector<double>& b)
{
    Comparison c = bootstrapRatio(a, b);
    c.verdict = (a.size() < 2 || b.size() < 2) ? Verdict::Unclear : verdictOf(c.low, c.high);
    switch (c.verdict) {
    case Verdict::Same:
        return "within 10% of";
    case Verdict::Unclear:
        return "not told apart from";
    case Verdict::Differs:
        break;
    }
    if (c.ratio >= 1)
        return formatComparison(c) + " higher than";
    return formatComparison(Comparison { 1 / c.ratio, 1 / c.high, 1 / c.low, c.verdict, {} }) + " lower than";
}

bool clearlyAbove(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() < 2 || b.size() < 2 || medianOf(b) <= 0)
        return false;
    const Comparison c = bootstrapRatio(b, a); // median(a) / median(b)
    return verdictOf(c.low, c.high) == Verdict::Differs && c.ratio > 1;
}

// Each reading's run-queue wait divided by its work: seconds of waiting per unit of work.
std::vector<double> waitPerUnit(const LessonPhase& p)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < p.workPerS.size() && i < p.runqueueWaitPerS.size(); ++i)
        if (p.workPerS[i] > 0)
            out.push_back(p.runqueueWaitPerS[i] / p.workPerS[i]);
    return out;
}

bool positive(const std::vector<double>& v) { return !v.empty() && medianOf(v) > 0; }

} // namespace

Expected<LessonResult> runLivePlacement(const Topology& topology, const RunBudget& budget,
    const std::function<void(const LessonProgress&)>& progress, std::stop_token stop, const LivePlacementHooks& hooks)
{
    if (!(budget.phaseSeconds >= kMinPhaseSeconds && budget.phaseSeconds <= kMaxPhaseSeconds))
        return makeError(fmt::format("a phase of live-placement lasts {} to {} seconds, not {}", kMinPhaseSeconds,
            kMaxPhaseSeconds, budget.phaseSeconds));
    const LessonDefinition& d = livePlacementLesson();
    LessonResult out;
    out.id = std::string(d.info.id);
    out.question = std::string(d.info.question);
    out.steps = plan(topology, budget);
    const std::vector<PhasePlan> plans = phasePlans(topology);
    const int n = static_cast<int>(plans.size());
    const int intervals = std::max(2, static_cast<int>(std::lround(budget.phaseSeconds / kLivePlacementIntervalS)));

    auto workload = RunningWorkload::start(kWorkload, 1);
    if (!workload)
        return workload.error();
    std::string unit;
    for (const WorkloadInfo& w : workloadList())
        if (w.name == kWorkload)
            unit = w.unit;
    RestoreOnExit restore(*workload, hooks); // before the workload stops, whatever happens below
    out.notes.push_back(classesNote(topology));
    if (readSysInfo().hypervisor && plans.size() > 2)
        out.notes.push_back(vmNote());

    for (int i = 0; i < n; ++i) {
        const PhasePlan& p = plans[static_cast<std::size_t>(i)];
        const auto report = [&](double fraction, const LessonPhase* done, std::string_view failure) {
            if (progress)
                progress(LessonProgress { i, n, p.label, (i + fraction) / n, nullptr, failure, done });
        };
        report(0, nullptr, {});
        if (!p.cpus.empty())
            if (Status pinned = pinPhase(topology, *workload, p.cpus); !pinned) {
                out.failures.push_back(p.label + ": " + pinned.error().message);
                report(1, nullptr, out.failures.back());
                continue;
            }
        if (!pause(kSettleS, stop))
            return makeError("the lesson was cancelled");
        LessonPhase phase { p.label, p.cpus, p.relation, 0, unit, {}, {}, {}, 0, 0, false, {} };
        const Status watched = watchPhase(
            phase, *workload, intervals, [&](double f) { report(f, nullptr, {}); }, stop);
        if (stop.stop_requested())
            return makeError("the lesson was cancelled");
        if (!watched) {
            out.failures.push_back(p.label + ": " + watched.error().message);
            report(1, nullptr, out.failures.back());
            continue;
        }
        out.phases.push_back(std::move(phase));
        report(1, &out.phases.back(), {});
    }
    std::vector<std::string> failed = restore.restore();
    if (failed.empty())
        out.notes.push_back(fmt::format(
            "Afterwards both threads had their affinity back (CPUs {}).", formatCpuList(restore.original(0))));
    for (std::string& f : failed)
        out.failures.push_back(std::move(f));
    out.conclusion = concludeLivePlacement(out.phases);
    return out;
}

std::vector<std::string> concludeLivePlacement(const std::vector<LessonPhase>& phases)
{
    if (phases.empty())
        return { "No phase of this lesson could be watched here; see the failures." };
    std::vector<std::string> out;
    for (const LessonPhase& p : phases)
        out.push_back(phaseSentence(p));
    const LessonPhase* unpinned = nullptr;
    const LessonPhase* onePu = nullptr;
    const LessonPhase* across = nullptr;
    for (const LessonPhase& p : phases) {
        if (p.cpus.empty())
            unpinned = &p;
        else if (p.relation == Relation::SamePu)
            onePu = &p;
        else
            across = &p;
    }
    // The work rate of each pinned phase against the unpinned one.
    if (unpinned)
        for (const LessonPhase* p : { onePu, across })
            if (p && positive(p->workPerS) && positive(unpinned->workPerS))
                out.push_back(fmt::format("With {} the pair's work rate was {} unpinned.", p->label,
                    versus(unpinned->workPerS, p->workPerS)));
    if (onePu && across && positive(onePu->workPerS) && positive(across->workPerS)) {
        out.push_back(fmt::format("With both threads on one PU the work rate was {} with them on {}.",
            versus(across->workPerS, onePu->workPerS),
            across->relation ? describe(*across->relation) : std::string("two PUs")));
        if (!onePu->runqueueWaitPerS.empty() && !across->runqueueWaitPerS.empty()) {
            // Per unit of work, so that a pair doing more does not look as if it waited more.
            const std::vector<double> one = waitPerUnit(*onePu);
            const std::vector<double> far = waitPerUnit(*across);
            std::string line = fmt::format("Run-queue wait per {}: {} on one PU, {} across ({} and {}); ",
                singular(onePu->unit), formatDuration(medianOf(one) * 1e9), formatDuration(medianOf(far) * 1e9),
                perSecond(medianOf(onePu->runqueueWaitPerS)), perSecond(medianOf(across->runqueueWaitPerS)));
            if (clearlyAbove(one, far))
                line += "on one PU a woken thread cannot run until its partner has gone to sleep.";
            else if (clearlyAbove(far, one))
                line += "across, a woken thread waits until its PU takes it up (wakes from idle, or on a VM until "
                        "the hypervisor runs that vCPU).";
            else
                line += "the watch saw no clear difference in waiting.";
            out.push_back(std::move(line));
        }
    }
    // Which placements got the most done: the best and those not clearly below it.
    const LessonPhase* best = nullptr;
    for (const LessonPhase& p : phases)
        if (!best || medianOf(p.workPerS) > medianOf(best->workPerS))
            best = &p;
    std::vector<std::string> top, below;
    for (const LessonPhase& p : phases)
        (&p == best || !clearlyAbove(best->workPerS, p.workPerS) ? top : below)
            .push_back(p.cpus.empty() ? std::string("unpinned") : p.label);
    if (phases.size() < 2 || !positive(best->workPerS))
        return out;
    if (below.empty())
        out.push_back("So here no placement of this pair got clearly more done than another: the differences are "
                      "within what the readings vary by.");
    else
        out.push_back(fmt::format("So for this pair, which hands every message to the other and waits for the answer, "
                                  "{} got the most done here and {} clearly less: where a program's threads run "
                                  "changes what it gets done.",
            fmt::join(top, " and "), fmt::join(below, " and ")));
    // Switches per unit of work in every phase: whether the switch rate followed the work.
    double lo = 0, hi = 0;
    for (const LessonPhase& p : phases) {
        const double work = medianOf(p.workPerS);
        if (work <= 0)
            return out;
        const double per = medianOf(p.switchesPerS) / work;
        lo = (&p == &phases.front() || per < lo) ? per : lo;
        hi = (&p == &phases.front() || per > hi) ? per : hi;
    }
    if (lo > 0 && hi <= lo * kMattersRatio)
        out.push_back(fmt::format("Every phase took {:.2f} to {:.2f} switches per {}: the switch rate rose and fell "
                                  "with the work, so here more switches per second meant more work done, not more "
                                  "overhead.",
            lo, hi, singular(phases.front().unit)));
    return out;
}

const LessonDefinition& livePlacementLesson()
{
    static const LessonDefinition d { { "live-placement",
                                          "What does re-pinning a running program do to its switches and its work?",
                                          "workload pingpong watched unpinned, both threads on one PU, across the "
                                          "farthest class; then restored",
                                          true },
        plan,
        [](const std::vector<RunResult>&) {
            return std::vector<std::string> { "This lesson watches a workload in phases; its conclusion comes from "
                                              "the phases, not from benchmark runs." };
        },
        run };
    return d;
}

} // namespace ctxscope::lesson
