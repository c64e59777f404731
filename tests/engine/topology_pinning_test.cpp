// SPDX-License-Identifier: MIT
// Pinning: refused where hwloc would only pretend to bind, and confirmed on the live machine.
// The live tests use only what this machine reports, whatever its size.
#include "topology_test_support.h"

#include <sched.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ctxscope;
using ctxscope::test::fixture;
using ctxscope::test::LiveEnv;
using ctxscope::test::ScopedEnv;

namespace {

std::vector<int> currentAffinity()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (std::size_t cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set))
                out.push_back(static_cast<int>(cpu));
    return out;
}

// Runs f on a fresh thread, so pinning it never narrows the test runner's own threads.
template <typename F> void onThread(F f) { std::thread(f).join(); }

void expectRefusedAsNotThisMachine(const Topology& topo)
{
    EXPECT_FALSE(topo.isThisSystem());
    const int cpu = topo.pus().front().osIndex;
    onThread([&] {
        auto pinned = pinCurrentThread(topo, cpu);
        ASSERT_FALSE(pinned.ok());
        EXPECT_NE(pinned.error().message.find("is not this machine"), std::string::npos) << pinned.error().message;
        EXPECT_FALSE(unpinCurrentThread(topo).ok());
    });
}

} // namespace

TEST(TopologyPinning, RefusedOnSyntheticAndXmlTopologies)
{
    auto synthetic = Topology::loadSynthetic("pack:1 core:2 pu:1");
    ASSERT_TRUE(synthetic.ok()) << synthetic.error().message;
    expectRefusedAsNotThisMachine(*synthetic);
    auto xml = Topology::loadXmlFile(fixture("good/vm-2cpu-live.xml"));
    ASSERT_TRUE(xml.ok()) << xml.error().message;
    expectRefusedAsNotThisMachine(*xml);
}

TEST(TopologyPinning, RefusedWhenHwlocXmlFileIsSet)
{
    LiveEnv clean;
    ScopedEnv xml("HWLOC_XMLFILE", fixture("good/two-packages-two-numa.xml").c_str());
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->source(), TopologySource::Xml);
    EXPECT_EQ(topo->pus().size(), 32U); // the file, not this machine
    EXPECT_NE(topo->origin().find("HWLOC_XMLFILE"), std::string::npos) << topo->origin();
    expectRefusedAsNotThisMachine(*topo);
}

TEST(TopologyPinning, RefusedWhenHwlocXmlFileIsSetEvenWithThisSystemAsserted)
{
    // HWLOC_THISSYSTEM=1 makes hwloc bind for real on an XML topology, but the file may
    // describe another machine (here, its 2 CPUs may not be this machine's), so ctxscope
    // keeps refusing.
    LiveEnv clean;
    ScopedEnv xml("HWLOC_XMLFILE", fixture("good/vm-2cpu-live.xml").c_str());
    ScopedEnv thisSystem("HWLOC_THISSYSTEM", "1");
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    expectRefusedAsNotThisMachine(*topo);
}

TEST(TopologyPinning, RefusedWhenHwlocSyntheticIsSet)
{
    LiveEnv clean;
    ScopedEnv synthetic("HWLOC_SYNTHETIC", "pack:3 core:2 pu:1");
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->source(), TopologySource::Synthetic);
    EXPECT_EQ(topo->pus().size(), 6U);
    expectRefusedAsNotThisMachine(*topo);
}

TEST(TopologyPinning, BadInputThroughTheEnvironmentIsCheckedToo)
{
    // hwloc would parse these in this process, unchecked, if loadLive() let it.
    LiveEnv clean;
    {
        ScopedEnv xml("HWLOC_XMLFILE", fixture("bad/core-without-complete-cpuset.xml").c_str());
        auto topo = Topology::loadLive();
        ASSERT_FALSE(topo.ok());
        EXPECT_EQ(topo.error().message.rfind("HWLOC_XMLFILE=", 0), 0U) << topo.error().message;
    }
    {
        ScopedEnv synthetic("HWLOC_SYNTHETIC", "pack:100000 core:100000 pu:100000");
        auto topo = Topology::loadLive();
        ASSERT_FALSE(topo.ok());
        EXPECT_NE(topo.error().message.find("more than 8192 PUs"), std::string::npos) << topo.error().message;
    }
}

