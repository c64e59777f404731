// SPDX-License-Identifier: MIT
// Issue 44's property: the same quantity has the same number wherever it appears. Over a real
// inside-a-switch lesson (a 16-vCPU KVM guest's, tests/fixtures/results) and synthetic variants
// of it (a busy wakee CPU, one way per step, a traced run faster than its untraced one, other
// scales), every figure the lesson's conclusion (the app's Details) quotes for a hand-over is
// the one the breakdown bar draws, its untraced medians are the results table's, and what it
// says tracing cost is what the timeline's caption says.

// GCC 12 at -O2 with ASan warns that libstdc++'s own std::regex automaton copies a
// std::function it "may" not have initialised (a known false positive, GCC bug 105562).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "breakdownplot.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "timelinepage.h"

#include "ctxscope/lesson.h"
#include "ctxscope/results_file.h"
#include "ctxscope/units.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <fstream>
#include <regex>
#include <sstream>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

struct Case {
    std::string name;
    std::vector<RunResult> results;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<RunResult> realLesson()
{
    std::ifstream in(std::string(ctxscope::test::fixturesDir()) + "/results/lesson-inside-a-switch.json");
    std::stringstream text;
    text << in.rdbuf();
    auto results = resultsFromJson(nlohmann::json::parse(text.str()).at("results"));
    EXPECT_TRUE(results.ok()) << (results.ok() ? "" : results.error().message);
    return results ? *results : std::vector<RunResult> {};
}

RunResult* across(std::vector<RunResult>& results)
{
    for (RunResult& r : results)
        if (!r.placement.onePu())
            return &r;
    return nullptr;
}

std::vector<Case> cases()
{
    const std::vector<RunResult> real = realLesson();
    std::vector<Case> out { { "real", real } };
    // Every step three times as long, and the untraced runs with them.
    Case scaled { "scaled", real };
    for (RunResult& r : scaled.results) {
        r.stats.p50 *= 3;
        for (double& m : r.repetitionMedians)
            m *= 3;
        for (TraceSegment& s : r.trace->segments) {
            s.p50Ns *= 3;
            s.p90Ns *= 3;
        }
    }
    out.push_back(scaled);
    // The wakee's CPU busy in most hand-overs: a preemption takes the switch-in's place, a few
    // hand-overs wait behind a compiler for a long time.
    Case busy { "busy", real };
    if (RunResult* r = across(busy.results)) {
        std::uint64_t n = 0;
        for (TraceSegment& s : r->trace->segments)
            if (s.crossCpu && s.name == "return to user")
                n = std::max(n, s.count);
        for (TraceSegment& s : r->trace->segments)
            if (s.crossCpu && (s.name == "idle exit" || s.name == "switch-in"))
                s.count = std::max<std::uint64_t>(1, s.count / 10);
        TraceSegment preempt;
        preempt.name = "preempting cc1plus";
        preempt.fromEvent = "ipi_send_cpu";
        preempt.toEvent = "sched_switch";
        preempt.crossCpu = true;
        preempt.p50Ns = 2900;
        preempt.p90Ns = 4100;
        preempt.count = n * 8 / 10;
        TraceSegment wait = preempt;
        wait.name = "waiting behind cc1plus";
        wait.p50Ns = 337'000;
        wait.p90Ns = 900'000;
        wait.count = n / 50;
        r->trace->segments.push_back(preempt);
        r->trace->segments.push_back(wait);
    }
    out.push_back(busy);
    // One way per step: the way most hand-overs took.
    Case oneWay { "one_way", real };
    for (RunResult& r : oneWay.results) {
        std::vector<TraceSegment> kept;
        for (const TraceSegment& s : r.trace->segments) {
            auto same = std::find_if(kept.begin(), kept.end(),
                [&](const TraceSegment& k) { return k.name == s.name && k.crossCpu == s.crossCpu; });
            if (same == kept.end())
                kept.push_back(s);
            else if (s.count > same->count)
                *same = s;
        }
        r.trace->segments = kept;
    }
    out.push_back(oneWay);
    // A traced run faster than its untraced one: a disturbance, never a negative cost.
    Case faster { "traced_faster", real };
    for (RunResult& r : faster.results)
        r.trace->untracedNsPerOp = r.trace->nsPerOp * 1.4;
    out.push_back(faster);
    return out;
}

std::string cpusOf(const RunResult& r)
{
    std::string out;
    for (int cpu : r.placement.cpus)
        out += (out.empty() ? "" : ",") + std::to_string(cpu);
    return out;
}

const RunResult* resultOn(const std::vector<RunResult>& results, const std::string& cpus)
{
    for (const RunResult& r : results)
        if (cpusOf(r) == cpus)
            return &r;
    return nullptr;
}

const BreakdownStep* stepNamed(const BreakdownBar& bar, const std::string& name)
{
    auto it = std::find_if(bar.steps.begin(), bar.steps.end(), [&](const BreakdownStep& s) { return s.name == name; });
    return it == bar.steps.end() ? nullptr : &*it;
}

// The texts the bar plot draws (its steps' figures and each bar's total).
std::vector<std::string> drawnTexts(const BreakdownPlot& plot)
{
    std::vector<std::string> out;
    for (int i = 0; i < plot.plot()->itemCount(); ++i)
        if (const auto* text = qobject_cast<const QCPItemText*>(plot.plot()->item(i)))
            out.push_back(text->text().trimmed().toStdString());
    return out;
}

bool has(const std::vector<std::string>& texts, const std::string& text)
{
    return std::find(texts.begin(), texts.end(), text) != texts.end();
}

constexpr const char* kDuration = R"(\d+(?:\.\d+)? (?:ns|µs|ms|s))";

class FiguresProperty : public ::testing::TestWithParam<Case> { };

TEST_P(FiguresProperty, TheConclusionQuotesWhatTheViewsDraw)
{
    const std::vector<RunResult>& results = GetParam().results;
    ASSERT_EQ(results.size(), 2U);
    const std::vector<std::string> conclusion = concludeLesson("inside-a-switch", results);

    TimelinePage page;
    page.resize(1200, 700);
    std::vector<TimelinePage::Run> runs;
    auto window = std::make_shared<TraceWindow>(); // a caption is a shown run's, which needs events
    window->events = { TraceEvent { 1000, 0, 1, 2, -1, 0, TraceEventKind::Switch } };
    window->recorded = 1;
    for (std::size_t i = 0; i < results.size(); ++i)
        runs.push_back({ i + 1, QString::fromStdString(cpusOf(results[i])), {},
            std::make_shared<const RunResult>(results[i]), window, {}, {} });
    page.setRuns(runs);
    const std::vector<std::string> drawn = drawnTexts(*page.breakdown());

    ResultsModel table;
    std::vector<ResultRow> rows;
    for (std::size_t i = 0; i < results.size(); ++i)
        rows.push_back({ i + 1, std::make_shared<const RunResult>(results[i]), QColor(Qt::blue) });
    table.setResults(rows);

    int handovers = 0;
    int steps = 0;
    for (const std::string& sentence : conclusion) {
        std::smatch m;
        // "On CPUs 0,1 (shared-l3), a traced hand-over took 6.21 µs ...; 65% of it was idle exit (…, 4.05 µs): …;
        // next came return to user (…), 611 ns (10%)."
        if (std::regex_search(sentence, m,
                std::regex(fmt::format(R"(^On CPUs? ([\d,]+) \([^)]*\), a traced hand-over took ({}) )", kDuration)))) {
            const RunResult* r = resultOn(results, m[1].str());
            ASSERT_NE(r, nullptr) << sentence;
            const BreakdownBar bar = breakdownOf(*r);
            EXPECT_EQ(m[2].str(), formatDuration(bar.totalNs())) << sentence;
            EXPECT_TRUE(has(drawn, formatDuration(bar.totalNs()))) << "the bar's total is not drawn: " << sentence;
            ++handovers;
            const std::regex top(fmt::format(R"(; (\d+)% of it was (.+?) \([^()]*, ({})\): )", kDuration));
            const std::regex next(fmt::format(R"(; next came (.+?) \([^()]*\), ({}) \((\d+)%\)\.$)", kDuration));
            if (std::regex_search(sentence, m, top)) {
                const BreakdownStep* step = stepNamed(bar, m[2].str());
                ASSERT_NE(step, nullptr) << m[2].str() << " is not on the bar";
                EXPECT_EQ(m[3].str(), formatDuration(step->ns)) << sentence;
                EXPECT_EQ(std::stoi(m[1].str()), std::lround(100 * step->ns / bar.totalNs())) << sentence;
                ++steps;
            }
            if (std::regex_search(sentence, m, next)) {
                const BreakdownStep* step = stepNamed(bar, m[1].str());
                ASSERT_NE(step, nullptr) << m[1].str() << " is not on the bar";
                EXPECT_EQ(m[2].str(), formatDuration(step->ns)) << sentence;
                EXPECT_EQ(std::stoi(m[3].str()), std::lround(100 * step->ns / bar.totalNs())) << sentence;
                ++steps;
            }
        }
        // "Across CPUs the hand-over took 5.0 times as long as on one PU (6.21 µs against 1.25 µs)"
        if (std::regex_search(sentence, m,
                std::regex(fmt::format(
                    R"(^Across CPUs the hand-over took .* \(({}) against ({})\))", kDuration, kDuration)))) {
            const RunResult* one = nullptr;
            const RunResult* cross = nullptr;
            for (const RunResult& r : results)
                (r.placement.onePu() ? one : cross) = &r;
            EXPECT_EQ(m[1].str(), formatDuration(breakdownOf(*cross).totalNs())) << sentence;
            EXPECT_EQ(m[2].str(), formatDuration(breakdownOf(*one).totalNs())) << sentence;
        }
        // "Untraced, a futex round trip (two hand-overs) cost 2.92 µs median (5 runs: …) on CPUs 0,0 …"
        if (sentence.starts_with("Untraced, ")) {
            const std::regex cost(
                fmt::format(R"(({}) median \((?:\d+ runs: [^)]*|one run)\) on CPUs ([\d,]+))", kDuration));
            for (auto it = std::sregex_iterator(sentence.begin(), sentence.end(), cost); it != std::sregex_iterator();
                 ++it) {
                const RunResult* r = resultOn(results, (*it)[2].str());
                ASSERT_NE(r, nullptr) << sentence;
                const int row = static_cast<int>(r - results.data());
                EXPECT_EQ(table.data(table.index(row, ResultsModel::Median)).toString().toStdString(), (*it)[1].str())
                    << sentence;
            }
        }
    }
    EXPECT_EQ(handovers, 2) << "both placements' hand-overs are quoted";
    EXPECT_GE(steps, 2);

    // What tracing cost: the conclusion's percentage is the caption's, and a traced run faster
    // than its untraced one is a disturbance in both.
    const std::string all = fmt::format("{}", fmt::join(conclusion, "\n"));
    for (std::size_t i = 0; i < results.size(); ++i) {
        const TraceSummary& t = *results[i].trace;
        ASSERT_TRUE(page.showRun(i + 1));
        const std::string caption = page.caption().toStdString();
        const double change = t.nsPerOp / t.untracedNsPerOp - 1;
        const std::string where = "on CPUs " + cpusOf(results[i]) + " (";
        if (change >= 0) {
            const long percent = std::lround(100 * change);
            EXPECT_NE(caption.find(fmt::format("(tracing: +{}%)", percent)), std::string::npos) << caption;
            EXPECT_NE(all.find(fmt::format("{}% dearer {}", percent, where)), std::string::npos) << all;
        } else {
            EXPECT_NE(caption.find("was disturbed"), std::string::npos) << caption;
            const auto said = std::find_if(conclusion.begin(), conclusion.end(), [&](const std::string& s) {
                return s.find("faster than the untraced one") != std::string::npos && s.find(where) != std::string::npos
                    && s.find("this is not a cost of tracing") != std::string::npos;
            });
            EXPECT_NE(said, conclusion.end()) << all;
        }
        EXPECT_NE(caption.find("mean per op"), std::string::npos) << "the caption names its statistic: " << caption;
    }
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Lessons, FiguresProperty, ::testing::ValuesIn(cases()), caseName);

} // namespace

