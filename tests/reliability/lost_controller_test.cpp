// SPDX-License-Identifier: MIT
// A controller that goes away mid-run without a word (an ssh connection that drops closes
// both of the worker's pipes; a controller may also close just one): the worker notices the
// end of its input or the loss of its output, cancels the run, reaps its benchmark children
// and exits by itself within 2 s, leaving no process behind.
#include "background_run.h"
#include "proc_helpers.h"
#include "worker_process.h"

#include <gtest/gtest.h>

#include <sys/prctl.h>

using namespace ctxscope;
using namespace std::chrono_literals;
using test::SteadyClock;

namespace {

enum class Drop { Both, Output, Input };

// Orphans come back to this process instead of init, so nothing outlives the test even when
// the worker fails to reap its children.
class LostController : public ::testing::TestWithParam<Drop> {
protected:
    void SetUp() override { ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
    void TearDown() override
    {
        for (int pid : m_children)
            ::kill(pid, SIGKILL);
        while (::waitpid(-1, nullptr, WNOHANG) > 0) { }
        ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    }
    std::vector<int> m_children;
};

std::string longProcessRun()
{
    const int cpu = test::liveTopology().allowedPus().front();
    return R"({"type":"run","id":1,"spec":{"bench":"futex","mode":"process","cpus":[)" + std::to_string(cpu) + ","
        + std::to_string(cpu) + R"(],"iterations":1000000000,"repetitions":1}})";
}

const char* nameOf(Drop drop)
{
    switch (drop) {
    case Drop::Both:
        return "input and output closed";
    case Drop::Output:
        return "output closed, input left open";
    case Drop::Input:
        return "input closed, output still read";
    }
    return "";
}

std::string testName(const ::testing::TestParamInfo<Drop>& drop)
{
    switch (drop.param) {
    case Drop::Both:
        return "InputAndOutput";
    case Drop::Output:
        return "OutputOnly";
    case Drop::Input:
        return "InputOnly";
    }
    return "";
}

} // namespace

TEST_P(LostController, TheWorkerCancelsReapsItsChildrenAndExitsWithinTwoSeconds)
{
    const Drop drop = GetParam();
    test::WorkerProcess worker;
    ASSERT_GT(worker.pid(), 0);
    const auto hello = worker.receive(30s);
    ASSERT_TRUE(hello && hello->find("\"hello\"") != std::string::npos) << hello.value_or("no hello");
    ASSERT_TRUE(worker.send(longProcessRun()));
    bool measuring = false;
    while (!measuring) {
        const auto line = worker.receive(30s);
        ASSERT_TRUE(line.has_value()) << "the worker went quiet before measuring";
        ASSERT_EQ(line->find("\"type\":\"error\""), std::string::npos) << *line;
        measuring = line->find("\"measuring\"") != std::string::npos;
    }
    // The benchmark's two processes, forked by the worker.
    m_children = test::childPidsOf(worker.pid());
    ASSERT_GE(m_children.size(), 2U);

    const auto droppedAt = SteadyClock::now();
    if (drop != Drop::Input)
        worker.closeOutput();
    if (drop != Drop::Output)
        worker.closeInput();
    std::vector<std::string> lines;
    if (drop == Drop::Input)
        while (auto line = worker.receive(10s)) // to the end of its output
            lines.push_back(*line);
    const auto status = worker.waitFor(10s);
    ASSERT_TRUE(status.has_value()) << "the worker still runs 10 s after: " << nameOf(drop);
    const auto exitedAt = SteadyClock::now();
    // It exited by itself, neither killed by SIGPIPE nor by anything else.
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << "wait status " << *status;
    // Its benchmark children were reaped by the worker before it exited: not left running,
    // nor handed to this subreaper as orphans or zombies.
    for (int pid : m_children)
        EXPECT_FALSE(test::processExists(pid)) << "benchmark child " << pid << " outlived the worker";
    EXPECT_TRUE(test::childPids().empty()) << testing::PrintToString(test::childPids());
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(exitedAt - droppedAt).count();
    std::printf("%s: worker and %zu benchmark children gone %lld ms after\n", nameOf(drop), m_children.size(),
        static_cast<long long>(ms));
    // The target is 2 s (the figure above goes to docs/reliability.md); the assert leaves room for a
    // loaded machine under ASan and fails only on a worker that waits for something.
    EXPECT_LE(ms, 5000);
    if (drop == Drop::Input) {
        ASSERT_GE(lines.size(), 2U);
        EXPECT_NE(std::find(lines.begin(), lines.end(), R"({"id":1,"type":"cancelled"})"), lines.end());
        EXPECT_EQ(lines.back(), R"({"type":"bye"})");
    }
}

INSTANTIATE_TEST_SUITE_P(Worker, LostController, ::testing::Values(Drop::Both, Drop::Output, Drop::Input), testName);
