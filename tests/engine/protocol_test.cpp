// SPDX-License-Identifier: MIT
#include "ctxscope/protocol.h"
#include "ctxscope/worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace ctxscope;
using namespace ctxscope::protocol;
using nlohmann::json;

TEST(Protocol, SpecRoundTripsThroughJson)
{
    BenchSpec spec;
    spec.bench = "ring";
    spec.mode = BenchMode::Process;
    spec.cpus = { 0, 1, 0 };
    spec.tasks = 3;
    spec.iterations = 500;
    spec.repetitions = 4;
    spec.policy = SchedPolicy::Fifo;
    const std::string line = commandLine(RunCommand { 7, spec });
    auto cmd = parseCommand(line);
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    const auto& run = std::get<RunCommand>(*cmd);
    EXPECT_EQ(run.id, 7U);
    EXPECT_EQ(run.spec.bench, "ring");
    EXPECT_EQ(run.spec.mode, BenchMode::Process);
    EXPECT_EQ(run.spec.cpus, spec.cpus);
    EXPECT_EQ(run.spec.tasks, 3);
    EXPECT_EQ(run.spec.iterations, 500U);
    EXPECT_EQ(run.spec.policy, SchedPolicy::Fifo);
}

TEST(Protocol, GarbageGetsAMessageNeverACrash)
{
    for (std::string_view bad : { "", "not json", "[1,2]", "{\"type\": 3}", "{\"type\":\"run\"}",
             "{\"type\":\"run\",\"id\":-1,\"spec\":{\"bench\":\"futex\"}}", "{\"type\":\"run\",\"id\":1}",
             "{\"type\":\"run\",\"id\":1,\"spec\":{\"bench\":\"futex\",\"mode\":\"fiber\"}}",
             "{\"type\":\"run\",\"id\":1,\"spec\":{\"bench\":\"futex\",\"cpus\":[\"zero\"]}}", "{\"type\":\"cancel\"}",
             "{\"type\":\"dance\"}", "{\"type\":\"run\",\"id\":1,\"spec\":[]}" }) {
        auto cmd = parseCommand(bad);
        ASSERT_FALSE(cmd.ok()) << bad;
        EXPECT_FALSE(cmd.error().message.empty()) << bad;
    }
    EXPECT_FALSE(parseCommand(std::string(kMaxLineBytes + 1, ' ')).ok());
}

namespace {

// Collects a session's output lines and lets a test wait for one of a type.
class Transcript {
public:
    void add(const std::string& line)
    {
        std::lock_guard lock(m_mutex);
        m_lines.push_back(line);
        m_cv.notify_all();
    }
    std::optional<Message> waitFor(std::string_view type, std::chrono::seconds timeout)
    {
        std::unique_lock lock(m_mutex);
        std::optional<Message> found;
        m_cv.wait_for(lock, timeout, [&] {
            for (; m_seen < m_lines.size(); ++m_seen) {
                auto m = parseMessage(m_lines[m_seen]);
                if (m && m->type == type) {
                    found = *m;
                    ++m_seen;
                    return true;
                }
            }
            return false;
        });
        return found;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<std::string> m_lines;
    std::size_t m_seen = 0;
};

} // namespace

TEST(WorkerSession, ScriptedSessionWithGarbageCancelAndARun)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    const int cpu = topo->allowedPus().front();
    Transcript out;
    WorkerSession session(*topo, [&](const std::string& l) { out.add(l); });
    session.sendHello();
    auto hello = out.waitFor("hello", std::chrono::seconds(5));
    ASSERT_TRUE(hello);
    EXPECT_EQ(hello->body.at("protocol"), kVersion);
    EXPECT_NE(hello->body.at("topology_xml").get<std::string>().find("<topology"), std::string::npos);

    EXPECT_TRUE(session.handleLine("{{{ garbage"));
    auto err = out.waitFor("error", std::chrono::seconds(5));
    ASSERT_TRUE(err);
    EXPECT_FALSE(err->id.has_value());

