// SPDX-License-Identifier: MIT
// The worker's sweep, matrix and lesson commands through a live session: what they stream,
// how they end, cancellation, and the reading thread kept off the measured PUs.
#include "ctxscope/protocol.h"
#include "ctxscope/thread_affinity.h"
#include "ctxscope/worker.h"

#include "worker_transcript.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ctxscope;
using namespace ctxscope::protocol;
using ctxscope::test::Transcript;
using nlohmann::json;
using std::chrono::seconds;

namespace {

class WorkerJobs : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto t = Topology::loadLive();
        ASSERT_TRUE(t.ok()) << t.error().message;
        m_topology.emplace(std::move(*t));
        m_cpu = m_topology->allowedPus().front();
        m_session = std::make_unique<WorkerSession>(*m_topology, [this](const std::string& l) { m_out.add(l); });
    }
    void TearDown() override
    {
        if (m_session)
            m_session->finish(true);
    }
    void send(const json& message) { EXPECT_TRUE(m_session->handleLine(message.dump())); }
    // Every line of one type the session wrote so far for an id.
    std::vector<Message> all(std::string_view type, std::uint64_t id)
    {
        std::vector<Message> found;
        for (const std::string& line : m_out.lines())
            if (auto m = parseMessage(line); m && m->type == type && m->id == id)
                found.push_back(*m);
        return found;
    }
    json pairOnOneCpu(double minTime) const
    {
        return { { "bench", "futex" }, { "cpus", { m_cpu, m_cpu } }, { "min_time", minTime }, { "repetitions", 1 } };
    }

    std::optional<Topology> m_topology;
    int m_cpu = 0;
    Transcript m_out;
    std::unique_ptr<WorkerSession> m_session;
};

} // namespace

TEST_F(WorkerJobs, SweepStreamsEachPointThenTheWholeCurve)
{
    send({ { "type", "sweep" }, { "id", 1 }, { "spec", pairOnOneCpu(0.01) }, { "from_bytes", 0 },
        { "to_bytes", 8192 } });
    auto result = m_out.waitFor("sweep_result", seconds(60));
    ASSERT_TRUE(result) << "no sweep_result";
    const json& sweep = result->body.at("sweep");
    const auto points = all("sweep_point", 1);
    ASSERT_EQ(sweep.at("points").size(), 3U); // W = 0, 4K, 8K
    ASSERT_EQ(points.size(), 3U);
    for (std::size_t i = 0; i < points.size(); ++i) {
        EXPECT_EQ(points[i].body.at("index"), i);
        EXPECT_EQ(points[i].body.at("points"), 3);
        const json& p = points[i].body.at("point");
        EXPECT_EQ(p.at("ws_bytes"), sweep["points"][i].at("ws_bytes"));
        EXPECT_TRUE(resultFromJson(p).ok()) << "a point is a results-file entry";
        EXPECT_TRUE(sweep["points"][i].contains("switch_ns"));
    }
    EXPECT_EQ(sweep["points"][1]["ws_bytes"], 4096);
    EXPECT_EQ(sweep.at("bench"), "futex");
    EXPECT_EQ(sweep.at("cpus"), json({ m_cpu, m_cpu }));
    EXPECT_TRUE(sweep.at("caches").is_array());
    EXPECT_FALSE(all("progress", 1).empty());
}

TEST_F(WorkerJobs, MatrixStreamsEachPairThenTheMatrix)
{
    send({ { "type", "matrix" }, { "id", 2 }, { "bench", "futex" }, { "min_time", 0.01 }, { "repetitions", 1 } });
    auto result = m_out.waitFor("matrix_result", seconds(120));
    ASSERT_TRUE(result) << "no matrix_result";
    const json& matrix = result->body.at("matrix");
    const auto cells = all("matrix_cell", 2);
    const auto pairs = representativePairs(*m_topology);
    ASSERT_EQ(cells.size(), pairs.size());
    std::size_t measured = 0;
    for (const json& c : matrix.at("cells"))
        measured += c.at("measured").get<bool>() ? 1U : 0U;
    std::size_t streamed = 0;
    for (const Message& m : cells) {
        EXPECT_EQ(m.body.at("pairs"), pairs.size());
        if (m.body.at("cell").is_null())
            continue; // a pair that could not run says why
        ++streamed;
        EXPECT_TRUE(m.body.at("cell").at("measured").get<bool>());
        EXPECT_GT(m.body.at("cell").at("median_ns").get<double>(), 0);
        EXPECT_TRUE(resultFromJson(m.body.at("result")).ok());
    }
    EXPECT_EQ(streamed, measured);
    EXPECT_EQ(matrix.at("pus").get<std::vector<int>>(), m_topology->allowedPus());
    EXPECT_EQ(matrix.at("fill"), "classes");
    EXPECT_TRUE(result->body.at("warnings").is_array());
}

