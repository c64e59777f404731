// SPDX-License-Identifier: MIT
// The live-placement lesson: run briefly on this machine (its phases' figures, the pins seen
// by the watch, every workload thread's affinity given back, also after a cancel), and its
// conclusion on synthetic phases.
#include "lesson/live_placement.h"

#include "ctxscope/thread_affinity.h"
#include "ctxscope/topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <numeric>
#include <string>

using namespace ctxscope;
using namespace ctxscope::lesson;

namespace {

bool anyContains(const std::vector<std::string>& sentences, const std::string& part)
{
    return std::any_of(
        sentences.begin(), sentences.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// The affinity of this process's thread named `name` (read from /proc/self/task), or empty.
std::vector<int> affinityOfThreadNamed(const std::string& name)
{
    DIR* dir = ::opendir("/proc/self/task");
    if (!dir)
        return {};
    std::vector<int> out;
    while (const dirent* e = ::readdir(dir)) {
        if (e->d_name[0] == '.')
            continue;
        std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
        std::string line;
        if (std::getline(comm, line) && line == name)
            out = threadAffinity(std::stoi(e->d_name));
    }
    ::closedir(dir);
    return out;
}

LessonPhase phase(std::string label, std::vector<int> cpus, std::optional<Relation> relation, std::vector<double> work,
    std::vector<double> wait = { 0.01, 0.01, 0.01, 0.01 })
{
    LessonPhase p;
    p.label = std::move(label);
    p.cpus = std::move(cpus);
    p.relation = relation;
    p.seconds = 2;
    p.unit = "round trips";
    p.workPerS = work;
    for (double w : work)
        p.switchesPerS.push_back(2 * w);
    p.runqueueWaitPerS = std::move(wait);
    p.cpusSeen = p.cpus.empty() ? std::vector<int> { 0, 1 } : p.cpus;
    return p;
}

std::optional<Topology> liveTopology()
{
    auto t = Topology::loadLive();
    if (!t || !t->isThisSystem())
        return std::nullopt;
    return std::move(*t);
}

} // namespace

TEST(LivePlacement, IsListedAsAWholeLesson)
{
    const LessonInfo* info = findLesson("live-placement");
    ASSERT_NE(info, nullptr);
    EXPECT_TRUE(info->wholeInWorker);
    EXPECT_FALSE(findLesson("pinning")->wholeInWorker);
}

TEST(LivePlacement, WatchesItsPhasesAndGivesEveryThreadItsAffinityBack)
{
    const auto topology = liveTopology();
    if (!topology)
        GTEST_SKIP() << "the topology is not this machine";
    const std::vector<int> before = threadAffinity(0); // what the workload's threads inherit
    std::vector<std::vector<int>> restored;
    LivePlacementHooks hooks;
    hooks.restored = [&](const std::vector<WorkloadThread>& threads) {
        for (const WorkloadThread& t : threads)
            restored.push_back(threadAffinity(static_cast<int>(t.tid)));
    };
    int phasesReported = 0;
    RunBudget budget;
    budget.phaseSeconds = 1; // two readings a phase
    auto r = runLivePlacement(
        *topology, budget, [&](const LessonProgress& p) { phasesReported += p.phase ? 1 : 0; }, {}, hooks);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->failures.empty()) << r->failures.front();
    const std::size_t expected = topology->allowedPus().size() > 1 ? 3 : 2;
    ASSERT_EQ(r->phases.size(), expected);
    EXPECT_EQ(r->steps.size(), expected);
    EXPECT_EQ(phasesReported, static_cast<int>(expected));
    for (const LessonPhase& p : r->phases) {
        ASSERT_EQ(p.workPerS.size(), 2U) << p.label;
        EXPECT_EQ(p.switchesPerS.size(), 2U) << p.label;
        EXPECT_GT(sum(p.workPerS), 0) << p.label;
        EXPECT_GT(sum(p.switchesPerS), 0) << p.label;
        EXPECT_GT(p.seconds, 0) << p.label;
        EXPECT_EQ(p.unit, "round trips");
        // A round trip is two hand-overs, and a thread waiting for one sleeps on the futex: two switches.
        EXPECT_GE(sum(p.switchesPerS), 1.5 * sum(p.workPerS)) << p.label;
        EXPECT_FALSE(p.cpusSeen.empty()) << p.label;
        for (int cpu : p.cpusSeen) {
            if (!p.cpus.empty()) {
                EXPECT_NE(std::find(p.cpus.begin(), p.cpus.end(), cpu), p.cpus.end())
                    << p.label << " ran on CPU " << cpu;
            }
        }
    }
    EXPECT_TRUE(r->phases[0].cpus.empty());
    EXPECT_FALSE(r->phases[0].relation);
    EXPECT_EQ(r->phases[1].relation, Relation::SamePu);
    EXPECT_EQ(r->phases[1].cpusSeen.size(), 1U);
    if (expected == 3) {
        EXPECT_NE(r->phases[2].relation, Relation::SamePu);
        EXPECT_NE(r->phases[2].cpus[0], r->phases[2].cpus[1]);
    }
    ASSERT_EQ(restored.size(), 2U);
    EXPECT_EQ(restored[0], before);
    EXPECT_EQ(restored[1], before);
    EXPECT_TRUE(anyContains(r->notes, "affinity back"));
    EXPECT_FALSE(r->conclusion.empty());
}

TEST(LivePlacement, ACancelWhilePinnedStillGivesTheAffinityBack)
{
    const auto topology = liveTopology();
    if (!topology)
        GTEST_SKIP() << "the topology is not this machine";
    const std::vector<int> before = threadAffinity(0);
    std::vector<std::vector<int>> restored;
    LivePlacementHooks hooks;
    hooks.restored = [&](const std::vector<WorkloadThread>& threads) {
        for (const WorkloadThread& t : threads)
            restored.push_back(threadAffinity(static_cast<int>(t.tid)));
    };
    std::stop_source stop;
    std::vector<int> whilePinned;
    RunBudget budget;
    budget.phaseSeconds = 2;
    auto r = runLivePlacement(
        *topology, budget,
        [&](const LessonProgress& p) {
            // The first reading of the one-PU phase: the pair is pinned now.
            if (p.step == 1 && p.fraction > 1.0 / p.steps && !stop.stop_requested()) {
                whilePinned = affinityOfThreadNamed("ping0");
                stop.request_stop();
            }
        },
        stop.get_token(), hooks);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("cancelled"), std::string::npos) << r.error().message;
    ASSERT_EQ(whilePinned.size(), 1U);
    ASSERT_EQ(restored.size(), 2U);
    EXPECT_EQ(restored[0], before);
    EXPECT_EQ(restored[1], before);
}

