// SPDX-License-Identifier: MIT
// Lesson "sleeping-cpu": why is the other CPU slow to answer? A futex round trip across the
// farthest class, untraced and traced, then the same with both CPUs kept awake (a SCHED_IDLE
// polling thread on each, BenchSpec::keepAwakeCpus), then with /dev/cpu_dma_latency held at 0
// where this machine has idle states to hold shallow and the right to hold them; last, unpinned,
// where the kernel put the woken task (its own CPU, an idle one, a busy one) and what each cost.
// The traced runs say how much of a hand-over was the wakee's CPU leaving idle, and which state
// it left.
#include "lesson/handover_share.h"
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include "ctxscope/runner.h"
#include "ctxscope/sysinfo.h"

#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

constexpr const char* kIdleExit = "idle exit";

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    const auto p = farthestPair(topology);
    if (!p)
        return {};
    const std::string where = fmt::format("{} (CPUs {},{})", toString(p->relation), p->a, p->b);
    std::vector<LessonStep> steps { { "futex threads, " + where, spec("futex", BenchMode::Thread, { p->a, p->b }, o),
        true } };
    BenchSpec awake = spec("futex", BenchMode::Thread, { p->a, p->b }, o);
    awake.keepAwakeCpus = { p->a, p->b }; // each task is the other's wakee in turn
    steps.push_back({ "futex threads, " + where + ", both CPUs kept awake", awake, true });
    // Holding C-states shallow changes something only where there are states, and needs root.
    if (!readSysInfo().idleStates.empty() && checkPmQos(0)) {
        BenchSpec shallow = spec("futex", BenchMode::Thread, { p->a, p->b }, o);
        shallow.pmQosUs = 0;
        steps.push_back({ "futex threads, " + where + ", /dev/cpu_dma_latency held at 0", shallow, true });
    }
    // Left to the scheduler: does it avoid the sleeping CPU by keeping the wakee on the waker's?
    steps.push_back({ "futex threads, unpinned", unpinnedSpec("futex", BenchMode::Thread, o), true });
    return steps;
}

bool across(const RunResult& r)
{
    return r.bench == "futex" && !r.placement.onePu() && r.placement.relation != Relation::Unpinned;
}

struct Runs {
    const RunResult* asIs = nullptr;
    const RunResult* awake = nullptr;
    const RunResult* shallow = nullptr;
    const RunResult* unpinned = nullptr;
};

Runs runsOf(const std::vector<RunResult>& results)
{
    return { findResult(results, [](const RunResult& r) { return across(r) && !r.spec.conditioned(); }),
        findResult(results, [](const RunResult& r) { return across(r) && !r.spec.keepAwakeCpus.empty(); }),
        findResult(results,
            [](const RunResult& r) { return across(r) && r.spec.pmQosUs.has_value() && r.spec.keepAwakeCpus.empty(); }),
        findResult(results, [](const RunResult& r) {
            return r.bench == "futex" && r.placement.relation == Relation::Unpinned && !r.spec.conditioned();
        }) };
}

// The state the idle exits left most often: "HLT", "C1E".
std::string idleStateName(const RunResult& r)
{
    if (!r.trace || r.trace->idleStates.empty())
        return "idle";
    return r.trace->idleStates.front().name;
}

// "Across CPUs 0,1 a traced hand-over took 11.7 µs, 7.0 µs of it CPU 1 leaving HLT (the idle
// state it left most often; no cpuidle driver: on a VM, an exit to the hypervisor)."
std::string asIsSentence(const RunResult& r, const HandoverShares& shares)
{
    std::string out = fmt::format("On {}, a traced hand-over took {} from the wake call to the wakee back in user "
                                  "space (each step's median weighed by its share of the {} hand-overs)",
        placementText(r), formatDuration(shares.ns), formatCount(static_cast<double>(shares.handovers)));
    const StepShare* idle = shares.find(kIdleExit);
    if (!idle)
        return out
            + fmt::format("; no hand-over found the wakee's CPU idle, so there was no idle exit to remove ({} of {} "
                          "wake-ups found it running another task).",
                formatCount(static_cast<double>(r.trace->targetStates.preempting + r.trace->targetStates.waiting)),
                formatCount(static_cast<double>(r.trace->targetStates.total())));
    out += fmt::format(", {} of it ({:.0f}%) the wakee's CPU leaving {}", formatDuration(idle->ns), 100 * idle->share,
        idleStateName(r));
    if (!r.trace->idleStates.empty() && !r.trace->idleStates.front().note.empty())
        out += " (" + r.trace->idleStates.front().note + ")";
    return out + ".";
}

// What the condition left of the hand-over: its typical time and whether the idle exit went.
std::string conditionSentence(const char* what, const HandoverShares& shares)
{
    const StepShare* idle = shares.find(kIdleExit);
    std::string out = fmt::format("{}, a traced hand-over took {}", what, formatDuration(shares.ns));
    if (!idle)
        out += fmt::format(
            "; the idle exit is gone (0 of {} hand-overs)", formatCount(static_cast<double>(shares.handovers)));
    else
        out += fmt::format("; the idle exit is still there in {} of {} hand-overs, {} each",
            formatCount(static_cast<double>(idle->count)), formatCount(static_cast<double>(shares.handovers)),
            formatDuration(idle->ns));
    if (!shares.steps.empty())
        out += fmt::format(", and its largest step was {}", stepText(shares.steps.front()));
    return out + ".";
}

