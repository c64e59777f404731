// SPDX-License-Identifier: MIT
// Every lesson's sentences checked against its numbers, over synthetic results: clear
// differences, no difference, a bimodal unpinned run, one relation class only, a failed
// step, noisy large working sets, a VM and bare metal, each also with disturbed runs. A
// conclusion must never say "does not matter" beside a 2x ranking, quote a figure that was not
// measured, say "rose" where the cost fell, or draw a conclusion from a disturbed run.

// GCC 12 at -O2 with ASan warns that libstdc++'s own std::regex automaton copies a
// std::function it "may" not have initialised (a known false positive, GCC bug 105562); the
// pragma must come before the headers, where the warning is reported.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "lesson/handover_share.h"
#include "lesson/verdict.h"
#include "lesson_synthetic.h"
#include "sizes.h"

#include "ctxscope/interference.h"
#include "ctxscope/lesson.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/units.h"
#include "ctxscope/working_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

using namespace ctxscope;
using ctxscope::test::synthRun;

namespace {

struct Case {
    std::string name;
    std::string lesson;
    std::vector<RunResult> results;
};

using test::kMiB;
constexpr double kMatters = 1.10;

// Every duration the lesson may quote: medians, repetition medians, per-switch figures and
// the switch costs derived from the measured quartiles the way the sweep derives them.
std::set<std::string> measuredFigures(const std::vector<RunResult>& results)
{
    std::set<std::string> out;
    auto add = [&](double ns) { out.insert(formatDuration(ns)); };
    for (const RunResult& r : results) {
        add(r.stats.p50);
        for (double m : r.repetitionMedians)
            add(m);
        if (r.perSwitchNs)
            add(*r.perSwitchNs);
        add(r.perHandoffNs.value_or(r.stats.p50 / 2));
        if (r.observed.cpuNsPerOp > 0)
            add(r.observed.cpuNsPerOp);
        if (r.keepAwakeCpuNs > 0)
            add(r.keepAwakeCpuNs);
        if (r.trace)
            for (const TraceOtherTask& t : r.trace->waitedBehind)
                add(t.ns);
        // What a spin saves against the futex run of the same placement.
        if (r.bench == "spin")
            for (const RunResult& f : results)
                if (f.bench == "futex" && f.placement.relation == r.placement.relation && f.stats.p50 > r.stats.p50)
                    add(f.stats.p50 - r.stats.p50);
        // A traced run's hand-overs and their steps, as the segments give them: across CPUs and,
        // where an unpinned run's wakee was put on the waker's CPU, on one.
        for (const bool cross : { true, false })
            if (const auto shares = r.trace ? lesson::handoverShares(*r.trace, cross) : std::nullopt) {
                add(shares->ns);
                for (const auto& step : shares->steps)
                    add(step.ns);
            }
        if (r.bench != "futex")
            continue;
        WorkingSetPoint p;
        p.tasks = 2;
        p.switchesPerOp = r.switchesPerOp;
        p.roundTrip = quartilesOf(r);
        if (r.spec.wsBytes > 0) {
            auto touch = std::find_if(results.begin(), results.end(),
                [&](const RunResult& t) { return t.bench == "touch" && t.spec.wsBytes == r.spec.wsBytes; });
            if (touch == results.end())
                continue;
            p.touch = quartilesOf(*touch);
        }
        deriveSwitchCost(p);
        for (const auto& c : { p.switchCostNs, p.switchCostLowNs, p.switchCostHighNs })
            if (c)
                add(*c);
    }
    return out;
}

// The durations a sentence quotes, as formatDuration would write them ("5.3–5.41 µs" gives
// "5.3 µs" and "5.41 µs").
std::vector<std::string> quotedFigures(std::string text)
{
    static const std::regex range(R"((\d+(?:\.\d+)?)( (?:ns|µs|ms|s))?–(\d+(?:\.\d+)?) (ns|µs|ms|s)\b)");
    static const std::regex single(R"((\d+(?:\.\d+)?) (ns|µs|ms|s)\b)");
    std::vector<std::string> out;
    std::smatch m;
    while (std::regex_search(text, m, range)) {
        out.push_back(m[1].str() + (m[2].matched ? m[2].str() : " " + m[4].str()));
        out.push_back(m[3].str() + " " + m[4].str());
        text = m.prefix().str() + " " + m.suffix().str();
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), single); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str() + " " + (*it)[2].str());
    return out;
}

double pinnedSpan(const std::vector<RunResult>& results, const std::string& bench)
{
    double lo = 0;
    double hi = 0;
    for (const RunResult& r : results) {
        if (r.bench != bench || r.placement.relation == Relation::Unpinned)
            continue;
        lo = lo == 0 ? r.stats.p50 : std::min(lo, r.stats.p50);
        hi = std::max(hi, r.stats.p50);
    }
    return lo > 0 ? hi / lo : 1;
}

