// SPDX-License-Identifier: MIT
// Which ftrace instances a starting ctxscope may remove: those whose maker is gone, or whose pid
// was taken by a process that started after the instance was made; never one of a live maker,
// whatever its name.
#include "trace/instance_names.h"

#include <gtest/gtest.h>

#include <csignal>
#include <ctime>

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

TEST(InstanceNames, AnOwnerIsGoneWhenItsPidEndedOrWasTakenAfterTheInstanceWasMade)
{
    const double now = static_cast<double>(std::time(nullptr));
    EXPECT_FALSE(ownerIsGone(getpid(), now + 3600));
    // This process started before now, to the second.
    const auto self = processStartTime(getpid());
    ASSERT_TRUE(self);
    EXPECT_LE(*self, now + 1);
    EXPECT_GT(*self, now - 24 * 3600.0);
    // Another live process (of another name once sleep is exec'd, as another test binary tracing
    // at once would be; its start time is the fork's either way), started before the instance was
    // made: its maker, alive.
    const pid_t other = fork();
    ASSERT_GE(other, 0);
    if (other == 0) {
        execlp("sleep", "sleep", "10", static_cast<char*>(nullptr));
        _exit(127);
    }
    EXPECT_FALSE(ownerIsGone(other, now + 1));
    // The same pid against an instance made well before it started: the pid was taken since.
    EXPECT_TRUE(ownerIsGone(other, now - 60));
    kill(other, SIGKILL);
    waitpid(other, nullptr, 0);
    EXPECT_TRUE(ownerIsGone(other, now + 1)); // reaped: no such pid
}
