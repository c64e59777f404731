// SPDX-License-Identifier: MIT
// Lesson "spin-or-sleep": spin and burn a core, or sleep and pay a context switch? The same
// round trip with three waits (busy-wait, spin then sleep, sleep) on the nearest and the
// farthest pair of PUs, and the sleeping ones on one PU, where a spin cannot be answered.
#include "lesson/lesson_util.h"
#include "lesson/verdict.h"

#include "ctxscope/placement.h"

#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

constexpr const char* kWaits[] = { "spin", "spin-futex", "futex" };

std::vector<LessonStep> plan(const Topology& topology, const RunBudget& o)
{
    std::vector<LessonStep> steps;
    std::vector<PuPair> across;
    for (const PuPair& p : representativePairs(topology))
        if (p.relation != Relation::SamePu)
            across.push_back(p);
    if (across.size() > 2)
        across.erase(across.begin() + 1, across.end() - 1); // the nearest and the farthest class
    for (const PuPair& p : across)
        for (const char* bench : kWaits)
            steps.push_back(
                { fmt::format("{} threads, {} (CPUs {},{})", bench, relationText(p.relation, p.kinds), p.a, p.b),
                    spec(bench, BenchMode::Thread, { p.a, p.b }, o),
                    // With --trace, the farthest class's futex hand-over is the one the VM sentence quotes.
                    std::string_view(bench) == "futex" && &p == &across.back() });
    // spin itself is refused on one PU: two spinning tasks there hand over only at preemption.
    const int cpu = firstCpu(topology);
    for (const char* bench : { "spin-futex", "futex" })
        steps.push_back(
            { fmt::format("{} threads on one PU", bench), spec(bench, BenchMode::Thread, { cpu, cpu }, o) });
    return steps;
}

// The one place this lesson compares two medians (the lessons' shared verdict, verdict.h):
// "is 2.5 times (95% interval ...) faster than", "costs within 10% of", or "cannot be told
// apart from" with no ratio in it (and unclearTail after the other side). A disturbed
// comparison is no verdict: the lesson says noConclusion instead.
std::string compared(const Comparison& c)
{
    switch (c.verdict) {
    case Verdict::Same:
        return "costs within 10% of";
    case Verdict::Unclear:
        return "cannot be told apart from";
    case Verdict::Differs:
        break;
    }
    if (c.ratio >= 1)
        return "is " + formatComparison(c) + " faster than";
    return "is " + formatComparison(Comparison { 1 / c.ratio, 1 / c.high, 1 / c.low, c.verdict, {} }) + " slower than";
}

std::string unclearTail(const Comparison& c)
{
    return c.verdict == Verdict::Unclear ? ", as the runs vary too much" : "";
}

std::string oneWay(const RunResult& r) { return formatDuration(r.perHandoffNs.value_or(r.stats.p50 / 2)); }

// CPU time both tasks burn per round trip (getrusage) as a share of the two tasks' wall time.
// CPU time covers every op, slow ones included, so it is set against the mean round trip.
std::string cpuUse(const RunResult& r)
{
    const double perOp = r.stats.mean > 0 ? r.stats.mean : r.stats.p50;
    const double share = perOp > 0 ? r.observed.cpuNsPerOp / (2 * perOp) : 0;
    return fmt::format(
        "{} of CPU per round trip ({:.0f}% of both tasks' time)", formatDuration(r.observed.cpuNsPerOp), share * 100);
}

std::string slept(const RunResult& r)
{
    if (!r.handoffs)
        return {};
    return fmt::format(" ({:.0f}% of its hand-overs slept)", r.handoffs->sleptShare() * 100);
}

