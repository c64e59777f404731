// SPDX-License-Identifier: MIT
// Cache sizes are checked, not trusted (ctxscope/cache_check.h): synthetic and saved
// topologies, including the 508 MiB "per vCPU" L3 of the VM this project was built on.
#include "ctxscope/cache_check.h"
#include "ctxscope/sweep.h"

#include "lesson/lesson_util.h"
#include "sizes.h"
#include "test_paths.h"
#include "topology_test_support.h"

#include <gtest/gtest.h>

using namespace ctxscope;

namespace {

using test::kKiB;
using test::kMiB;

using test::synthetic;

// A saved topology of tests/fixtures/topology/good.
Topology savedTopology(const char* name)
{
    auto t = Topology::loadXmlFile(std::string(ctxscope::test::fixturesDir()) + "/topology/good/" + name);
    EXPECT_TRUE(t.ok()) << name;
    return std::move(*t);
}

} // namespace

TEST(CacheCheck, AnEpycVmWithASharedL3IsPlausible)
{
    const CacheCheck check = checkCaches(savedTopology("vm-2cpu-live.xml"));
    EXPECT_TRUE(check.problems.empty()) << check.sentence();
    EXPECT_EQ(check.sentence(), "");
}

TEST(CacheCheck, TheVmThisProjectWasBuiltOnReportsAnImplausibleL3)
{
    const Topology vm = savedTopology("vm-2cpu-508mib-l3.xml");
    const CacheCheck check = checkCaches(vm);
    EXPECT_FALSE(check.plausible(3));
    EXPECT_TRUE(check.plausible(1) && check.plausible(2));
    EXPECT_NE(check.sentence().find("the L3 gives 508 MiB to 1 core"), std::string::npos) << check.sentence();
    std::vector<std::uint64_t> ws;
    for (const auto& [w, label] : lesson::cachePollutionSizes(vm))
        ws.push_back(w);
    EXPECT_EQ(ws, (std::vector<std::uint64_t> { 0, 48 * kKiB, kMiB, 256 * kMiB }));
}

TEST(CacheCheck, APrivate508MiBL3IsImplausibleAndCapped)
{
    const Topology vm = synthetic("pack:1 l3:2(size=532676608) l2:1(size=2097152) l1d:1(size=49152) core:1 pu:1");
    const CacheCheck check = checkCaches(vm);
    EXPECT_FALSE(check.plausible(3));
    EXPECT_TRUE(check.plausible(2));
    EXPECT_TRUE(check.plausible(1));
    EXPECT_EQ(check.sentence(),
        "The cache sizes this machine reports are not plausible (the L3 gives 508 MiB to 1 "
        "core, more than the 64 MiB per core of any shipping part), so they are shown as "
        "reported but not trusted: lessons and default sweeps use working sets of at most "
        "256 MiB.");
    // The lesson's working sets: at most 256 MiB, ascending, each once.
    const auto sizes = lesson::cachePollutionSizes(vm);
    std::vector<std::uint64_t> ws;
    for (const auto& [w, label] : sizes)
        ws.push_back(w);
    EXPECT_EQ(ws, (std::vector<std::uint64_t> { 0, 48 * kKiB, 2 * kMiB, 256 * kMiB }));
    EXPECT_NE(sizes.back().second.find("not plausible"), std::string::npos) << sizes.back().second;
}

TEST(CacheCheck, SharingTheSameL3AmongEightCoresIsPlausible)
{
    const Topology t = synthetic("pack:1 l3:1(size=33554432) l2:8(size=1048576) l1d:1(size=32768) core:1 pu:2");
    EXPECT_TRUE(checkCaches(t).problems.empty()) << checkCaches(t).sentence();
    const auto sizes = lesson::cachePollutionSizes(t);
    ASSERT_EQ(sizes.size(), 5U);
    EXPECT_EQ(sizes.back().first, 128 * kMiB); // 4x the 32 MiB L3
}

TEST(CacheCheck, LargerThanAnyShippingInstance)
{
    const CacheCheck check = checkCaches({ CacheInfo { 3, 0, 2048 * kMiB, 64, { 0, 1, 2, 3, 4, 5, 6, 7 } } }, {});
    EXPECT_FALSE(check.plausible(3));
    EXPECT_NE(check.sentence().find("larger than any shipping cache (512 MiB at most)"), std::string::npos);
}

TEST(CacheCheck, L2LargerThanL3)
{
    std::vector<PuInfo> pus(4);
    for (int i = 0; i < 4; ++i)
        pus[static_cast<std::size_t>(i)] = PuInfo { i, i, i };
    const CacheCheck check
        = checkCaches({ CacheInfo { 1, 0, 32 * kKiB, 64, { 0 } }, CacheInfo { 2, 0, 8 * kMiB, 64, { 0 } },
                          CacheInfo { 3, 0, 4 * kMiB, 64, { 0, 1, 2, 3 } } },
            pus);
    EXPECT_FALSE(check.plausible(2));
    EXPECT_FALSE(check.plausible(3));
    EXPECT_NE(check.sentence().find("the L2 (8 MiB) is larger than the L3 (4 MiB)"), std::string::npos);
}

TEST(CacheCheck, SizesThatAreNotWholeLines)
{
    const CacheCheck odd = checkCaches({ CacheInfo { 1, 0, 1000, 64, { 0 } } }, {});
    EXPECT_FALSE(odd.plausible(1));
    EXPECT_NE(odd.sentence().find("not a whole number of plausible cache lines"), std::string::npos);
    const CacheCheck line = checkCaches({ CacheInfo { 1, 0, 32 * kKiB, 48, { 0 } } }, {});
    EXPECT_FALSE(line.plausible(1));
}

TEST(CacheCheck, AMissingLevelIsSaid)
{
    const CacheCheck check
        = checkCaches({ CacheInfo { 1, 0, 32 * kKiB, 64, { 0 } }, CacheInfo { 3, 0, 8 * kMiB, 64, { 0 } } }, {});
    EXPECT_NE(check.sentence().find("it reports an L3 but no L2"), std::string::npos);
    EXPECT_NE(checkCaches({}, {}).sentence().find("no data cache at all"), std::string::npos);
}

TEST(CacheCheck, DefaultSweepStopsAtTheCapWhenTheLastLevelIsImplausible)
{
    const Topology vm = synthetic("pack:1 l3:2(size=532676608) l2:1(size=2097152) l1d:1(size=49152) core:1 pu:1");
    SweepSpec spec;
    spec.base.bench = "futex";
    spec.base.cpus = { 0, 0 };
    spec.availableBytes = std::uint64_t { 64 } << 30;
    auto plan = planSweep(spec, vm);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->sizes.back(), kWorkingSetCap);
    EXPECT_NE(plan->note.find("is not plausible"), std::string::npos) << plan->note;
}