TEST(LivePlacement, RefusesAPhaseTooShortToReadTwice)
{
    const auto topology = liveTopology();
    if (!topology)
        GTEST_SKIP() << "the topology is not this machine";
    RunBudget budget;
    budget.phaseSeconds = 0.2;
    auto r = runLivePlacement(*topology, budget, {}, {});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("lasts 1 to 600 seconds"), std::string::npos) << r.error().message;
}

TEST(LivePlacementConclusion, OnePuClearlyFasterIsSaidWithItsFigures)
{
    const auto c = concludeLivePlacement({ phase("unpinned", {}, std::nullopt, { 3400, 3500, 3450, 3300 }),
        phase("both threads on CPU 0", { 0, 0 }, Relation::SamePu, { 85000, 84000, 86000, 85500 },
            { 0.4, 0.41, 0.39, 0.4 }),
        phase("ping0 on CPU 0, pong0 on CPU 1 (shared-l3)", { 0, 1 }, Relation::SharedL3, { 3100, 3200, 3150, 3000 },
            { 0.01, 0.012, 0.011, 0.01 }) });
    EXPECT_TRUE(anyContains(c,
        "Unpinned (ran on CPUs 0-1): 3,425 round trips per second, 6,850 switches per second "
        "(2.00 per round trip)"));
    EXPECT_TRUE(anyContains(c, "With both threads on CPU 0 the pair's work rate was 25 times"));
    EXPECT_TRUE(anyContains(c, "higher than unpinned"));
    EXPECT_TRUE(anyContains(c, "with them on two cores sharing an L3 cache"));
    // The medians of each reading's wait / work: 4.53, 4.68, 4.70, 4.88 µs and 3.23, 3.33, 3.49, 3.75 µs.
    EXPECT_TRUE(anyContains(c,
        "Run-queue wait per round trip: 4.69 µs on one PU, 3.41 µs across (400 ms per second "
        "and 10.5 ms per second); on one PU a woken thread cannot run"));
    EXPECT_TRUE(anyContains(c,
        "both threads on CPU 0 got the most done here and unpinned and ping0 on CPU 0, pong0 on "
        "CPU 1 (shared-l3) clearly less"));
    EXPECT_TRUE(anyContains(c, "Every phase took 2.00 to 2.00 switches per round trip"));
}

