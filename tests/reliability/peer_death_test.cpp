// SPDX-License-Identifier: MIT
// Dead peers: a benchmark child killed with SIGKILL at a random moment of the run is an
// error within a second with nothing left behind, fifty times over; a worker whose
// controller is killed dies with it, children and all (PR_SET_PDEATHSIG, or the end of its
// input, whichever comes first).
#include "background_run.h"
#include "proc_helpers.h"
#include "seed.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <poll.h>
#include <random>
#include <sys/prctl.h>
#include <sys/wait.h>

using namespace ctxscope;
using namespace std::chrono_literals;
using test::SteadyClock;

TEST(PeerDeath, FiftyKilledChildrenAreFiftyErrorsWithinASecondAndNoZombie)
{
    std::mt19937 random(test::seed());
    std::uniform_int_distribution<int> delayUs(0, 20'000);
    const char* const benches[] = { "futex", "pipe", "ring" };
    long long worstMs = 0;
    for (int round = 0; round < 50; ++round) {
        const char* bench = benches[round % 3];
        const bool killFirst = (round / 3) % 2 == 0;
        SCOPED_TRACE(std::string(bench) + (killFirst ? " task 0" : " last task") + ", round " + std::to_string(round));
        test::BackgroundRun run(test::longRun(bench, BenchMode::Process));
        ASSERT_TRUE(run.waitUntilMeasuring(10s));
        std::this_thread::sleep_for(std::chrono::microseconds(delayUs(random)));
        const auto children = test::childPids();
        ASSERT_GE(children.size(), 2U);
        const auto killedAt = SteadyClock::now();
        ASSERT_EQ(::kill(killFirst ? children.front() : children.back(), SIGKILL), 0);
        const auto latency = run.waitForEnd(5s, killedAt);
        worstMs = std::max(worstMs, static_cast<long long>(latency.count()));
        ASSERT_LT(latency, 1000ms);
        ASSERT_NE(run.error().find("was killed by signal 9"), std::string::npos) << run.error();
        ASSERT_TRUE(test::childPids().empty()); // reaped: no zombie either
    }
    std::printf("50 killed children: each an error, the slowest %lld ms after the SIGKILL\n", worstMs);
}

namespace {

// Reads one line from fd within the time limit; "" on timeout or end.
std::string readLine(int fd, std::chrono::milliseconds limit)
{
    std::string line;
    const auto until = SteadyClock::now() + limit;
    char c = 0;
    while (SteadyClock::now() < until) {
        pollfd p { fd, POLLIN, 0 };
        if (::poll(&p, 1, 50) <= 0)
            continue;
        if (::read(fd, &c, 1) != 1)
            return line;
        if (c == '\n')
            return line;
        line += c;
    }
    return line;
}

// How a reaped process ended: the signal that killed it, or minus its exit status.
struct Ended {
    pid_t pid;
    int code;
};

// Waits for every child of this process (a subreaper) to be reaped; false on timeout.
bool reapAll(std::chrono::milliseconds limit, std::vector<Ended>& ended)
{
    const auto until = SteadyClock::now() + limit;
    while (SteadyClock::now() < until) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == ECHILD)
            return true;
        if (pid > 0)
            ended.push_back({ pid, WIFSIGNALED(status) ? WTERMSIG(status) : -WEXITSTATUS(status) });
        else
            std::this_thread::sleep_for(1ms);
    }
    return false;
}

} // namespace

TEST(PeerDeath, AWorkerDiesWithItsControllerAndLeavesNoOrphan)
{
    // Orphans come back to this process instead of init, so the test can see them end.
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    // Everything the forked controller needs is made here: it must not allocate.
    const int cpu = test::liveTopology().allowedPus().front();
    const std::string run = "{\"type\":\"run\",\"id\":1,\"spec\":{\"bench\":\"futex\",\"mode\":\"process\",\"cpus\":["
        + std::to_string(cpu) + "," + std::to_string(cpu) + "],\"iterations\":1000000000,\"repetitions\":1}}\n";
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    const pid_t controller = ::fork();
    ASSERT_GE(controller, 0);
    if (controller == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive the test, whatever fails there
        // The controller: starts a worker on a pipe, asks for a long process-mode run, tells
        // the test the worker's messages, then waits to be killed.
        int toWorker[2];
        if (::pipe(toWorker) != 0)
            ::_exit(10);
        const pid_t worker = ::fork();
        if (worker == 0) {
            ::dup2(toWorker[0], 0);
            ::dup2(report[1], 1);
            ::close(toWorker[1]);
            ::execl(ctxscope::test::cliPath(), "ctxscope-cli", "worker", static_cast<char*>(nullptr));
            ::_exit(11);
        }
        if (::write(toWorker[1], run.data(), run.size()) != static_cast<ssize_t>(run.size()))
            ::_exit(12);
        for (;;)
            ::pause();
    }
    ::close(report[1]);
    // On a failed assertion below, the controller (and through it the worker) must still go.
    struct KillOnExit {
        pid_t pid;
        ~KillOnExit()
        {
            if (pid > 0 && ::kill(pid, SIGKILL) == 0)
                ::waitpid(pid, nullptr, 0);
            ::prctl(PR_SET_CHILD_SUBREAPER, 0);
        }
    } guard { controller };
    // The worker says hello, then progress once its children run.
    bool measuring = false;
    std::string line;
    for (int i = 0; i < 200 && !measuring; ++i) {
        line = readLine(report[0], 30s);
        ASSERT_FALSE(line.empty()) << "the worker went quiet";
        ASSERT_EQ(line.find("\"type\":\"error\""), std::string::npos) << line;
        measuring = line.find("\"measuring\"") != std::string::npos;
    }
    ASSERT_TRUE(measuring) << line;
    const auto killedAt = SteadyClock::now();
    ASSERT_EQ(::kill(controller, SIGKILL), 0);
    guard.pid = 0; // reaped below with the others
    std::vector<Ended> ended;
    const bool allGone = reapAll(2s, ended);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - killedAt).count();
    ::close(report[0]);
    ASSERT_TRUE(allGone) << "processes outlived their controller: " << testing::PrintToString(test::childPids());
    std::printf("controller killed: %zu processes (controller, worker, its benchmark children) gone in %lld ms\n",
        ended.size(), static_cast<long long>(ms));
    // The controller, the worker and its two benchmark tasks. The controller was killed; the
    // others were killed by their parent-death signal, or (when the worker read the end of its
    // input before the kernel sent that signal: the dead controller's files close first) ended
    // cleanly, the worker cancelling its run. Any other end is a failure.
    ASSERT_EQ(ended.size(), 4U);
    for (const Ended& e : ended) {
        SCOPED_TRACE("PID " + std::to_string(e.pid));
        if (e.pid == controller)
            EXPECT_EQ(e.code, SIGKILL);
        else
            EXPECT_TRUE(e.code == SIGKILL || e.code == 0)
                << "ended with " << e.code << " (signal, or minus exit status)";
    }
    EXPECT_LT(ms, 1000);
}