std::vector<std::string> conclude(const std::vector<RunResult>& results)
{
    std::vector<std::string> out;
    std::vector<const RunResult*> all;
    // Across PUs, per class: what the spin saves and what it costs.
    for (const RunResult& futex : results) {
        if (futex.bench != "futex" || futex.placement.onePu())
            continue;
        const Relation rel = futex.placement.relation;
        const RunResult* spin = findResult(results, "spin", BenchMode::Thread, rel);
        const RunResult* adaptive = findResult(results, "spin-futex", BenchMode::Thread, rel);
        std::string line = fmt::format(
            "On {}, one hand-over costs {} when the waiter sleeps (futex)", placementText(futex), oneWay(futex));
        if (spin)
            line += fmt::format(", {} when it spins", oneWay(*spin));
        if (adaptive)
            line += fmt::format(" and {} when it spins first{}", oneWay(*adaptive), slept(*adaptive));
        out.push_back(line + ".");
        if (spin) {
            const Comparison c = compare(*spin, futex); // ratio = median(futex) / median(spin)
            const double saved = futex.stats.p50 - spin->stats.p50;
            const bool saves = saved > 0 && c.verdict == Verdict::Differs && c.ratio > 1;
            out.push_back(!c.disturbed.empty()
                    ? noConclusion(c, "whether spinning beats sleeping there")
                    : fmt::format("There spinning {} sleeping{}: it saves {} per round trip, and burns {} against {} "
                                  "for futex.",
                        compared(c), unclearTail(c), saves ? formatDuration(saved) : std::string("nothing measurable"),
                        cpuUse(*spin), cpuUse(futex)));
            all.push_back(spin);
        }
        all.push_back(&futex);
    }
    // On one PU the partner cannot answer while the waiter spins.
    const auto onOne = [&](std::string_view bench) {
        return findResult(results, [&](const RunResult& r) { return r.bench == bench && r.placement.onePu(); });
    };
    const RunResult* futexOne = onOne("futex");
    const RunResult* adaptiveOne = onOne("spin-futex");
    if (futexOne && adaptiveOne) {
        const Comparison c = compare(*adaptiveOne, *futexOne);
        const std::string verdict = c.disturbed.empty()
            ? "spinning first " + compared(c) + " sleeping at once" + unclearTail(c) + ", and "
            : std::string();
        out.push_back(fmt::format("On one PU the partner cannot run while the waiter spins: spin-then-sleep took {} "
                                  "per round trip{}, futex {}; {}pure spin is refused there (it hands over only when "
                                  "the scheduler preempts a task).",
            median(*adaptiveOne), slept(*adaptiveOne), median(*futexOne), verdict));
        if (!c.disturbed.empty())
            out.push_back(noConclusion(c, "whether spinning first beats sleeping at once on one PU"));
        all.push_back(futexOne);
    }
    if (out.empty())
        return { "No experiment of this lesson could run here; see the failures." };
    out.push_back("So: spin when the partner runs on another PU and answers within the spin, and you can spare the "
                  "core; sleep when CPUs are shared or the wait is long. Spin-then-sleep is the compromise locks use.");
    if (std::string note = vmNote(all); !note.empty())
        out.push_back(note);
    return out;
}

// "Across CPUs sharing an L3: spinning is 2.50× faster than sleeping": the farthest class's spin
// against its futex, as the conclusion's "There spinning ..." sentence judges them.
std::optional<LessonHeadline> headline(const std::vector<RunResult>& results)
{
    const RunResult* futex = nullptr;
    for (const RunResult& r : results)
        if (r.bench == "futex" && !r.placement.onePu() && r.placement.relation != Relation::Unpinned)
            futex = &r; // the plan runs the nearest class first, the farthest last
    const RunResult* spin = futex ? findResult(results, "spin", BenchMode::Thread, futex->placement.relation) : nullptr;
    if (!spin)
        return std::nullopt;
    const Comparison c = compare(*spin, *futex); // ratio = median(futex) / median(spin)
    const std::string where = capitalized(relationPhrase(futex->placement.relation));
    LessonHeadline h = headlineOf(c,
        c.ratio >= 1 ? fmt::format("{}: spinning is {}× faster than sleeping", where, formatRatio(c.ratio))
                     : fmt::format("{}: spinning is {}× slower than sleeping", where, formatRatio(1 / c.ratio)),
        where + ": spinning costs within 10% of sleeping", where + ": spinning and sleeping cannot be told apart");
    if (c.ratio < 1 && h.kind == LessonHeadline::Kind::Differs) // the interval of the ratio quoted
        h = { h.text, h.kind, 1 / c.high, 1 / c.low };
    return h;
}

} // namespace

const LessonDefinition& spinOrSleepLesson()
{
    static const LessonDefinition d { { "spin-or-sleep", "Spin and burn a core, or sleep and pay a context switch?",
                                          "spin, spin-futex, futex threads: nearest and farthest class; spin-futex "
                                          "and futex on one PU" },
        plan, conclude, nullptr, headline };
    return d;
}

} // namespace ctxscope::lesson