namespace {

// Issue 44: on one PU the other PU's lane stays empty, and the caption says why.
TEST(FiguresProperty, ARunOnOnePuSaysWhyTheOtherLanesAreEmpty)
{
    std::vector<RunResult> results = realLesson();
    ASSERT_FALSE(results.empty());
    const auto one
        = std::find_if(results.begin(), results.end(), [](const RunResult& r) { return r.placement.onePu(); });
    ASSERT_NE(one, results.end());
    ASSERT_FALSE(one->trace->cpus.empty());
    TimelinePage page;
    page.setLanes({ TimelineLane { 0, 0, 0, 0 }, TimelineLane { 1, 0, 0, 1 } });
    auto window = std::make_shared<TraceWindow>();
    window->events = { TraceEvent { 1000, 0, 1, 2, -1, 0, TraceEventKind::Switch } };
    window->recorded = 1;
    page.setRuns({ { 1, QStringLiteral("one PU"), {}, std::make_shared<const RunResult>(*one), window, {}, {} } });
    ASSERT_TRUE(page.showRun(1));
    EXPECT_TRUE(page.caption().contains(QStringLiteral("only P#0 traced: the other lanes stay empty")))
        << page.caption().toStdString();
    // Across both, nothing to explain.
    const auto across
        = std::find_if(results.begin(), results.end(), [](const RunResult& r) { return !r.placement.onePu(); });
    ASSERT_NE(across, results.end());
    page.setRuns({ { 2, QStringLiteral("across"), {}, std::make_shared<const RunResult>(*across), window, {}, {} } });
    ASSERT_TRUE(page.showRun(2));
    EXPECT_FALSE(page.caption().contains(QStringLiteral("lanes stay empty"))) << page.caption().toStdString();
}

} // namespace