TEST_F(WorkerJobs, SurveyStreamsEachRunThenItsBlock)
{
    // The shortest budget: the first runs fit, the rest are skipped with the reason.
    send({ { "type", "survey" }, { "id", 5 }, { "budget", 2 } });
    auto result = m_out.waitFor("survey_result", seconds(60));
    ASSERT_TRUE(result) << "no survey_result";
    const json& survey = result->body.at("survey");
    EXPECT_EQ(survey.at("suite_version"), kSurveyVersion);
    EXPECT_EQ(survey.at("budget_seconds"), 2);
    EXPECT_FALSE(survey.at("cancelled").get<bool>());
    const auto steps = all("survey_step", 5);
    ASSERT_FALSE(steps.empty()) << "no run fitted the budget";
    auto plan = planSurvey(*m_topology, 2);
    ASSERT_TRUE(plan.ok());
    // Every planned run either came as a step, or is a traced run in the block's "traced", or is
    // listed as skipped, with why.
    EXPECT_EQ(steps.size() + survey.at("traced").size() + survey.at("skipped").size(),
        plan->steps.size() + plan->skipped.size());
    for (const Message& m : steps) {
        EXPECT_EQ(m.body.at("steps"), plan->steps.size());
        const auto step = m.body.at("step").get<std::size_t>();
        ASSERT_LT(step, plan->steps.size());
        EXPECT_EQ(m.body.at("label"), plan->steps[step].label);
        auto r = resultFromJson(m.body.at("result"));
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->bench, plan->steps[step].spec.bench);
        EXPECT_GT(r->stats.p50, 0);
    }
    EXPECT_FALSE(all("progress", 5).empty());
}

TEST_F(WorkerJobs, LessonStreamsItsStepsThenItsConclusion)
{
    send(
        { { "type", "lesson" }, { "id", 3 }, { "lesson", "mode-switch" }, { "min_time", 0.01 }, { "repetitions", 1 } });
    auto result = m_out.waitFor("lesson_result", seconds(120));
    ASSERT_TRUE(result) << "no lesson_result";
    const json& lesson = result->body.at("lesson");
    EXPECT_EQ(lesson.at("id"), "mode-switch");
    const auto steps = all("lesson_step", 3);
    ASSERT_EQ(steps.size(), lesson.at("steps").size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].body.at("step"), i);
        EXPECT_EQ(steps[i].body.at("label"), lesson["steps"][i]);
        EXPECT_TRUE(steps[i].body.contains("result") || steps[i].body.contains("error"));
    }
    ASSERT_FALSE(lesson.at("conclusion").empty());
    EXPECT_NE(lesson["conclusion"][0].get<std::string>().find("system call"), std::string::npos)
        << lesson["conclusion"][0];
}

TEST_F(WorkerJobs, AWatchingLessonStreamsItsPhasesThenItsConclusion)
{
    send({ { "type", "lesson" }, { "id", 4 }, { "lesson", "live-placement" }, { "phase", 1 } });
    auto result = m_out.waitFor("lesson_result", seconds(120));
    ASSERT_TRUE(result) << "no lesson_result";
    const json& lesson = result->body.at("lesson");
    EXPECT_EQ(lesson.at("id"), "live-placement");
    const auto steps = all("lesson_step", 4);
    ASSERT_EQ(steps.size(), lesson.at("steps").size());
    ASSERT_EQ(lesson.at("phases").size(), steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].body.at("label"), lesson["steps"][i]);
        ASSERT_TRUE(steps[i].body.contains("phase")) << steps[i].body.dump();
        EXPECT_EQ(steps[i].body["phase"].at("work_per_s").size(), 2U);
        EXPECT_EQ(steps[i].body["phase"], lesson["phases"][i]);
    }
    EXPECT_FALSE(lesson.at("notes").empty());
    EXPECT_FALSE(lesson.at("conclusion").empty());
}