    // A long futex run, cancelled: the worker says so and takes the next run at once.
    EXPECT_TRUE(session.handleLine(json { { "type", "run" }, { "id", 1 },
        { "spec", { { "bench", "futex" }, { "cpus", { cpu, cpu } }, { "min_time", 30 }, { "repetitions", 3 } } } }
                                       .dump()));
    EXPECT_TRUE(session.handleLine("{\"type\":\"cancel\",\"id\":1}"));
    auto cancelled = out.waitFor("cancelled", std::chrono::seconds(5));
    ASSERT_TRUE(cancelled);
    EXPECT_EQ(cancelled->id, 1U);

    EXPECT_TRUE(session.handleLine(json { { "type", "run" }, { "id", 2 },
        { "spec", { { "bench", "syscall" }, { "cpus", { cpu } }, { "iterations", 2000 }, { "repetitions", 1 } } } }
                                       .dump()));
    auto result = out.waitFor("result", std::chrono::seconds(30));
    ASSERT_TRUE(result);
    EXPECT_EQ(result->id, 2U);
    auto parsed = resultFromJson(result->body.at("result"));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->bench, "syscall");
    EXPECT_GT(parsed->stats.p50, 0);

    EXPECT_FALSE(session.handleLine("{\"type\":\"quit\"}"));
    session.finish(true);
    EXPECT_TRUE(out.waitFor("bye", std::chrono::seconds(5)));
}

TEST(Protocol, ResultLinesStayWithinTheLineLimitTheReaderEnforces)
{
    RunResult r;
    r.bench = "syscall";
    r.op = "one raw syscall(SYS_getppid)";
    r.placement.tasks = 1;
    r.placement.cpus = { 0 };
    r.opsPerSample = 20;
    r.iterations = 2'000'000;
    r.repetitions = 1;
    r.stats.p50 = 412.25;
    r.stats.count = 100'000;
    r.samples.assign(100'000, 412.123456789); // ~1.3 MB of JSON
    r.totalSamples = r.samples.size();

    const std::string line = resultLine(3, r);
    EXPECT_LE(line.size(), kMaxLineBytes);
    auto message = parseMessage(line);
    ASSERT_TRUE(message.ok()) << message.error().message;
    EXPECT_EQ(message->body["result"]["samples_omitted"], 100'000);
    auto back = resultFromJson(message->body["result"]);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_TRUE(back->samples.empty());
    EXPECT_EQ(back->totalSamples, 100'000U);

    r.samples.resize(1000); // small results keep their samples
    auto small = parseMessage(resultLine(4, r));
    ASSERT_TRUE(small.ok());
    EXPECT_EQ(small->body["result"]["samples"].size(), 1000U);
}

TEST(WorkerSession, TakesTheNextRunAsSoonAsTheResultIsOut)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    const int cpu = topo->allowedPus().front();
    Transcript out;
    std::mutex mutex;
    std::condition_variable cv;
    bool resultOut = false;
    bool sending = false;
    WorkerSession session(*topo, [&](const std::string& l) {
        out.add(l);
        auto m = parseMessage(l);
        if (!m || m->type != "result" || m->id != 1U)
            return;
        // Hold the run's thread just after its result went out, while the controller
        // sends the next run: that run must be taken, not refused as "in progress".
        std::unique_lock lock(mutex);
        resultOut = true;
        cv.notify_all();
        cv.wait_for(lock, std::chrono::seconds(5), [&] { return sending; });
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    });
    const auto run = [cpu](int id) {
        return json {
            { "type", "run" }, { "id", id },
            { "spec", { { "bench", "syscall" }, { "cpus", { cpu } }, { "iterations", 2000 }, { "repetitions", 1 } } }
        }.dump();
    };
    EXPECT_TRUE(session.handleLine(run(1)));
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return resultOut; }));
        sending = true;
        cv.notify_all();
    }
    EXPECT_TRUE(session.handleLine(run(2)));
    auto first = out.waitFor("result", std::chrono::seconds(5));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->id, 1U);
    auto second = out.waitFor("result", std::chrono::seconds(30));
    ASSERT_TRUE(second) << "the second run was not taken";
    EXPECT_EQ(second->id, 2U);
    session.finish(false);
}