// The untraced A/B: the condition against the run as is, the ratio taken the way it is above 1.
std::string abSentence(const char* what, const RunResult& asIs, const RunResult& with)
{
    const bool helped = with.stats.p50 <= asIs.stats.p50;
    const Comparison c = helped ? compare(with, asIs) : compare(asIs, with);
    const std::string costs
        = fmt::format("Untraced, a round trip cost {} as is and {} {}", withSpread(asIs), withSpread(with), what);
    if (!c.disturbed.empty())
        return costs + ". " + noConclusion(c, std::string("what ") + what + " changes");
    const std::string slower = helped ? "as is" : std::string(what);
    switch (c.verdict) {
    case Verdict::Differs:
        return fmt::format("{}: {} it took {} as long, so {} matters here.", costs, slower, formatComparison(c), what);
    case Verdict::Same:
        return fmt::format("{}: within 10% either way ({}), so {} changes nothing here.", costs, formatRange(c), what);
    case Verdict::Unclear:
        break;
    }
    return fmt::format("{}: {} it took {} as long; {} whether {} changes it by 10% or more.", costs, slower,
        formatRange(c), unclearWhy(), what);
}

// The unpinned run against the pinned one as is, and where the kernel put the woken task.
std::string unpinnedSentence(const RunResult& asIs, const RunResult& unpinned)
{
    std::string out = fmt::format("Left to the scheduler, a round trip cost {} on {}, against {} on {}.",
        withSpread(unpinned), cpusSeenText(unpinned), withSpread(asIs), placementText(asIs));
    if (std::string placed = placementSentence(unpinned); !placed.empty())
        return out + " " + placed;
    return out
        + " Where the kernel put the woken task is known only from a trace (ctxscope-cli lesson sleeping-cpu traces "
          "as root).";
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    const Runs runs = runsOf(results);
    if (!runs.asIs)
        return { "The futex run across CPUs as is could not run here (this lesson needs two CPUs); see the failures." };
    std::vector<std::string> out;
    const auto asIsShares = handoverShares(*runs.asIs);
    if (asIsShares)
        out.push_back(asIsSentence(*runs.asIs, *asIsShares));
    else
        out.push_back(fmt::format("The run on {} was not traced, so what the wakee's CPU was doing is not measured "
                                  "here, only the round trips below (ctxscope-cli lesson sleeping-cpu traces as root).",
            placementText(*runs.asIs)));
    if (runs.awake) {
        if (const auto shares = handoverShares(*runs.awake))
            out.push_back(conditionSentence("Both CPUs kept awake", *shares));
        out.push_back(abSentence("kept awake", *runs.asIs, *runs.awake));
        if (runs.awake->keepAwakeCpuNs > 0 && runs.awake->seconds > 0)
            out.push_back(fmt::format("The price: the keep-awake threads burned {} of CPU time, {:.0f}% of the "
                                      "kept CPUs' time over the run, time they would have idled (and, on bare "
                                      "metal, saved power in).",
                formatDuration(runs.awake->keepAwakeCpuNs),
                100 * runs.awake->keepAwakeCpuNs
                    / (runs.awake->seconds * 1e9 * static_cast<double>(runs.awake->spec.keepAwakeCpus.size()))));
    }
    if (runs.shallow) {
        if (const auto shares = handoverShares(*runs.shallow))
            out.push_back(conditionSentence("With /dev/cpu_dma_latency held at 0", *shares));
        out.push_back(abSentence("held shallow", *runs.asIs, *runs.shallow));
    } else if (runs.awake) {
        out.push_back("Holding C-states shallow (--pm-qos-us 0) was not tried: it needs cpuidle states to hold, which "
                      "this machine lacks (a VM idles in HLT), or the right to open /dev/cpu_dma_latency.");
    }
    if (runs.unpinned)
        out.push_back(unpinnedSentence(*runs.asIs, *runs.unpinned));
    std::vector<const RunResult*> all;
    for (const RunResult* r : { runs.asIs, runs.awake, runs.shallow, runs.unpinned })
        if (r)
            all.push_back(r);
    if (std::string note = vmNote(all); !note.empty())
        out.push_back(note);
    return out;
}

// "Across packages: 2.39× slower while the other CPU sleeps"
std::optional<LessonHeadline> headline(const std::vector<RunResult>& results)
{
    const Runs runs = runsOf(results);
    if (!runs.asIs || !runs.awake)
        return std::nullopt;
    const bool helped = runs.awake->stats.p50 <= runs.asIs->stats.p50;
    const Comparison c = helped ? compare(*runs.awake, *runs.asIs) : compare(*runs.asIs, *runs.awake);
    const std::string where = capitalized(relationPhrase(runs.asIs->placement.relation));
    return headlineOf(c,
        helped ? fmt::format("{}: {}× slower while the other CPU sleeps", where, formatRatio(c.ratio))
               : fmt::format("{}: {}× slower with the CPUs kept awake", where, formatRatio(c.ratio)),
        "Keeping the other CPU awake changes nothing here: within 10%", "Kept awake: the runs vary too much to say");
}

} // namespace

const LessonDefinition& sleepingCpuLesson()
{
    static const LessonDefinition d { { "sleeping-cpu", "Why is the other CPU slow to answer?",
                                          "futex threads across the farthest class, untraced and traced; then with "
                                          "both CPUs kept awake; then with /dev/cpu_dma_latency held at 0 where this "
                                          "machine has idle states; then unpinned, where the kernel put the woken "
                                          "task (traced where tracing is allowed)",
                                          false, true },
        plan, conclude, nullptr, headline };
    return d;
}

} // namespace ctxscope::lesson
