// SPDX-License-Identifier: MIT
// Which ftrace instances a starting ctxscope may remove: those whose maker is gone, or whose pid
// now runs another program; never one of a live ctxscope or of another copy of this program.
#include "trace/instance_names.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace ctxscope::trace;

TEST(InstanceNames, NameTheirMakerAndNothingElse)
{
    const auto name = newInstanceName();
    EXPECT_EQ(instanceOwner(name), static_cast<long>(getpid()));
    EXPECT_EQ(instanceOwner("ctxscope-12-3"), 12L);
    EXPECT_EQ(instanceOwner("ctxscope-12"), std::nullopt);
    EXPECT_EQ(instanceOwner("ctxscope-x-3"), std::nullopt);
    EXPECT_EQ(instanceOwner("perf-12-3"), std::nullopt);
}

TEST(InstanceNames, AnOwnerIsGoneWhenItsPidEndedOrRunsAnotherProgramButNotACopyOfThisOne)
{
    EXPECT_FALSE(ownerIsGone(getpid()));
    // A copy of this program (a second test binary tracing at once): alive.
    const pid_t copy = fork();
    ASSERT_GE(copy, 0);
    if (copy == 0) {
        pause();
        _exit(0);
    }
    EXPECT_FALSE(ownerIsGone(copy));
    kill(copy, SIGKILL);
    waitpid(copy, nullptr, 0);
    EXPECT_TRUE(ownerIsGone(copy)); // reaped: no such pid
    // Another program under the pid: gone, whatever it is.
    const pid_t other = fork();
    ASSERT_GE(other, 0);
    if (other == 0) {
        execlp("sleep", "sleep", "10", static_cast<char*>(nullptr));
        _exit(127);
    }
    bool seen = false;
    for (int i = 0; i < 200 && !seen; ++i) { // until exec has renamed it
        seen = ownerIsGone(other);
        if (!seen)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(seen);
    kill(other, SIGKILL);
    waitpid(other, nullptr, 0);
}