bool contains(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

double durationNs(const std::string& quoted)
{
    const double v = std::stod(quoted);
    const std::string unit = quoted.substr(quoted.find(' ') + 1);
    return unit == "ns" ? v : unit == "µs" ? v * 1e3 : unit == "ms" ? v * 1e6 : v * 1e9;
}

bool quotesRatio(const std::string& s) { return std::regex_search(s, std::regex(R"(\d times)")); }

// Verdicts that read straight, disturbed or not: a disturbed run is a sentence of its own at the
// start, with its cause, and nothing after it repeats the cause; no caveat sits in brackets
// inside a figure; "cannot be told apart" and "no conclusion" never quote a ratio, and an unclear
// verdict quotes only the range it could not decide on. With every
// run disturbed, no ratio is quoted at all and nothing is called the same.
void checkReadsStraight(const Case& c, const std::vector<std::string>& sentences)
{
    std::vector<const RunResult*> disturbed;
    for (const RunResult& r : c.results)
        if (lesson::wasDisturbed(r))
            disturbed.push_back(&r);
    ASSERT_GE(sentences.size(), disturbed.size());
    for (std::size_t i = 0; i < disturbed.size(); ++i) {
        SCOPED_TRACE(sentences[i]);
        EXPECT_EQ(sentences[i].rfind("The ", 0), 0U);
        const RunResult& r = *disturbed[i];
        if (r.interference && r.interference->disturbed()) {
            EXPECT_TRUE(contains(sentences[i], " was disturbed: " + interferenceCause(*r.interference)));
        }
        // Disturbed by what its trace saw: the wakee waiting behind other programs, named.
        if (r.trace && traceDisturbed(*r.trace) && r.trace->targetStates.waitingBehindOthers > 0) {
            EXPECT_TRUE(contains(sentences[i], "the wakee waited behind another program: "));
            for (const TraceOtherTask& t : r.trace->waitedBehind)
                if (!t.measured && !t.keepAwake) {
                    EXPECT_TRUE(contains(sentences[i], t.comm + " (PID " + std::to_string(t.pid) + ")"));
                }
        }
        // Waiting is never called a switch.
        EXPECT_FALSE(contains(sentences[i], "switch-in"));
        EXPECT_TRUE(contains(sentences[i], "no conclusion is drawn"));
        EXPECT_FALSE(quotesRatio(sentences[i]));
    }
    for (std::size_t i = 0; i < sentences.size(); ++i) {
        const std::string& s = sentences[i];
        SCOPED_TRACE(s);
        EXPECT_FALSE(contains(s, "[")) << "a bracketed caveat";
        EXPECT_FALSE(contains(s, "(a run was disturbed"));
        if (i >= disturbed.size()) {
            EXPECT_FALSE(contains(s, "was disturbed: ")) << "a cause after the first sentences";
        }
        if (contains(s, "told apart") || contains(s, "No conclusion") || contains(s, "no conclusion")) {
            EXPECT_FALSE(quotesRatio(s)) << "a ratio where none is concluded";
        }
        // An unclear verdict gives the range it could not decide on, never a point ratio.
        if (contains(s, "vary too much")) {
            static const std::regex range(R"(between \d+(\.\d+)? and \d+(\.\d+)? times)");
            EXPECT_FALSE(quotesRatio(std::regex_replace(s, range, ""))) << "a point ratio beside an unclear verdict";
        }
        if (!disturbed.empty() && disturbed.size() == c.results.size()) {
            EXPECT_FALSE(quotesRatio(s)) << "a ratio from disturbed runs";
            EXPECT_FALSE(
                contains(s, "within 10%") || contains(s, "does not matter") || contains(s, "Placement matters"));
        }
    }
}

void checkSentences(const Case& c)
{
    SCOPED_TRACE(c.lesson + " / " + c.name);
    const std::vector<std::string> sentences = concludeLesson(c.lesson, c.results);
    ASSERT_FALSE(sentences.empty());
    const std::set<std::string> measured = measuredFigures(c.results);
    bool vm = false;
    for (const RunResult& r : c.results)
        for (const std::string& w : r.warnings)
            vm = vm || contains(w, "virtual machine");
    bool vmSaid = false;
    for (const std::string& s : sentences) {
        SCOPED_TRACE(s);
        EXPECT_FALSE(s.empty());
        EXPECT_EQ(s.back(), '.');
        for (const std::string& q : quotedFigures(s)) {
            EXPECT_TRUE(measured.count(q)) << "quoted " << q << " was not measured";
        }
        EXPECT_FALSE(std::regex_search(s, std::regex(R"((^|[ (])-\d)"))) << "a negative figure";
        vmSaid = vmSaid || contains(s, "virtual machine");
        // No "does not matter" beside a ranking that says otherwise.
        const bool placementLesson = c.lesson == "pinning" || c.lesson == "pipe-placement";
        if (placementLesson && (contains(s, "does not matter") || contains(s, "within 10% either way"))) {
            const std::string bench = c.lesson == "pipe-placement" ? "pipe" : "futex";
            EXPECT_LE(pinnedSpan(c.results, bench), kMatters);
        }
        if (placementLesson && (contains(s, "Placement matters") || contains(s, "only because of where"))) {
            EXPECT_GT(pinnedSpan(c.results, c.lesson == "pipe-placement" ? "pipe" : "futex"), kMatters);
        }
        // "rose" only where the cost rose: "between W=A (x) and W=B (y)" needs y > x.
        std::smatch m;
        static const std::regex rise(R"(rose most between W=[^(]+\(([^)]+)\) and W=[^(]+\(([^)]+)\))");
        if (std::regex_search(s, m, rise)) {
            EXPECT_GT(durationNs(m[2].str()), durationNs(m[1].str()));
        }
        static const std::regex asMuch(R"(, (\d+(?:\.\d+)?) times as much)");
        if (std::regex_search(s, m, asMuch)) {
            EXPECT_GT(std::stod(m[1].str()), 1.0);
        }
        // A mixture counts every repetition of the unpinned run once.
        static const std::regex mixture(R"((\d+) of (\d+) runs looked like)");
        if (std::regex_search(s, m, mixture)) {
            auto u = std::find_if(c.results.begin(), c.results.end(),
                [](const RunResult& r) { return r.placement.relation == Relation::Unpinned; });
            ASSERT_NE(u, c.results.end());
            EXPECT_EQ(std::stoul(m[2].str()), u->repetitionMedians.size());
        }
        if (contains(s, "share the last-level cache")) {
            for (const RunResult& r : c.results) {
                if (r.bench == "futex" && r.placement.relation != Relation::SamePu) {
                    EXPECT_TRUE(r.placement.relation == Relation::Smt || r.placement.relation == Relation::SharedL2
                        || r.placement.relation == Relation::SharedL3);
                }
            }
        }
    }
    if (c.lesson == "pinning" || c.lesson == "pipe-placement" || c.lesson == "inside-a-switch"
        || c.lesson == "sleeping-cpu") {
        EXPECT_EQ(vmSaid, vm);
    }
    checkReadsStraight(c, sentences);
}

// The threads-vs-processes verdict against the two medians it compares.
void checkThreadsVsProcesses(const Case& c)
{
    SCOPED_TRACE(c.name);
    for (const std::string& s : concludeLesson(c.lesson, c.results)) {
        for (const char* bench : { "futex", "pipe" }) {
            if (s.rfind(std::string(bench) + ":", 0) != 0)
                continue;
            const RunResult* t = nullptr;
            const RunResult* p = nullptr;
            for (const RunResult& r : c.results)
                if (r.bench == bench)
                    (r.mode == BenchMode::Thread ? t : p) = &r;
            ASSERT_TRUE(t && p);
            const double ratio = p->stats.p50 / t->stats.p50;
            if (contains(s, "about the same")) {
                EXPECT_LE(std::max(ratio, 1 / ratio), kMatters) << s;
            }
            if (contains(s, "processes are dearer")) {
                EXPECT_GT(ratio, kMatters) << s;
            }
            if (contains(s, "threads are dearer")) {
                EXPECT_LT(ratio, 1 / kMatters) << s;
            }
        }
    }
}

std::vector<RunResult> withVm(std::vector<RunResult> results)
{
    SysInfo vm;
    vm.hypervisor = true;
    vm.hypervisorVendor = "KVM";
    const std::string warning = machineWarnings(vm).front();
    for (RunResult& r : results)
        r.warnings.push_back(warning);
    return results;
}

RunResult futex(std::vector<int> cpus, Relation rel, std::vector<double> reps, double jitter = 0.01)
{
    return synthRun("futex", BenchMode::Thread, std::move(cpus), rel, std::move(reps), jitter);
}

std::vector<Case> pinningCases()
{
    const RunResult samePu = futex({ 0, 0 }, Relation::SamePu, { 5300, 5350, 5410 });
    const RunResult package = futex({ 0, 1 }, Relation::SamePackage, { 14600, 14700, 14900 });
    const RunResult bimodal = futex({}, Relation::Unpinned, { 5200, 5400, 15000 });
    const RunResult flat = futex({ 0, 1 }, Relation::SamePackage, { 5320, 5360, 5400 });
    std::vector<Case> cases {
        { "clear difference, bimodal unpinned", "pinning", { samePu, package, bimodal } },
        { "no difference", "pinning", { samePu, flat, futex({}, Relation::Unpinned, { 5300, 5350, 5380 }) } },
        { "one relation class only", "pinning", { samePu, futex({}, Relation::Unpinned, { 5300, 5500, 5400 }) } },
        { "failed steps: only unpinned", "pinning", { bimodal } },
        { "noisy pinned runs", "pinning",
            { futex({ 0, 0 }, Relation::SamePu, { 4000, 5300, 6500 }, 0.2),
                futex({ 0, 1 }, Relation::SamePackage, { 4500, 6000, 7000 }, 0.2), bimodal } },
        { "three classes, 2x ranking", "pinning",
            { samePu, futex({ 0, 2 }, Relation::SharedL3, { 8000, 8100, 8050 }), package, bimodal } },
    };
    cases.push_back({ "VM", "pinning", withVm(cases[0].results) });
    return cases;
}

std::vector<Case> threadsVsProcessesCases()
{
    auto run = [](const char* bench, BenchMode mode, std::vector<double> reps, double jitter = 0.01) {
        return synthRun(bench, mode, { 0, 0 }, Relation::SamePu, std::move(reps), jitter);
    };
    return {
        { "clear difference", "threads-vs-processes",
            { run("futex", BenchMode::Thread, { 990, 1000, 1010 }),
                run("futex", BenchMode::Process, { 1290, 1300, 1310 }),
                run("pipe", BenchMode::Thread, { 2000, 2010, 1990 }),
                run("pipe", BenchMode::Process, { 2600, 2610, 2590 }) } },
        { "no difference", "threads-vs-processes",
            { run("futex", BenchMode::Thread, { 990, 1000, 1010 }),
                run("futex", BenchMode::Process, { 1000, 1010, 1020 }) } },
        { "noisy", "threads-vs-processes",
            { run("futex", BenchMode::Thread, { 900, 1000, 1100 }, 0.1),
                run("futex", BenchMode::Process, { 1000, 1050, 1150 }, 0.1) } },
        { "threads dearer", "threads-vs-processes",
            { run("pipe", BenchMode::Thread, { 3000, 3010, 2990 }),
                run("pipe", BenchMode::Process, { 2000, 2010, 1990 }) } },
        { "failed step", "threads-vs-processes", { run("futex", BenchMode::Thread, { 990, 1000, 1010 }) } },
    };
}

RunResult pipe(std::vector<int> cpus, Relation rel, std::vector<double> reps)
{
    return synthRun("pipe", BenchMode::Process, std::move(cpus), rel, std::move(reps));
}

std::vector<Case> pipePlacementCases()
{
    const RunResult one = pipe({ 0, 0 }, Relation::SamePu, { 6000, 6050, 6100 });
    const RunResult far = pipe({ 0, 1 }, Relation::SamePackage, { 18000, 18200, 18100 });
    std::vector<Case> cases {
        { "clear difference, mixed launches", "pipe-placement",
            { one, far, pipe({}, Relation::Unpinned, { 6000, 6100, 6050 }),
                pipe({}, Relation::Unpinned, { 18000, 17900, 18100 }),
                pipe({}, Relation::Unpinned, { 6100, 18000, 12000 }) } },
        { "no difference", "pipe-placement",
            { one, pipe({ 0, 1 }, Relation::SamePackage, { 6100, 6120, 6080 }),
                pipe({}, Relation::Unpinned, { 6000, 6100, 6050 }) } },
        { "one relation class only", "pipe-placement", { one, pipe({}, Relation::Unpinned, { 6000, 6100, 6050 }) } },
        { "failed pinned steps", "pipe-placement", { pipe({}, Relation::Unpinned, { 6000, 18000, 6050 }) } },
    };
    cases.push_back({ "VM", "pipe-placement", withVm(cases[0].results) });
    // The first launch traced (lesson --trace): 5,000 of 6,000 wake-ups on the waker's CPU, 1,000
    // on an idle one, each of those a migration.
    RunResult traced = pipe({}, Relation::Unpinned, { 6000, 6100, 6050 });
    TraceSummary t;
    for (auto [name, cross, ns, n] :
        { std::tuple { "wake call", false, 800.0, 5000 }, std::tuple { "waker runs on", false, 2000.0, 5000 },
            std::tuple { "return to user", false, 900.0, 5000 }, std::tuple { "wake call", true, 900.0, 1000 },
            std::tuple { "IPI sent", true, 2000.0, 1000 }, std::tuple { "idle exit", true, 9000.0, 1000 },
            std::tuple { "switch-in", true, 1500.0, 1000 }, std::tuple { "return to user", true, 800.0, 1000 } })
        t.segments.push_back(TraceSegment { name, "a", "b", cross, ns, ns, ns, static_cast<std::uint64_t>(n) });
    t.placement = TracePlacementShares { 5000, 1000, 0, 1000 };
    traced.trace = t;
    cases.push_back({ "traced launch", "pipe-placement",
        { one, far, traced, pipe({}, Relation::Unpinned, { 18000, 17900, 18100 }) } });
    return cases;
}

// A cache-pollution run set: cost(W) per switch on one PU (ns), touch(W) (ns), optional
// noise (relative jitter of the repetitions at the largest W) and a far placement.
std::vector<RunResult> pollution(const std::vector<std::tuple<std::uint64_t, double, double>>& points,
    double largeNoise = 0, Relation far = Relation::SamePackage, double farScale = 0)
{
    std::vector<RunResult> out;
    for (const auto& [w, cost, touch] : points) {
        const double rt = 2 * cost + 2 * touch;
        const bool largest = w == std::get<0>(points.back());
        const double n = largest ? largeNoise : 0;
        RunResult r = futex({ 0, 0 }, Relation::SamePu, { rt * (1 - n), rt, rt * (1 + n) }, largest ? 0.01 + n : 0.01);
        r.spec.wsBytes = w;
        out.push_back(r);
        if (w > 0) {
            RunResult t = synthRun("touch", BenchMode::Thread, { 0 }, Relation::SamePu, { touch, touch, touch });
            t.spec.wsBytes = w;
            out.push_back(t);
        }
        if (farScale > 0 && (w == 0 || largest)) {
            const double farRt = 2 * cost * farScale + 2 * touch;
            RunResult f = futex({ 0, 1 }, far, { farRt * 0.99, farRt, farRt * 1.01 });
            f.spec.wsBytes = w;
            out.push_back(f);
        }
    }
    return out;
}

std::vector<Case> cachePollutionCases()
{
    const std::vector<std::tuple<std::uint64_t, double, double>> clear { { 0, 1000, 0 }, { 48 << 10, 1200, 2000 },
        { kMiB, 3000, 40000 }, { 256 * kMiB, 400000, 1.5e7 } };
    std::vector<Case> cases {
        { "clear knee, separate caches", "cache-pollution", pollution(clear, 0, Relation::SamePackage, 3) },
        { "clear knee, shared L3", "cache-pollution", pollution(clear, 0, Relation::SharedL3, 3) },
        { "noisy largest W (bare metal)", "cache-pollution", pollution(clear, 0.3, Relation::SamePackage, 3) },
        { "cost at or below 0 at the largest W", "cache-pollution",
            pollution({ { 0, 1000, 0 }, { 48 << 10, 1200, 2000 }, { 256 * kMiB, -100000, 1.5e7 } }) },
        { "cost falls at large W", "cache-pollution",
            pollution(
                { { 0, 1000, 0 }, { 48 << 10, 1100, 2000 }, { kMiB, 3000, 40000 }, { 256 * kMiB, 1500, 1.5e7 } }) },
        { "no change", "cache-pollution",
            pollution({ { 0, 1000, 0 }, { 48 << 10, 1010, 2000 }, { kMiB, 1005, 40000 } }) },
    };
    // A failed touch step: the round trip at that W has nothing to subtract.
    std::vector<RunResult> failed = pollution(clear);
    failed.erase(std::remove_if(failed.begin(), failed.end(),
                     [](const RunResult& r) { return r.bench == "touch" && r.spec.wsBytes == kMiB; }),
        failed.end());
    cases.push_back({ "failed touch step", "cache-pollution", failed });
    cases.push_back({ "VM", "cache-pollution", withVm(pollution(clear, 0.3, Relation::SamePackage, 1)) });
    return cases;
}

std::vector<Case> otherCases()
{
    auto one = [](const char* bench, std::vector<double> reps) {
        return synthRun(bench, BenchMode::Thread, { 0 }, Relation::SamePu, std::move(reps));
    };
    RunResult ring2 = synthRun("ring", BenchMode::Thread, { 0 }, Relation::SamePu, { 4000, 4010, 3990 });
    ring2.placement.tasks = 2;
    ring2.perSwitchNs = ring2.stats.p50 / 2;
    RunResult ring16 = synthRun("ring", BenchMode::Thread, { 0 }, Relation::SamePu, { 40000, 40100, 39900 });
    ring16.placement.tasks = 16;
    ring16.perSwitchNs = ring16.stats.p50 / 16;
    return {
        { "clear", "mode-switch",
            { one("syscall", { 200, 201, 199 }), one("vdso", { 20, 21, 19 }),
                futex({ 0, 0 }, Relation::SamePu, { 5000, 5010, 4990 }) } },
        { "failed futex", "mode-switch", { one("syscall", { 200, 201, 199 }) } },
        { "ladder", "coroutines",
            { one("coro-cxx20", { 10, 10.1, 9.9 }), one("coro-fcontext", { 12, 12.1, 11.9 }),
                one("coro-ucontext", { 500, 505, 495 }), futex({ 0, 0 }, Relation::SamePu, { 5000, 5010, 4990 }) } },
        { "rings", "run-queue", { ring2, ring16 } },
    };
}

// A made-up traced run across CPUs on a VM: the IPI 6.1 µs of a 12.7 µs hand-over.
TraceSummary vmTrace()
{
    TraceSummary t;
    t.ops = 1000;
    t.nsPerOp = 30000;
    t.untracedNsPerOp = 26000;
    auto seg = [](const char* name, const char* from, const char* to, double mean) {
        return TraceSegment { name, from, to, true, mean, mean, mean, 2000 };
    };
    t.segments = { seg("wake call", "sys_enter", "sched_waking", 600),
        seg("IPI sent", "sched_waking", "ipi_send_cpu", 6100), seg("switch-in", "ipi_send_cpu", "sched_switch", 5000),
        seg("return to user", "sched_switch", "sys_exit", 1000), seg("in user space", "sys_exit", "sys_enter", 800) };
    return t;
}

std::vector<Case> insideASwitchCases()
{
    RunResult one = futex({ 0, 0 }, Relation::SamePu, { 5000, 5010, 4990 });
    RunResult across = futex({ 0, 1 }, Relation::SamePackage, { 26000, 26100, 25900 });
    RunResult traced = across;
    traced.trace = vmTrace();
    RunResult tracedPinning = futex({ 0, 1 }, Relation::SamePackage, { 26000, 26100, 25900 });
    tracedPinning.trace = vmTrace();
    return {
        { "untraced", "inside-a-switch", { one, across } },
        { "untraced, one PU only", "inside-a-switch", { one } },
        { "untraced VM", "inside-a-switch", withVm({ one, across }) },
        { "traced across, VM", "inside-a-switch", withVm({ one, traced }) },
        { "traced VM", "pinning", withVm({ one, tracedPinning }) },
    };
}

// A made-up traced futex run across CPUs 0,1: every hand-over's wakee CPU idle in HLT (no cpuidle
// driver), the idle exit `idleNs` of it; or, kept awake, every wake-up preempting the keep-awake
// thread and no idle exit at all.
TraceSummary sleepingTrace(double idleNs, bool keptAwake)
{
    TraceSummary t = vmTrace();
    auto seg = [](std::string name, const char* from, const char* to, double ns) {
        return TraceSegment { std::move(name), from, to, true, ns, ns, ns, 9812 };
    };
    t.segments
        = { seg("wake call", "sys_enter", "sched_waking", 600), seg("IPI sent", "sched_waking", "ipi_send_cpu", 2100) };
    if (keptAwake) {
        t.segments.push_back(seg("preempting keep-awake", "ipi_send_cpu", "sched_switch", 1500));
        t.targetStates.preempting = 9812;
        t.preempted = { TraceOtherTask { 900, "keep-awake", 1, 9812, 0, false, true } };
        t.keepAwakeTasks = { 900, 901 };
    } else {
        t.segments.push_back(seg("idle exit", "ipi_send_cpu", "cpu_idle", idleNs));
        t.segments.push_back(seg("switch-in", "cpu_idle", "sched_switch", 1300));
        t.targetStates.idle = 9812;
        t.idleStates = { TraceIdleState {
            1, "HLT", std::nullopt, "no cpuidle driver: on a VM, an exit to the hypervisor", 9812, idleNs, idleNs } };
        t.idleDriver = "none";
    }
    t.segments.push_back(seg("return to user", "sched_switch", "sys_exit", 700));
    t.cpuTime = { TraceCpuTime { 0, 2.5e8, 0, 0 }, TraceCpuTime { 1, 2.5e8, 0, 0 } };
    return t;
}

RunResult keptAwake(RunResult r)
{
    r.spec.keepAwakeCpus = { 0, 1 };
    r.keepAwakeTasks = { 900, 901 };
    r.keepAwakeCpuNs = 1.6e9;
    r.seconds = 1.0;
    return r;
}

// The wakee waited behind a busy loop on CPU 1 in 40% of the hand-overs: the trace says who.
RunResult waitedBehindLoop(RunResult r)
{
    TraceSummary& t = *r.trace;
    t.segments.push_back(
        TraceSegment { "waiting behind busy", "ipi_send_cpu", "sched_switch", true, 3.06e6, 4e6, 3.2e6, 6500 });
    t.targetStates.waiting = 6500;
    t.targetStates.waitingBehindOthers = 6500;
    t.waitedBehind = { TraceOtherTask { 812, "busy", 1, 6500, 2.0e10, false, false } };
    return r;
}

std::vector<Case> sleepingCpuCases()
{
    RunResult asIs = futex({ 0, 1 }, Relation::SamePackage, { 11700, 11800, 11650 });
    asIs.trace = sleepingTrace(7000, false);
    RunResult awake = keptAwake(futex({ 0, 1 }, Relation::SamePackage, { 4900, 4950, 4880 }));
    awake.trace = sleepingTrace(0, true);
    RunResult same = keptAwake(futex({ 0, 1 }, Relation::SamePackage, { 11600, 11750, 11700 }));
    same.trace = sleepingTrace(0, true);
    RunResult noisyAsIs = futex({ 0, 1 }, Relation::SamePackage, { 8000, 11700, 15000 }, 0.2);
    RunResult noisyAwake = keptAwake(futex({ 0, 1 }, Relation::SamePackage, { 7000, 10000, 14000 }, 0.2));
    RunResult worse = keptAwake(futex({ 0, 1 }, Relation::SamePackage, { 16000, 16100, 15900 }));
    RunResult untracedAsIs = futex({ 0, 1 }, Relation::SamePackage, { 11700, 11800, 11650 });
    RunResult untracedAwake = keptAwake(futex({ 0, 1 }, Relation::SamePackage, { 4900, 4950, 4880 }));
    RunResult shallow = futex({ 0, 1 }, Relation::SamePackage, { 11500, 11600, 11550 });
    shallow.spec.pmQosUs = 0;
    // Unpinned: the kernel kept the wakee on the waker's CPU in 6,000 of 9,812 wake-ups, put it on
    // an idle CPU in 3,000 and on a busy one in 812; 3,400 moved it.
    RunResult unpinned = futex({}, Relation::Unpinned, { 6100, 6200, 6050 });
    unpinned.trace = sleepingTrace(7000, false);
    for (auto [name, from, to, ns] : { std::tuple { "wake call", "sys_enter", "sched_waking", 500.0 },
             std::tuple { "waker runs on", "sched_waking", "sched_switch", 1200.0 },
             std::tuple { "return to user", "sched_switch", "sys_exit", 600.0 } })
        unpinned.trace->segments.push_back(TraceSegment { name, from, to, false, ns, ns, ns, 6000 });
    unpinned.trace->placement = TracePlacementShares { 6000, 3000, 812, 3400 };
    RunResult untracedUnpinned = futex({}, Relation::Unpinned, { 6100, 6200, 6050 });
    std::vector<Case> cases {
        { "idle exit removed", "sleeping-cpu", { asIs, awake } },
        { "no difference", "sleeping-cpu", { asIs, same } },
        { "noisy", "sleeping-cpu", { noisyAsIs, noisyAwake } },
        { "kept awake is slower", "sleeping-cpu", { asIs, worse } },
        { "untraced", "sleeping-cpu", { untracedAsIs, untracedAwake } },
        { "with pm-qos", "sleeping-cpu", { asIs, awake, shallow } },
        { "as is only", "sleeping-cpu", { asIs } },
        { "waited behind a busy loop", "sleeping-cpu", { waitedBehindLoop(asIs), awake } },
        { "unpinned, traced", "sleeping-cpu", { asIs, awake, unpinned } },
        { "unpinned, untraced", "sleeping-cpu", { untracedAsIs, untracedAwake, untracedUnpinned } },
    };
    cases.push_back({ "VM", "sleeping-cpu", withVm(cases[0].results) });
    return cases;
}

// A hand-over run of spin-or-sleep: a round trip of about p50, both tasks burning cpuNs per op.
RunResult handOver(const char* bench, std::vector<int> cpus, Relation rel, std::vector<double> reps, double cpuNs)
{
    RunResult r = synthRun(bench, BenchMode::Thread, std::move(cpus), rel, std::move(reps));
    r.handoffsPerOp = 2;
    r.perHandoffNs = r.stats.p50 / 2;
    r.observed.cpuNsPerOp = cpuNs;
    if (r.bench == "spin-futex")
        r.handoffs = HandoffCount { 1000, r.placement.onePu() ? 900U : 0U };
    return r;
}

std::vector<Case> spinOrSleepCases()
{
    const RunResult spin = handOver("spin", { 0, 1 }, Relation::SharedL3, { 400, 404, 396 }, 800);
    const RunResult adaptive = handOver("spin-futex", { 0, 1 }, Relation::SharedL3, { 420, 424, 416 }, 800);
    const RunResult futexAcross = handOver("futex", { 0, 1 }, Relation::SharedL3, { 10000, 10100, 9900 }, 4000);
    const RunResult adaptiveOne = handOver("spin-futex", { 0, 0 }, Relation::SamePu, { 12000, 12100, 11900 }, 12000);
    const RunResult futexOne = handOver("futex", { 0, 0 }, Relation::SamePu, { 8000, 8050, 7950 }, 8000);
    return {
        { "spin saves", "spin-or-sleep", { spin, adaptive, futexAcross, adaptiveOne, futexOne } },
        { "spin saves nothing", "spin-or-sleep",
            { handOver("spin", { 0, 1 }, Relation::SharedL3, { 1000, 1010, 990 }, 2000),
                handOver("futex", { 0, 1 }, Relation::SharedL3, { 1005, 1015, 995 }, 1000) } },
        { "noisy", "spin-or-sleep",
            { handOver("spin", { 0, 1 }, Relation::SharedL3, { 700, 1000, 1300 }, 2000),
                handOver("futex", { 0, 1 }, Relation::SharedL3, { 800, 1050, 1400 }, 1000) } },
        { "VM", "spin-or-sleep", withVm({ spin, adaptive, futexAcross, adaptiveOne, futexOne }) },
    };
}

std::vector<Case> allCases()
{
    std::vector<Case> all;
    for (auto&& list : { pinningCases(), threadsVsProcessesCases(), pipePlacementCases(), cachePollutionCases(),
             otherCases(), insideASwitchCases(), spinOrSleepCases(), sleepingCpuCases() })
        all.insert(all.end(), list.begin(), list.end());
    return all;
}

// The run as if other tasks had taken 48.9% of its first CPU, most of it cc1plus.
RunResult disturb(RunResult r)
{
    const int cpu = r.placement.cpus.empty() ? 0 : r.placement.cpus.front();
    r.interference = Interference { { { cpu, 0.489, 0, 0, 0, 300, 100, { 0.489 } } },
        { { 25812, 25812, "cc1plus", false, 0.45, cpu } }, 1.0 };
    return r;
}

// Every case again with its first run disturbed, its last run, and all of them.
std::vector<Case> disturbedCases()
{
    std::vector<Case> out;
    for (const Case& c : allCases()) {
        for (std::size_t i : { std::size_t { 0 }, c.results.size() - 1 }) {
            Case d = c;
            d.name += i == 0 ? ", first run disturbed" : ", last run disturbed";
            d.results[i] = disturb(d.results[i]);
            out.push_back(std::move(d));
            if (c.results.size() == 1)
                break;
        }
        Case all = c;
        all.name += ", every run disturbed";
        for (RunResult& r : all.results)
            r = disturb(r);
        out.push_back(std::move(all));
    }
    return out;
}

class LessonProperty : public ::testing::TestWithParam<Case> { };

// gtest prints a failing case by its names, not as bytes (found by argument-dependent lookup).
[[maybe_unused]] void PrintTo(const Case& c, std::ostream* os) { *os << c.lesson << " / " << c.name; }

} // namespace