TEST(LivePlacementConclusion, NoDifferenceIsNotCalledOne)
{
    const auto c = concludeLivePlacement({ phase("unpinned", {}, std::nullopt, { 1000, 1010, 990, 1005 }),
        phase("both threads on CPU 0", { 0, 0 }, Relation::SamePu, { 1002, 995, 1008, 1000 }),
        phase("ping0 on CPU 0, pong0 on CPU 1 (smt)", { 0, 1 }, Relation::Smt, { 998, 1003, 1001, 996 }) });
    EXPECT_TRUE(anyContains(c, "within 10% of unpinned"));
    EXPECT_TRUE(anyContains(c, "no placement of this pair got clearly more done"));
    EXPECT_TRUE(anyContains(c, "SMT siblings of one core"));
    EXPECT_TRUE(anyContains(c, "the watch saw no clear difference in waiting"));
    EXPECT_FALSE(anyContains(c, "got the most done"));
}

TEST(LivePlacementConclusion, SwitchesThatDoNotFollowTheWorkAreNotSaidTo)
{
    LessonPhase spinning = phase("ping0 on CPU 0, pong0 on CPU 1 (smt)", { 0, 1 }, Relation::Smt, { 5000, 5100 });
    spinning.switchesPerS = { 100, 120 }; // hand-overs answered without sleeping
    const auto c = concludeLivePlacement(
        { phase("both threads on CPU 0", { 0, 0 }, Relation::SamePu, { 1000, 1010 }), spinning });
    EXPECT_FALSE(anyContains(c, "switches per round trip: the switch rate rose and fell"));
}

TEST(LivePlacementConclusion, NoisyPhasesAreNotToldApart)
{
    const auto c = concludeLivePlacement({ phase("unpinned", {}, std::nullopt, { 3000, 85000, 3100, 84000 }),
        phase("both threads on CPU 0", { 0, 0 }, Relation::SamePu, { 85000, 84000, 86000, 85500 }) });
    EXPECT_FALSE(anyContains(c, "within 10% of unpinned"));
    EXPECT_FALSE(anyContains(c, "clearly less"));
}

TEST(LivePlacementConclusion, WithoutSchedstatOrPhasesItSaysOnlyWhatItHas)
{
    EXPECT_TRUE(anyContains(concludeLivePlacement({}), "No phase of this lesson could be watched"));
    // One PU allowed: no phase across, no sentence about it; no schedstat: no waiting sentence.
    const auto c = concludeLivePlacement({ phase("unpinned", {}, std::nullopt, { 1000, 1010 }, {}),
        phase("both threads on CPU 0", { 0, 0 }, Relation::SamePu, { 3000, 3100 }, {}) });
    EXPECT_FALSE(anyContains(c, "run-queue wait"));
    EXPECT_FALSE(anyContains(c, "with them on"));
    EXPECT_TRUE(anyContains(c, "With both threads on CPU 0 the pair's work rate was"));
}
