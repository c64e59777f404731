// SPDX-License-Identifier: MIT
// The watch's readers and rates on recorded texts (this 6.18 guest's status and sched files)
// and on snapshots built from them: each rate is the counters' growth over the wall time, a
// thread that started or ended says so, a reused PID ends the watch, and a kernel without
// se.nr_migrations gives a lower bound counted from last-CPU changes.
#include "os/task_stat.h"
#include "programs/rates.h"
#include "programs/snapshot.h"
#include "programs/sorted_walk.h"

#include "../reliability/seed.h"
#include "procfs_fixture.h"

#include "ctxscope/watch.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <random>

using namespace ctxscope;
using namespace ctxscope::os;
using programs::ProcessSnapshot;
using programs::TaskSnapshot;

namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

// A task as recorded, renumbered, with the given counters.
TaskSnapshot task(long tid, std::uint64_t voluntary, std::uint64_t involuntary, std::uint64_t runNs,
    std::uint64_t waitNs, std::optional<std::uint64_t> migrations, int cpu)
{
    auto stat = parseTaskStat(test::procfsFixture("task-stat-kvm-6.18.txt"));
    auto status = parseTaskStatus(test::procfsFixture("task-status-kvm-6.18.txt"));
    EXPECT_TRUE(stat.ok() && status.ok());
    TaskSnapshot t { *stat, *status, TaskSchedstat { runNs, waitNs, 1 }, migrations };
    t.stat.tid = tid;
    t.stat.comm = "t" + std::to_string(tid);
    t.stat.processor = cpu;
    t.status.voluntarySwitches = voluntary;
    t.status.involuntarySwitches = involuntary;
    return t;
}

ProcessSnapshot snapshot(std::uint64_t timeNs, std::vector<TaskSnapshot> tasks)
{
    ProcessSnapshot s;
    s.pid = 100;
    s.name = "demo";
    s.starttime = 42;
    s.timeNs = timeNs;
    s.tasks = std::move(tasks);
    return s;
}

} // namespace

TEST(WatchReaders, ReadsARecordedStatus)
{
    const auto s = parseTaskStatus(test::procfsFixture("task-status-kvm-6.18.txt"));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->voluntarySwitches, 1U);
    EXPECT_EQ(s->involuntarySwitches, 1U);
    EXPECT_EQ(s->cpusAllowed, (std::vector<int> { 0, 1 }));
    EXPECT_EQ(s->uid, 0);
}

TEST(WatchReaders, MigrationsOnlyWhereTheKernelCountsThem)
{
    EXPECT_EQ(parseTaskMigrations(test::procfsFixture("task-sched-kvm-6.18.txt")), std::optional<std::uint64_t>(0));
    EXPECT_EQ(parseTaskMigrations("se.nr_migrations                             :                   17\n"),
        std::optional<std::uint64_t>(17));
    EXPECT_FALSE(parseTaskMigrations("nr_switches : 3\n").has_value());
    EXPECT_FALSE(parseTaskMigrations("se.nr_migrations : x\n").has_value());
}

TEST(WatchReaders, SchedGivesTheSwitchCountsStatusGives)
{
    // The recorded sched and status of one task: the same counts in both.
    const auto sched = parseTaskSched(test::procfsFixture("task-sched-kvm-6.18.txt"));
    ASSERT_TRUE(sched.has_value());
    EXPECT_EQ(sched->migrations, 0U);
    EXPECT_EQ(sched->voluntarySwitches, std::optional<std::uint64_t>(0));
    EXPECT_EQ(sched->involuntarySwitches, std::optional<std::uint64_t>(1));
    const auto partial = parseTaskSched("se.nr_migrations : 4\nnr_voluntary_switches : 9\n");
    ASSERT_TRUE(partial.has_value());
    EXPECT_EQ(partial->migrations, 4U);
    EXPECT_EQ(partial->voluntarySwitches, std::optional<std::uint64_t>(9));
    EXPECT_FALSE(partial->involuntarySwitches.has_value()); // the watch reads status then
    EXPECT_FALSE(parseTaskSched("nr_voluntary_switches : 9\n").has_value()); // no migrations: not this file
    EXPECT_FALSE(parseTaskSched("se.nr_migrations : x\n").has_value());
}