TEST_F(WorkerJobs, EachLongCommandCanBeCancelledAndTheNextOneIsTaken)
{
    const json commands[] = {
        { { "type", "sweep" }, { "id", 10 }, { "spec", pairOnOneCpu(30) }, { "to_bytes", 8192 } },
        { { "type", "matrix" }, { "id", 11 }, { "bench", "futex" }, { "min_time", 30 } },
        { { "type", "lesson" }, { "id", 12 }, { "lesson", "pinning" }, { "min_time", 30 } },
    };
    for (const json& c : commands) {
        send(c);
        ASSERT_TRUE(m_out.waitFor("progress", seconds(10))) << c["type"] << " never started";
        send({ { "type", "cancel" }, { "id", c["id"] } });
        auto cancelled = m_out.waitFor("cancelled", seconds(10));
        ASSERT_TRUE(cancelled) << c["type"] << " was not cancelled";
        EXPECT_EQ(cancelled->id, c["id"].get<std::uint64_t>());
    }
    EXPECT_TRUE(all("sweep_result", 10).empty());
    EXPECT_TRUE(all("matrix_result", 11).empty());
    EXPECT_TRUE(all("lesson_result", 12).empty());
}

TEST_F(WorkerJobs, RefusedCommandsGetAnErrorWithTheirId)
{
    send({ { "type", "matrix" }, { "id", 20 }, { "bench", "syscall" } }); // not a pair
    auto notPair = m_out.waitFor("error", seconds(10));
    ASSERT_TRUE(notPair);
    EXPECT_EQ(notPair->id, 20U);
    EXPECT_NE(notPair->body.at("message").get<std::string>().find("two-task"), std::string::npos);

    send({ { "type", "lesson" }, { "id", 21 }, { "lesson", "astrology" } });
    auto unknown = m_out.waitFor("error", seconds(10));
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->id, 21U);
    EXPECT_NE(unknown->body.at("message").get<std::string>().find("unknown lesson 'astrology'"), std::string::npos);

    send({ { "type", "sweep" }, { "id", 22 }, { "spec", { { "bench", "futex" } } }, { "to_bytes", "1M" } });
    auto malformed = m_out.waitFor("error", seconds(10));
    ASSERT_TRUE(malformed);
    EXPECT_EQ(malformed->id, 22U) << "a readable id is named in the reply";

    send({ { "type", "sweep" }, { "id", 23 }, { "spec", pairOnOneCpu(30) } });
    ASSERT_TRUE(m_out.waitFor("progress", seconds(10)));
    send({ { "type", "lesson" }, { "id", 24 }, { "lesson", "mode-switch" } });
    auto busy = m_out.waitFor("error", seconds(10));
    ASSERT_TRUE(busy);
    EXPECT_EQ(busy->id, 24U);
    EXPECT_NE(busy->body.at("message").get<std::string>().find("command 23 is still measuring"), std::string::npos);
}

TEST_F(WorkerJobs, TheReadingThreadStaysOffTheMeasuredCpuDuringARun)
{
    const std::vector<int> before = threadAffinity(0);
    std::vector<int> spare;
    for (int cpu : m_topology->allowedPus())
        if (cpu != m_cpu && std::find(before.begin(), before.end(), cpu) != before.end())
            spare.push_back(cpu);
    if (spare.empty())
        GTEST_SKIP() << "only CPU " << m_cpu << " is allowed here: there is no other CPU to keep the reader on";
    // This thread feeds the session its lines: it is the worker's reading thread.
    send({ { "type", "run" }, { "id", 30 },
        { "spec", { { "bench", "syscall" }, { "cpus", { m_cpu } }, { "min_time", 30 }, { "repetitions", 1 } } } });
    ASSERT_TRUE(m_out.waitFor("progress", seconds(10)));
    EXPECT_EQ(threadAffinity(0), spare);
    send({ { "type", "cancel" }, { "id", 30 } });
    ASSERT_TRUE(m_out.waitFor("cancelled", seconds(10)));
    EXPECT_EQ(threadAffinity(0), before) << "the reader's affinity is given back after the run";
}