TEST_P(LessonProperty, SentencesAgreeWithTheNumbers)
{
    checkSentences(GetParam());
    if (GetParam().lesson == "threads-vs-processes")
        checkThreadsVsProcesses(GetParam());
}

// The verdict card's headline: one short line; a ratio only where the comparison differs, inside
// its own interval and beyond the 10% that matters; "within 10%" only with an interval that says
// so; none of either when every run was disturbed, and the conclusion then begins with why.
TEST_P(LessonProperty, HeadlineQuotesOnlyARatioItStandsBehind)
{
    const Case& c = GetParam();
    const std::optional<LessonHeadline> h = lessonHeadline(c.lesson, c.results);
    if (!h)
        return;
    SCOPED_TRACE(h->text);
    EXPECT_FALSE(h->text.empty());
    EXPECT_LE(h->text.size(), lesson::kHeadlineBytes) << "a headline is one line across a projector";
    EXPECT_FALSE(contains(h->text, "\n") || contains(h->text, "("));
    std::smatch m;
    const bool quotes = std::regex_search(h->text, m, std::regex(R"(([0-9.]+)× )"));
    using Kind = LessonHeadline::Kind;
    EXPECT_EQ(quotes, h->kind == Kind::Differs);
    if (h->kind == Kind::Differs) {
        const double ratio = std::stod(m[1].str());
        const double rounding = ratio < 10 ? 0.005 : 0.5; // two decimals below 10, none above
        EXPECT_GT(h->low, kMatters);
        EXPECT_LE(h->low, ratio + rounding);
        EXPECT_GE(h->high, ratio - rounding);
    }
    if (h->kind == Kind::Same) {
        EXPECT_TRUE(contains(h->text, "within 10%"));
        EXPECT_GE(h->low, 1 / kMatters);
        EXPECT_LE(h->high, kMatters);
    }
    const bool allDisturbed = std::all_of(c.results.begin(), c.results.end(),
        [](const RunResult& r) { return r.interference && r.interference->disturbed(); });
    if (allDisturbed) {
        EXPECT_EQ(h->kind, Kind::Disturbed);
        EXPECT_EQ(h->text.rfind("No conclusion: the ", 0), 0U);
        EXPECT_TRUE(contains(concludeLesson(c.lesson, c.results).front(), " was disturbed: "));
    }
}