TEST(WatchReaders, GarbageStatusIsASentence)
{
    for (const char* text : { "", "voluntary_ctxt_switches: 1\n",
             "voluntary_ctxt_switches: x\nnonvoluntary_ctxt_switches: 1\nCpus_allowed_list: 0\n",
             "voluntary_ctxt_switches: 1\nnonvoluntary_ctxt_switches: 1\nCpus_allowed_list: 3-1\n",
             "Uid: -1\nvoluntary_ctxt_switches: 1\nnonvoluntary_ctxt_switches: 1\nCpus_allowed_list: 0\n" }) {
        const auto s = parseTaskStatus(text);
        ASSERT_FALSE(s.ok()) << text;
        EXPECT_NE(s.error().message.find("a task's status could not be read: "), std::string::npos);
    }
    std::mt19937 rng(test::seed());
    const std::string base = test::procfsFixture("task-status-kvm-6.18.txt");
    for (int i = 0; i < 2000; ++i) {
        std::string t = base.substr(0, 1 + rng() % base.size());
        for (int k = 0; k < 4; ++k)
            t[rng() % t.size()] = static_cast<char>(rng() % 256);
        (void)parseTaskStatus(t);
        (void)parseTaskMigrations(t);
        (void)parseTaskSched(t);
    }
}

namespace {
// Keys for a walk's tests: some of 10..400 present (`present`), and lookups of 0..420 in order
// and shuffled, some of them absent.
struct WalkKeys {
    std::vector<long> present;
    std::vector<long> inOrder;
    std::vector<long> shuffled;
};
WalkKeys walkKeys(std::mt19937& rng)
{
    WalkKeys keys;
    for (long key = 10; key < 400; key += 1 + static_cast<long>(rng() % 3))
        keys.present.push_back(key);
    for (long key = 0; key < 420; ++key)
        if (rng() % 4 != 0)
            keys.inOrder.push_back(key);
    keys.shuffled = keys.inOrder;
    std::shuffle(keys.shuffled.begin(), keys.shuffled.end(), rng);
    return keys;
}
} // namespace

// A cursor's lookups, in TID order as a watch makes them, out of order, and of TIDs that are not
// there, answer as findByTid does.
TEST(WatchRates, ACursorFindsWhatTheSearchFinds)
{
    std::mt19937 rng(test::seed());
    const WalkKeys keys = walkKeys(rng);
    std::vector<TaskSnapshot> tasks;
    for (const long tid : keys.present)
        tasks.push_back(task(tid, 0, 0, 0, 0, std::nullopt, 0));
    const ProcessSnapshot snap = snapshot(kSecond, tasks);
    for (const auto* lookups : { &keys.inOrder, &keys.shuffled }) {
        programs::TidCursor cursor(snap);
        int found = 0;
        for (const long tid : *lookups) {
            const TaskSnapshot* byCursor = cursor.find(tid);
            ASSERT_EQ(byCursor, programs::findByTid(snap, tid)) << "TID " << tid;
            found += byCursor != nullptr;
        }
        EXPECT_GT(found, 50); // some were there, and some not
        EXPECT_LT(found, static_cast<int>(lookups->size()));
    }
}