TEST_F(WorkerJobs, AResultSaysWhenTheReadingThreadHadToShareTheMeasuredCpus)
{
    // Unpinned: the run may use every allowed CPU, so none is left for the reader.
    send({ { "type", "run" }, { "id", 31 },
        { "spec",
            { { "bench", "syscall" }, { "relation", "unpinned" }, { "iterations", 2000 }, { "repetitions", 1 } } } });
    auto result = m_out.waitFor("result", seconds(30));
    ASSERT_TRUE(result);
    auto r = resultFromJson(result->body.at("result"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(std::any_of(r->warnings.begin(), r->warnings.end(),
        [](const std::string& w) { return w.find("reading thread shares the measured CPU") != std::string::npos; }))
        << "warnings: " << json(r->warnings).dump();
}

TEST_F(WorkerJobs, AKeepAwakeRunSendsTheSideAsIsThenTheConditionsWithItsAb)
{
    json spec = pairOnOneCpu(0.01);
    spec["keep_awake"] = { m_cpu };
    send({ { "type", "run" }, { "id", 4 }, { "spec", spec } });
    // The first result line is the side as is; the run ends with the kept-awake side.
    ASSERT_TRUE(m_out.waitFor("result", seconds(60))) << "no result";
    ASSERT_TRUE(m_out.waitFor("result", seconds(60))) << "no second result";
    const auto results = all("result", 4);
    ASSERT_EQ(results.size(), 2U);
    EXPECT_EQ(results[0].body.at("ab").at("side"), "as_is");
    EXPECT_FALSE(results[0].body.at("result").contains("condition"));
    const json& ab = results[1].body.at("ab");
    EXPECT_EQ(ab.at("side"), "with");
    EXPECT_EQ(ab.at("condition"), "keep-awake " + std::to_string(m_cpu));
    EXPECT_NE(ab.at("sentence").get<std::string>().find("With keep-awake"), std::string::npos) << ab.dump();
    EXPECT_EQ(results[1].body.at("result").at("condition").at("text"), ab.at("condition"));
}

TEST_F(WorkerJobs, AConditionWithAWorkingSetIsRefusedInTheCliWords)
{
    json spec = pairOnOneCpu(0.01);
    spec["keep_awake"] = { m_cpu };
    spec["ws_bytes"] = 65536;
    send({ { "type", "run" }, { "id", 5 }, { "spec", spec } });
    auto error = m_out.waitFor("error", seconds(30));
    ASSERT_TRUE(error) << "no error";
    EXPECT_EQ(error->body.at("message"),
        "--keep-awake and --pm-qos-us do not take --ws: run the condition without a working set");
    EXPECT_TRUE(all("result", 5).empty());
}

TEST_F(WorkerJobs, AConditionSentAloneIsMeasuredWithItOnly)
{
    json spec = pairOnOneCpu(0.01);
    spec["keep_awake"] = { m_cpu };
    send({ { "type", "run" }, { "id", 6 }, { "spec", spec }, { "as_is_first", false } });
    auto result = m_out.waitFor("result", seconds(60));
    ASSERT_TRUE(result) << "no result";
    EXPECT_FALSE(result->body.contains("ab"));
    EXPECT_EQ(result->body.at("result").at("condition").at("text"), "keep-awake " + std::to_string(m_cpu));
    EXPECT_EQ(all("result", 6).size(), 1U);
}

TEST_F(WorkerJobs, AKeepAwakeCpuOutsideTheAllowedSetIsRefusedBeforeTheSideAsIsRuns)
{
    json spec = pairOnOneCpu(0.01);
    spec["keep_awake"] = { 4095 };
    send({ { "type", "run" }, { "id", 7 }, { "spec", spec } });
    auto error = m_out.waitFor("error", seconds(30));
    ASSERT_TRUE(error) << "no error";
    EXPECT_NE(
        error->body.at("message").get<std::string>().find("--keep-awake CPU 4095 is not one this process may run on"),
        std::string::npos)
        << error->body.dump();
    EXPECT_TRUE(all("result", 7).empty()) << "the side as is ran";
}
