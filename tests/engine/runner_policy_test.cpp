// SPDX-License-Identifier: MIT
// SCHED_FIFO without the right to it: a process with neither CAP_SYS_NICE nor an RLIMIT_RTPRIO
// above 0 gets SCHED_OTHER, and the result says why. The reliability tests run this as
// nobody (tests/reliability/as_nobody.sh); as root it is skipped, saying so.
#include "privilege.h"

#include "ctxscope/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sys/resource.h>

using namespace ctxscope;

using test::hasSysNice;

TEST(Unprivileged, FifoRefusedFallsBackToOtherAndSaysWhy)
{
    rlimit rt {};
    ASSERT_EQ(::getrlimit(RLIMIT_RTPRIO, &rt), 0);
    const bool privileged = hasSysNice() || rt.rlim_cur > 0;
    if (privileged) {
        // The wrapper that runs this as nobody must not get a silent skip.
        if (std::getenv("CTXSCOPE_REQUIRE_UNPRIVILEGED"))
            FAIL() << "expected to run without CAP_SYS_NICE and with RLIMIT_RTPRIO 0";
        GTEST_SKIP() << "this process may use SCHED_FIFO (CAP_SYS_NICE or RLIMIT_RTPRIO > 0)";
    }
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const int cpu = topology->allowedPus().front();
    for (BenchMode mode : { BenchMode::Thread, BenchMode::Process }) {
        SCOPED_TRACE(std::string(toString(mode)));
        BenchSpec s;
        s.bench = "futex";
        s.mode = mode;
        s.cpus = { cpu, cpu };
        s.iterations = 500;
        s.repetitions = 1;
        s.policy = SchedPolicy::Fifo;
        auto r = runBenchmark(s, *topology);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->policy, SchedPolicy::Other);
        const bool said = std::any_of(r->warnings.begin(), r->warnings.end(),
            [](const std::string& w) { return w.find("SCHED_FIFO was not permitted") != std::string::npos; });
        EXPECT_TRUE(said) << "no warning says why SCHED_FIFO was not used";
    }
}