// A map walked as the watch walks its tracks (findFrom with lower_bound, then an insert at the
// place found): in order, out of order, and with keys not there, each lookup lands on the key
// or on the place to insert it, and the map ends with the keys of both.
TEST(WatchRates, AWalkThroughAMapFindsOrPlacesEachKey)
{
    std::mt19937 rng(test::seed());
    const WalkKeys keys = walkKeys(rng);
    std::map<long, int> present;
    for (const long key : keys.present)
        present.emplace(key, 1);
    const auto keyOf = [](const auto& entry) { return entry.first; };
    for (const auto* lookups : { &keys.inOrder, &keys.shuffled }) {
        std::map<long, int> walked = present;
        auto at = walked.begin();
        for (const long key : *lookups) {
            at = programs::findFrom(at, walked.end(), key, keyOf, [&] { return walked.lower_bound(key); });
            ASSERT_EQ(at, walked.lower_bound(key)) << "key " << key;
            if (at == walked.end() || at->first != key)
                at = walked.emplace_hint(at, key, 2);
            ++at;
        }
        std::map<long, int> expected = present;
        for (const long key : *lookups)
            expected.emplace(key, 2);
        EXPECT_EQ(walked, expected);
    }
}

TEST(WatchRates, GrowthOverWallTime)
{
    const auto a = task(101, 100, 10, 0, 0, 5, 0);
    const auto b = task(101, 1100, 60, kSecond / 4, kSecond / 10, 9, 1);
    const ThreadRates r = programs::threadRates(&a, b, 2 * kSecond);
    EXPECT_DOUBLE_EQ(r.voluntaryPerS, 500);
    EXPECT_DOUBLE_EQ(r.involuntaryPerS, 25);
    EXPECT_DOUBLE_EQ(r.cpuShare, 0.125);
    ASSERT_TRUE(r.runqueueWaitPerS.has_value());
    EXPECT_DOUBLE_EQ(*r.runqueueWaitPerS, 0.05);
    EXPECT_DOUBLE_EQ(r.migrationsPerS, 2);
    EXPECT_FALSE(r.migrationsLowerBound);
    EXPECT_EQ(r.cpu, 1);
    EXPECT_EQ(r.affinity, (std::vector<int> { 0, 1 }));
}

TEST(WatchRates, NoMigrationCounterGivesALowerBound)
{
    const auto a = task(101, 0, 0, 0, 0, std::nullopt, 0);
    const auto b = task(101, 0, 0, 0, 0, std::nullopt, 1);
    const ThreadRates moved = programs::threadRates(&a, b, kSecond / 2);
    EXPECT_TRUE(moved.migrationsLowerBound);
    EXPECT_DOUBLE_EQ(moved.migrationsPerS, 2); // one change in half a second
    const ThreadRates stayed = programs::threadRates(&a, a, kSecond / 2);
    EXPECT_DOUBLE_EQ(stayed.migrationsPerS, 0);
}

TEST(WatchRates, ThreadsThatStartAndEnd)
{
    const auto before = snapshot(kSecond, { task(101, 10, 0, 0, 0, 0, 0), task(102, 10, 0, 0, 0, 0, 0) });
    auto reused = task(103, 4, 0, 0, 0, 1, 1);
    const auto after = snapshot(2 * kSecond, { task(101, 30, 0, 0, 0, 0, 0), reused });
    const WatchSample s = programs::compareSnapshots(before, after);
    EXPECT_EQ(s.appeared, (std::vector<long> { 103 }));
    ASSERT_EQ(s.ended.size(), 1U);
    EXPECT_EQ(s.ended[0].tid, 102);
    EXPECT_EQ(s.ended[0].name, "t102");
    ASSERT_EQ(s.threads.size(), 2U);
    EXPECT_DOUBLE_EQ(s.threads[0].voluntaryPerS, 20);
    EXPECT_DOUBLE_EQ(s.threads[1].voluntaryPerS, 4); // its counters began within the interval

    // The same TID with another start time is a new thread.
    auto again = task(101, 1, 0, 0, 0, 0, 0);
    again.stat.starttime += 100;
    const WatchSample r = programs::compareSnapshots(before, snapshot(2 * kSecond, { again }));
    EXPECT_EQ(r.appeared, (std::vector<long> { 101 }));
    EXPECT_EQ(r.ended.size(), 2U);
}