namespace {

// A run whose trace kept its steps and no events (opened from a results file, or cut in the
// kernel by BPF): the caption says why the timeline is empty instead of asking for a traced run.
TEST(FiguresProperty, StepsWithoutEventsSayWhyTheTimelineIsEmpty)
{
    std::vector<RunResult> results = realLesson();
    ASSERT_FALSE(results.empty());
    ASSERT_TRUE(results.front().trace.has_value());
    RunResult bpf = results.front();
    bpf.trace->backend = "bpf";
    TimelinePage page;
    page.setLanes({ TimelineLane { 0, 0, 0, 0 }, TimelineLane { 1, 0, 0, 1 } });
    page.setRuns(
        { { 1, QStringLiteral("cut in the kernel"), {}, std::make_shared<const RunResult>(bpf), nullptr, {}, {} } });
    EXPECT_FALSE(page.showRun(1)); // nothing to draw
    EXPECT_TRUE(page.caption().contains(QStringLiteral("kept their steps (the bars above), not their events")))
        << page.caption().toStdString();
    // No trace at all: asked for one, as before.
    RunResult plain = results.front();
    plain.trace.reset();
    page.setRuns({ { 2, QStringLiteral("untraced"), {}, std::make_shared<const RunResult>(plain), nullptr, {}, {} } });
    EXPECT_TRUE(page.caption().contains(QStringLiteral("No traced run on this stage"))) << page.caption().toStdString();
}

} // namespace