std::string caseName(const ::testing::TestParamInfo<Case>& param)
{
    std::string name = param.param.lesson + "_" + param.param.name;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Synthetic, LessonProperty, ::testing::ValuesIn(allCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Disturbed, LessonProperty, ::testing::ValuesIn(disturbedCases()), caseName);

// A verdict never rests on a disturbed run: compare() gives none and says which run was
// disturbed, and the conclusion begins with a sentence about it.
TEST(LessonProperty, ADisturbedRunGivesNoConclusionAndSaysWhy)
{
    const RunResult samePu = futex({ 0, 0 }, Relation::SamePu, { 5300, 5350, 5410 });
    RunResult package = futex({ 0, 1 }, Relation::SamePackage, { 14600, 14700, 14900 });
    EXPECT_EQ(lesson::compare(samePu, package).verdict, lesson::Verdict::Differs);
    package.interference
        = Interference { { { 1, 0.38, 0, 0, 0, 300, 100, { 0.38 } } }, { { 4321, 4321, "sh", false, 0.37, 1 } }, 1.0 };
    const lesson::Comparison c = lesson::compare(samePu, package);
    EXPECT_EQ(c.verdict, lesson::Verdict::Unclear);
    EXPECT_EQ(c.disturbed, "the futex run on CPUs 0,1 (same-package)");
    EXPECT_EQ(lesson::formatComparison(c).find("disturbed"), std::string::npos) << lesson::formatComparison(c);
    const auto sentences = concludeLesson("pinning", { samePu, package });
    EXPECT_FALSE(test::anyContains(sentences, "Placement matters here"));
    ASSERT_FALSE(sentences.empty());
    // The disturbance is the first sentence, with its cause and what to do.
    EXPECT_EQ(sentences.front(),
        "The futex run on CPUs 0,1 (same-package) was disturbed: other tasks took 38.0% of CPU 1, busiest sh (PID "
        "4321). Run the lesson again; no conclusion is drawn from that run.");
    // The spread is not why, and the verdict quotes no ratio.
    EXPECT_FALSE(test::anyContains(sentences, "vary too much"));
    EXPECT_TRUE(test::anyContains(sentences,
        "No conclusion on whether placement matters: the futex run on CPUs 0,1 (same-package) was disturbed."));
}

// sleeping-cpu's conclusion is computed from its runs: the hand-over, the idle exit and the state
// it left as the trace measured them; kept awake, the idle exit gone and the A/B's verdict. A run
// whose wakee waited behind a busy loop is disturbed by it, by name, and concludes nothing.
TEST(LessonProperty, SleepingCpuSaysWhatTheIdleExitCostAndThatKeepingAwakeRemovedIt)
{
    const auto cases = sleepingCpuCases();
    const auto sentences = concludeLesson("sleeping-cpu", cases[0].results);
    EXPECT_TRUE(test::anyContains(sentences, "7 µs of it (")) << sentences.front();
    EXPECT_TRUE(test::anyContains(sentences,
        "the wakee's CPU leaving HLT (no cpuidle driver: on a VM, an exit to "
        "the hypervisor)"));
    EXPECT_TRUE(test::anyContains(sentences, "the idle exit is gone (0 of 9,812 hand-overs)"));
    EXPECT_TRUE(test::anyContains(sentences, "so kept awake matters here"));
    EXPECT_TRUE(test::anyContains(sentences, "keep-awake threads burned 1.6 s of CPU time, 80% of"));
    const auto headline = lessonHeadline("sleeping-cpu", cases[0].results);
    ASSERT_TRUE(headline);
    EXPECT_EQ(headline->kind, LessonHeadline::Kind::Differs);
    EXPECT_TRUE(contains(headline->text, "slower while the other CPU sleeps")) << headline->text;
    const auto same = concludeLesson("sleeping-cpu", cases[1].results);
    EXPECT_TRUE(test::anyContains(same, "so kept awake changes nothing here"));
    const auto busy = concludeLesson("sleeping-cpu", cases[7].results);
    ASSERT_FALSE(busy.empty());
    EXPECT_TRUE(contains(busy.front(), "was disturbed: its trace says in ")) << busy.front();
    EXPECT_TRUE(contains(busy.front(), "the wakee waited behind another program: busy (PID 812)")) << busy.front();
    EXPECT_TRUE(test::anyContains(busy, "No conclusion on what kept awake changes"));
    EXPECT_EQ(lessonHeadline("sleeping-cpu", cases[7].results)->kind, LessonHeadline::Kind::Disturbed);
}

// pipe-placement's traced launch quotes where the kernel put the woken process, from its counts.
TEST(LessonProperty, PipePlacementQuotesTheTracedLaunchsPlacementShares)
{
    const auto cases = pipePlacementCases();
    const auto sentences = concludeLesson("pipe-placement", cases.back().results);
    EXPECT_TRUE(test::anyContains(sentences,
        "In the traced launch, the kernel put the woken task on the waker's own CPU in 83% of 6,000 wake-ups (a "
        "hand-over there took 3.7 µs), on another CPU that was idle in 17% and on one running another task in 0% (a "
        "hand-over across CPUs took 14.2 µs, 9 µs of it the idle exit); 17% of the wake-ups moved it off the CPU it "
        "last ran on."))
        << testing::PrintToString(sentences);
    EXPECT_FALSE(test::anyContains(concludeLesson("pipe-placement", cases[0].results), "In the traced launch"));
}

// Unpinned, the lesson quotes where the kernel put the woken task, each share from the trace's
// counts, and what a hand-over cost each way; untraced, it says that only a trace knows.
TEST(LessonProperty, SleepingCpuQuotesWhereTheKernelPutTheWakeeFromTheTrace)
{
    const auto cases = sleepingCpuCases();
    const auto traced
        = std::find_if(cases.begin(), cases.end(), [](const Case& c) { return c.name == "unpinned, traced"; });
    ASSERT_NE(traced, cases.end());
    const auto sentences = concludeLesson("sleeping-cpu", traced->results);
    const std::string* placed = nullptr;
    for (const std::string& s : sentences)
        if (contains(s, "The kernel put the woken task"))
            placed = &s;
    ASSERT_NE(placed, nullptr);
    // 6,000, 3,000 and 812 of 9,812; 3,400 moved.
    EXPECT_TRUE(contains(*placed, "on the waker's own CPU in 61% of 9,812 wake-ups (a hand-over there took 2.3 µs)"))
        << *placed;
    EXPECT_TRUE(contains(*placed, "on another CPU that was idle in 31% and on one running another task in 8%"))
        << *placed;
    EXPECT_TRUE(contains(*placed, ", 7 µs of it the idle exit)")) << *placed;
    EXPECT_TRUE(contains(*placed, "; 35% of the wake-ups moved it off the CPU it last ran on.")) << *placed;
    EXPECT_TRUE(test::anyContains(sentences, "Left to the scheduler, a round trip cost 6.11 µs")) << *placed;

    const auto untraced
        = std::find_if(cases.begin(), cases.end(), [](const Case& c) { return c.name == "unpinned, untraced"; });
    ASSERT_NE(untraced, cases.end());
    const auto plain = concludeLesson("sleeping-cpu", untraced->results);
    EXPECT_FALSE(test::anyContains(plain, "The kernel put the woken task"));
    EXPECT_TRUE(test::anyContains(plain, "Where the kernel put the woken task is known only from a trace"));
}