TEST(TopologyPinning, NonexistentPuGivesAClearMessage)
{
    LiveEnv clean;
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const int beyond = topo->pus().back().osIndex + 1;
    onThread([&] {
        for (int cpu : { beyond, -1 }) {
            auto pinned = pinCurrentThread(*topo, cpu);
            ASSERT_FALSE(pinned.ok());
            EXPECT_EQ(pinned.error().message.rfind(
                          "CPU " + std::to_string(cpu) + " does not exist (this machine has CPUs ", 0),
                0U)
                << pinned.error().message;
        }
    });
}

TEST(TopologyPinning, EveryAllowedPuIsConfirmedBySchedGetcpu1000Times)
{
    LiveEnv clean;
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    ASSERT_TRUE(topo->isThisSystem());
    const std::vector<int> allowed = topo->allowedPus();
    ASSERT_FALSE(allowed.empty());
    onThread([&] {
        const std::vector<int> before = currentAffinity();
        for (int cpu : allowed) {
            auto pinned = pinCurrentThread(*topo, cpu);
            ASSERT_TRUE(pinned.ok()) << pinned.error().message;
            int confirmed = 0;
            for (int i = 0; i < 1000; ++i) {
                if (i % 100 == 0)
                    sched_yield(); // give the scheduler chances to move us, if it could
                confirmed += sched_getcpu() == cpu ? 1 : 0;
            }
            EXPECT_EQ(confirmed, 1000) << "CPU " << cpu;
            EXPECT_EQ(currentAffinity(), std::vector<int> { cpu });
        }
        auto unpinned = unpinCurrentThread(*topo);
        ASSERT_TRUE(unpinned.ok()) << unpinned.error().message;
        EXPECT_EQ(currentAffinity(), before);
    });
}

TEST(TopologyPinning, PuOutsideTheAffinityMaskIsRefusedLikeTaskset)
{
    LiveEnv clean;
    auto whole = Topology::loadLive();
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    const std::vector<int> allowed = whole->allowedPus();
    if (allowed.size() < 2)
        GTEST_SKIP() << "needs two allowed CPUs to narrow the affinity; this machine allows " << formatCpuList(allowed);
    onThread([&] {
        // What `taskset -c <first>` does to a process: narrow the affinity, not the cgroup.
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(static_cast<std::size_t>(allowed[0]), &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
        auto topo = Topology::loadLive();
        ASSERT_TRUE(topo.ok()) << topo.error().message;
        EXPECT_EQ(topo->affinityPus(), std::vector<int> { allowed[0] });
        EXPECT_EQ(topo->allowedPus(), std::vector<int> { allowed[0] });
        EXPECT_TRUE(topo->findPu(allowed[1])->allowed); // still in the cgroup cpuset
        EXPECT_FALSE(topo->findPu(allowed[1])->inAffinity);
        auto pinned = pinCurrentThread(*topo, allowed[1]);
        ASSERT_FALSE(pinned.ok());
        const std::string expected
            = "CPU " + std::to_string(allowed[1]) + " is outside the allowed set " + std::to_string(allowed[0]);
        EXPECT_EQ(pinned.error().message.rfind(expected, 0), 0U) << pinned.error().message;
        EXPECT_NE(pinned.error().message.find("taskset"), std::string::npos) << pinned.error().message;
        EXPECT_TRUE(pinCurrentThread(*topo, allowed[0]).ok());
        // The pairs only use the one PU this thread may run on.
        for (const auto& p : representativePairs(*topo, 3))
            EXPECT_TRUE(p.a == allowed[0] && p.b == allowed[0]);
    });
}

TEST(TopologyPinning, PinningAForkedChildIsConfirmedInTheChild)
{
    LiveEnv clean;
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    const int cpu = topo->allowedPus().back();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const bool ok = pinCurrentThread(*topo, cpu).ok() && sched_getcpu() == cpu;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
