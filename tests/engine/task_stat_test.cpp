// SPDX-License-Identifier: MIT
// The reader of /proc/PID/task/TID/stat and schedstat on recorded texts (this 6.18 guest: a
// user task and kthreadd), on the shapes other kernels give (no processor field, a command
// with spaces and parentheses), on this process's own tasks, and on garbage: a sentence, never
// a figure or a crash.
#include "os/task_stat.h"

#include "../reliability/seed.h"
#include "procfs_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace ctxscope;
using namespace ctxscope::os;

namespace {

using test::procfsFixture;

} // namespace

TEST(TaskStat, ReadsARecordedUserTask)
{
    const auto t = parseTaskStat(procfsFixture("task-stat-kvm-6.18.txt"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->tid, 11723);
    EXPECT_EQ(t->comm, "cat");
    EXPECT_EQ(t->state, 'R');
    EXPECT_EQ(t->ppid, 11647);
    EXPECT_FALSE(t->kernelThread());
    EXPECT_EQ(t->starttime, 1257967U);
    EXPECT_EQ(t->processor, 0);
}

TEST(TaskStat, MarksKernelThreads)
{
    const auto t = parseTaskStat(procfsFixture("task-stat-kthreadd-6.18.txt"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->comm, "kthreadd");
    EXPECT_EQ(t->ppid, 0); // started by the kernel itself
    EXPECT_TRUE(t->kernelThread());
    EXPECT_EQ(t->starttime, 19U);
}

TEST(TaskStat, CommandsWithSpacesAndParenthesesAndOldKernels)
{
    // Fields 14 and 15 (utime 7, stime 3) and 22 (starttime 500); a command that looks like
    // the end of the command field must not shift them.
    const std::string tail = " S 1 1 1 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 500 1000 10";
    const auto odd = parseTaskStat("77 (my (odd) prog) x)" + tail + " 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n");
    ASSERT_TRUE(odd.ok()) << odd.error().message;
    EXPECT_EQ(odd->comm, "my (odd) prog) x");
    EXPECT_EQ(odd->utime, 7U);
    EXPECT_EQ(odd->stime, 3U);
    EXPECT_EQ(odd->cpuTicks(), 10U);
    EXPECT_EQ(odd->starttime, 500U);
    EXPECT_EQ(odd->numThreads, 1U);
    EXPECT_EQ(odd->processor, 1);
    const auto old = parseTaskStat("77 (old)" + tail + "\n"); // Linux 2.2: no processor field
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_FALSE(old->processor.has_value());
}

TEST(TaskStat, ReadsThisProcessesOwnTask)
{
    const auto t = readTaskStat(::getpid(), ::getpid());
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->pid, ::getpid());
    EXPECT_FALSE(t->kernelThread());
    const auto s = readTaskSchedstat(::getpid(), ::getpid());
    if (s) { // kernels without CONFIG_SCHED_INFO have no schedstat
        EXPECT_GT(s->runNs, 0U);
    }
    // A second thread: the scan lists a multi-threaded process task by task.
    std::atomic<long> tid { 0 };
    std::atomic<bool> leave { false };
    std::thread other([&] {
        tid = static_cast<long>(::gettid());
        while (!leave)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (tid == 0)
        std::this_thread::yield();
    const auto all = scanTasks();
    leave = true;
    other.join();
    for (const long want : { static_cast<long>(::getpid()), tid.load() })
        EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const TaskStat& x) {
            return x.tid == want && x.pid == ::getpid() && x.numThreads >= 2;
        })) << want;
    EXPECT_FALSE(readTaskStat(::getpid(), 0).ok());
}

TEST(TaskStat, Schedstat)
{
    const auto s = parseTaskSchedstat("6566339 10842163 20\n");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->runNs, 6566339U);
    EXPECT_EQ(s->waitNs, 10842163U);
    EXPECT_EQ(s->timeslices, 20U);
}

TEST(TaskStat, GarbageIsASentenceNotAFigure)
{
    for (const char* text : { "", "12", "12 (x", "x (cat) R 1", "12 (cat) R 1 2 3\n", "0 (cat) R",
             "12 (cat) RR 1 1 1 0 -1 4 0 0 0 0 7 3 0 0 20 0 1 0 500 1000 10\n",
             "12 (cat) R 1 1 1 0 -1 x 0 0 0 0 7 3 0 0 20 0 1 0 500 1000 10\n",
             "12 13 (cat) R 1 1 1 0 -1 4 0 0 0 0 7 3 0 0 20 0 1 0 500 1000 10\n" }) {
        const auto t = parseTaskStat(text);
        ASSERT_FALSE(t.ok()) << text;
        EXPECT_NE(t.error().message.find("a task's stat could not be read: "), std::string::npos);
    }
    for (const char* text : { "", "1 2", "1 2 x\n", "1 2 3 4\n", "-1 2 3\n" }) {
        const auto s = parseTaskSchedstat(text);
        ASSERT_FALSE(s.ok()) << text;
        EXPECT_NE(s.error().message.find("schedstat could not be read: "), std::string::npos);
    }
}

TEST(TaskStat, MutatedFilesNeverCrash)
{
    std::mt19937 rng(test::seed());
    const std::string base = procfsFixture("task-stat-kvm-6.18.txt");
    for (int i = 0; i < 2000; ++i) {
        std::string t = base.substr(0, 1 + rng() % base.size());
        for (int k = 0; k < 4; ++k)
            t[rng() % t.size()] = static_cast<char>(rng() % 256);
        (void)parseTaskStat(t);
        (void)parseTaskSchedstat(t);
    }
}