TEST(WatchRates, SystemSwitchesAndBusyShares)
{
    auto before = snapshot(kSecond, {});
    auto after = snapshot(3 * kSecond, {});
    ProcStat a;
    a.contextSwitches = 1000;
    a.cpus.resize(2);
    a.cpus[0].cpu = 0;
    a.cpus[0].user = 10;
    a.cpus[0].idle = 90;
    a.cpus[1].cpu = 1;
    a.cpus[1].idle = 100;
    ProcStat b = a;
    b.contextSwitches = 5000;
    b.cpus[0].user = 60; // 50 of 100 ticks busy
    b.cpus[0].idle = 140;
    b.cpus[1].idle = 200;
    before.system = a;
    after.system = b;
    WatchSample s;
    programs::systemRates(before, after, s);
    ASSERT_TRUE(s.systemSwitchesPerS.has_value());
    EXPECT_DOUBLE_EQ(*s.systemSwitchesPerS, 2000);
    ASSERT_EQ(s.cpus.size(), 2U);
    EXPECT_DOUBLE_EQ(s.cpus[0].busyShare, 0.5);
    EXPECT_DOUBLE_EQ(s.cpus[1].busyShare, 0);
}

TEST(WatchRates, SummaryAveragesTheWholeWatchAndAReusedPidEndsIt)
{
    auto watch = ProcessWatch::fromSnapshot(snapshot(kSecond, { task(101, 0, 0, 0, 0, std::nullopt, 0) }));
    ASSERT_TRUE(watch.nextFrom(snapshot(2 * kSecond, { task(101, 100, 0, 0, 0, std::nullopt, 1) })).ok());
    const auto second = watch.nextFrom(
        snapshot(3 * kSecond, { task(101, 300, 0, 0, 0, std::nullopt, 0), task(105, 7, 0, 0, 0, std::nullopt, 1) }));
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second->appeared, (std::vector<long> { 105 }));
    EXPECT_DOUBLE_EQ(second->seconds, 2);
    auto other = snapshot(4 * kSecond, { task(101, 0, 0, 0, 0, std::nullopt, 0) });
    other.starttime = 9999;
    other.name = "intruder";
    const auto reused = watch.nextFrom(other);
    ASSERT_FALSE(reused.ok());
    EXPECT_EQ(reused.error().message, "process 100 (demo) ended; its PID now belongs to another program (intruder)");

    const WatchSummary sum = watch.summary();
    EXPECT_EQ(sum.samples, 2);
    EXPECT_DOUBLE_EQ(sum.seconds, 2);
    EXPECT_EQ(sum.ending, reused.error().message);
    ASSERT_EQ(sum.threads.size(), 2U);
    EXPECT_DOUBLE_EQ(sum.threads[0].voluntaryPerS, 150); // 300 over 2 s
    EXPECT_TRUE(sum.threads[0].migrationsLowerBound);
    EXPECT_DOUBLE_EQ(sum.threads[0].migrationsPerS, 1); // 0 -> 1 -> 0: two changes in 2 s
    EXPECT_EQ(sum.threads[0].cpusSeen, (std::vector<int> { 0, 1 }));
    EXPECT_DOUBLE_EQ(sum.threads[1].voluntaryPerS, 7); // from its start in the last interval
    EXPECT_DOUBLE_EQ(sum.threads[1].seconds, 1);

    std::string summaryLine;
    appendWatchSummaryLine(summaryLine, sum);
    const auto summaryJson = nlohmann::json::parse(summaryLine);
    EXPECT_EQ(summaryJson["type"], "watch_summary");
    for (const char* key : { "tid", "name", "voluntary_per_s", "involuntary_per_s", "cpu_share", "runqueue_wait_per_s",
             "migrations_per_s", "migrations_lower_bound", "cpus_seen", "affinity" })
        EXPECT_TRUE(summaryJson["threads"][0].contains(key)) << key;
    EXPECT_EQ(summaryJson["threads"][0]["cpus_seen"], "0-1");
    std::string line;
    appendWatchSampleLine(line, *second);
    EXPECT_EQ(nlohmann::json::parse(line)["type"], "watch_sample");
}
