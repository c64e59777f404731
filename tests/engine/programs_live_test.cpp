// SPDX-License-Identifier: MIT
// Watching, listing and re-pinning real programs on this machine: a workload started by the
// test is watched and its threads pinned and restored (checked against taskset -p); threads
// that start and end during a watch; a child process that ends mid-watch; a PID that does
// not exist; a per-CPU kernel thread; another user's program without the privilege (run as
// nobody by tests/reliability/as_nobody.sh).
#include "os/task_stat.h"
#include "programs/snapshot.h"
#include "workload/programs.h"

#include "privilege.h"

#include "ctxscope/pin.h"
#include "ctxscope/placement.h"
#include "ctxscope/process_list.h"
#include "ctxscope/thread_affinity.h"
#include "ctxscope/watch.h"
#include "ctxscope/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ctxscope;

namespace {

void pause(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

const ThreadRates* findThread(const WatchSample& s, long tid)
{
    const auto it
        = std::find_if(s.threads.begin(), s.threads.end(), [&](const ThreadRates& t) { return t.tid == tid; });
    return it == s.threads.end() ? nullptr : &*it;
}

// What `taskset -cp TID` says the thread's affinity is (it writes "0,1" or "0-3").
std::vector<int> tasksetList(long tid)
{
    const std::string command = "taskset -cp " + std::to_string(tid) + " 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe)
        return {};
    char line[256] = {};
    const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
    ::pclose(pipe);
    const std::string text = read ? line : "";
    const auto colon = text.rfind(": ");
    if (colon == std::string::npos)
        return {};
    auto list = parseCpuList(text.substr(colon + 2, text.find('\n') - colon - 2));
    return list ? *list : std::vector<int> {};
}

long nonexistentPid()
{
    std::ifstream in("/proc/sys/kernel/pid_max");
    long max = 4194304;
    in >> max;
    return max + 1; // no PID reaches pid_max
}

} // namespace

TEST(ProgramsLive, WatchesAWorkloadAndPinsItsThreads)
{
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    if (!topology->isThisSystem())
        GTEST_SKIP() << "the topology is not this machine (HWLOC_XMLFILE?)";
    auto work = RunningWorkload::start("pingpong", 1);
    ASSERT_TRUE(work.ok()) << work.error().message;
    ASSERT_EQ(work->threads().size(), 2U);
    const long ping = work->threads()[0].tid;
    auto watch = ProcessWatch::start(::getpid());
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    pause(300);
    const auto sample = watch->next();
    ASSERT_TRUE(sample.ok()) << sample.error().message;
    const ThreadRates* t = findThread(*sample, ping);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->name, "ping0");
    EXPECT_GT(t->voluntaryPerS, 0); // it sleeps on a futex every round trip
    EXPECT_TRUE(t->cpu.has_value());
    EXPECT_EQ(t->affinity, threadAffinity(static_cast<int>(ping)));

    const std::vector<int> original = threadAffinity(static_cast<int>(ping));
    const int first = topology->allowedPus().front();
    auto pinned = pinThread(*topology, ping, { first });
    ASSERT_TRUE(pinned.ok()) << pinned.error().message;
    EXPECT_EQ(pinned->before, original);
    EXPECT_EQ(pinned->after, std::vector<int> { first });
    EXPECT_EQ(pinned->name, "ping0");
    EXPECT_EQ(tasksetList(ping), std::vector<int> { first }); // util-linux is in every Debian
    pause(100);
    const auto after = watch->next();
    ASSERT_TRUE(after.ok()) << after.error().message;
    ASSERT_NE(findThread(*after, ping), nullptr);
    EXPECT_EQ(findThread(*after, ping)->affinity, std::vector<int> { first });

    // Restore every thread of the workload's process (this one) to what it had.
    auto restored = pinProcess(*topology, ::getpid(), original);
    ASSERT_TRUE(restored.ok()) << restored.error().message;
    EXPECT_GE(restored->size(), 3U); // this thread, ping and pong at least
    EXPECT_EQ(threadAffinity(static_cast<int>(ping)), original);
    EXPECT_EQ(tasksetList(ping), original);
    const WatchSummary summary = watch->summary();
    EXPECT_EQ(summary.samples, 2);
    EXPECT_TRUE(summary.ending.empty());
}

TEST(ProgramsLive, ThreadsThatStartAndEndDuringAWatch)
{
    auto watch = ProcessWatch::start(::getpid());
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    std::atomic<long> tid { 0 };
    std::atomic<bool> leave { false };
    std::thread other([&] {
        tid = static_cast<long>(::gettid());
        while (!leave)
            pause(1);
    });
    while (tid == 0)
        std::this_thread::yield();
    const auto started = watch->next();
    ASSERT_TRUE(started.ok()) << started.error().message;
    EXPECT_NE(std::find(started->appeared.begin(), started->appeared.end(), tid.load()), started->appeared.end());
    leave = true;
    other.join();
    // A joined thread can stay listed for a moment (see proc_helpers.h): wait until it is gone.
    for (int i = 0; i < 2000 && os::readTaskStat(::getpid(), tid).ok(); ++i)
        pause(1);
    const auto ended = watch->next();
    ASSERT_TRUE(ended.ok()) << ended.error().message;
    EXPECT_TRUE(
        std::any_of(ended->ended.begin(), ended->ended.end(), [&](const EndedThread& e) { return e.tid == tid; }));
    const WatchSummary summary = watch->summary();
    EXPECT_TRUE(std::any_of(summary.threads.begin(), summary.threads.end(),
        [&](const ThreadSummary& t) { return t.tid == tid && t.ended; }));
}

// A watch reads `sched` and the affinity of a thread only when it ran since the last reading,
// and every kFullReadEvery readings anyway (programs/snapshot.h): an affinity another tool sets
// on a thread that sleeps on still shows within that many readings, and a thread that wakes
// once has its switch counted in the very next reading.
TEST(ProgramsLive, ASleepingThreadsNewAffinityAndItsOneWakeShowInTime)
{
    std::mutex mutex;
    std::condition_variable wake;
    int wakes = 0;
    bool leave = false;
    std::atomic<long> tid { 0 };
    std::thread sleeper([&] {
        tid = static_cast<long>(::gettid());
        std::unique_lock lock(mutex);
        for (int seen = 0; !leave; seen = wakes)
            wake.wait(lock, [&] { return leave || wakes != seen; });
    });
    const auto stop = [&] {
        if (!sleeper.joinable())
            return;
        {
            std::lock_guard lock(mutex);
            leave = true;
        }
        wake.notify_one();
        sleeper.join();
    };
    // An assertion that returns early still ends the thread (a joinable one would terminate).
    const std::unique_ptr<void, std::function<void(void*)>> stopOnReturn(&sleeper, [&](void*) { stop(); });
    while (tid == 0)
        std::this_thread::yield();
    const auto sleeping = [&] {
        const auto stat = os::readTaskStat(::getpid(), tid);
        return stat.ok() && stat->state == 'S';
    };
    for (int i = 0; i < 2000 && !sleeping(); ++i)
        pause(1);
    const std::vector<int> allowed = threadAffinity(static_cast<int>(tid));
    if (allowed.size() < 2) {
        stop();
        GTEST_SKIP() << "one CPU allowed: no other affinity to set";
    }
    auto watch = ProcessWatch::start(::getpid());
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    ASSERT_TRUE(watch->next().ok());

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<std::size_t>(allowed.back()), &one);
    ASSERT_EQ(::sched_setaffinity(static_cast<pid_t>(tid), sizeof one, &one), 0);
    int readings = 0;
    bool shown = false;
    while (!shown && readings < programs::kFullReadEvery) {
        const auto sample = watch->next();
        ASSERT_TRUE(sample.ok()) << sample.error().message;
        ++readings;
        const ThreadRates* t = findThread(*sample, tid);
        ASSERT_NE(t, nullptr);
        shown = t->affinity == std::vector<int> { allowed.back() };
    }
    EXPECT_TRUE(shown) << "the new affinity did not show in " << readings << " readings";

    // The next reading must not be one that reads every file of this thread anyway.
    while ((watch->summary().samples + 1) % programs::kFullReadEvery == tid % programs::kFullReadEvery)
        ASSERT_TRUE(watch->next().ok());
    {
        std::lock_guard lock(mutex);
        ++wakes;
    }
    wake.notify_one();
    pause(20);
    for (int i = 0; i < 2000 && !sleeping(); ++i) // back in its wait
        pause(1);
    const auto woken = watch->next();
    stop();
    ASSERT_TRUE(woken.ok()) << woken.error().message;
    const ThreadRates* t = findThread(*woken, tid);
    ASSERT_NE(t, nullptr);
    EXPECT_GT(t->voluntaryPerS, 0.0) << "its wake and sleep were not counted";
}

// A counted reading (watch --trace) keeps a thread's affinity from the last reading unless
// something says it may have changed: with BPF's key, a new key or its longer turn for a thread
// that ran; for one that did not run, or without a key, its turn; a first key.
TEST(ProgramsLive, ACountedReadingReadsAnAffinityAgainWhenItsKeyChangesOrInTurn)
{
    const long pid = ::getpid();
    const std::vector<long> tids { pid };
    const std::vector<int> real = threadAffinity(static_cast<int>(pid));
    ASSERT_FALSE(real.empty());
    // The last reading says the thread may run only on a CPU no machine here has: a reading
    // that keeps the affinity keeps that, one that reads it gets the real one.
    auto previous = programs::readCountedSnapshot(pid, tids, nullptr, {}, 0);
    ASSERT_TRUE(previous.ok()) << previous.error().message;
    ASSERT_EQ(previous->tasks.size(), 1U);
    const std::vector<int> kept { 4095 };
    previous->tasks[0].status.cpusAllowed = kept;
    previous->tasks[0].affinityKey = 7;
    previous->tasks[0].schedstat = os::TaskSchedstat { .runNs = 0, .waitNs = 0, .timeslices = 10 };
    // In its turn, but not its longer one (a multiple of kFullReadEvery away from it).
    const int inKeyedTurn = static_cast<int>(pid % programs::kKeyedReadEvery);
    const int inTurn = (inKeyedTurn + programs::kFullReadEvery) % programs::kKeyedReadEvery;
    const int notInTurn = inTurn + 1;
    const auto affinity = [&](std::uint32_t key, std::uint64_t switchIns, int reading) {
        SchedCounts c;
        c.switchIns = switchIns;
        c.affinityKey = key;
        auto snap = programs::readCountedSnapshot(pid, tids, &*previous, { { pid, c } }, 1, reading);
        return snap.ok() && snap->tasks.size() == 1 ? snap->tasks[0].status.cpusAllowed : std::vector<int> {};
    };
    // It ran (11 switch-ins against 10) and left its CPUs under the same key: kept, even in
    // turn; read in its longer turn.
    EXPECT_EQ(affinity(7, 11, inTurn), kept);
    EXPECT_EQ(affinity(7, 11, notInTurn), kept);
    EXPECT_EQ(affinity(7, 11, inKeyedTurn), real);
    // Under a new key: read.
    EXPECT_EQ(affinity(8, 11, notInTurn), real);
    // It did not run: no switch saw its affinity, so in turn, as without a key.
    EXPECT_EQ(affinity(7, 10, inTurn), real);
    EXPECT_EQ(affinity(7, 10, notInTurn), kept);
    // No key (ftrace's counts): in turn, whether it ran or not.
    EXPECT_EQ(affinity(0, 11, inTurn), real);
    EXPECT_EQ(affinity(0, 11, notInTurn), kept);
    // A first key (the last reading had none): read, to be bound to it.
    previous->tasks[0].affinityKey = 0;
    EXPECT_EQ(affinity(7, 11, notInTurn), real);
}

TEST(ProgramsLive, AProcessEndingEndsTheWatchWithASentence)
{
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::pause();
        ::_exit(0);
    }
    auto watch = ProcessWatch::start(child);
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    ASSERT_TRUE(watch->next().ok());
    ::kill(child, SIGKILL);
    // Not reaped yet: a zombie has ended too.
    for (int i = 0; i < 5000; ++i) {
        const auto stat = os::readTaskStat(child, child);
        if (!stat || stat->state == 'Z')
            break;
        pause(1);
    }
    const auto gone = watch->next();
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_FALSE(gone.ok());
    EXPECT_NE(gone.error().message.find("process " + std::to_string(child) + " ("), std::string::npos);
    EXPECT_NE(gone.error().message.find(") ended"), std::string::npos) << gone.error().message;
    EXPECT_EQ(watch->summary().ending, gone.error().message);
    EXPECT_FALSE(watch->next().ok()); // and stays ended
}

namespace {

// A joined thread may still be in /proc for a moment (its TID is cleared before the kernel
// releases it): true once reading its stat fails, within 2 s.
bool statGoneSoon(long pid, long tid, os::TaskFiles& files)
{
    for (int i = 0; i < 200; ++i) {
        if (!os::readTaskStat(pid, tid, &files).ok())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

} // namespace

TEST(ProgramsLive, TaskFilesKeptOpenReadTheValuesOfNow)
{
    const long pid = ::getpid();
    const long me = sys::threadId();
    os::TaskFiles files;
    const auto first = os::readTaskSchedstat(pid, me, &files);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ(files.openFiles(), 1U);
    // Burn some CPU: the same open file, read again, must show more run time.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
    volatile std::uint64_t x = 0;
    while (std::chrono::steady_clock::now() < until)
        x = x + 1;
    const auto second = os::readTaskSchedstat(pid, me, &files);
    ASSERT_TRUE(second.ok()) << second.error().message;
    EXPECT_GT(second->runNs, first->runNs);
    EXPECT_EQ(files.openFiles(), 1U);

    // A thread that ended: its kept file no longer reads, and is dropped.
    long tid = 0;
    std::thread t([&] { tid = sys::threadId(); });
    t.join();
    EXPECT_TRUE(statGoneSoon(pid, tid, files));
    files.keepOnly({ me }); // what a snapshot does with the TIDs it lists
    std::mutex mutex;
    std::condition_variable wake;
    bool leave = false;
    long running = 0;
    std::thread other([&] {
        std::unique_lock lock(mutex);
        running = sys::threadId();
        wake.notify_all();
        wake.wait(lock, [&] { return leave; });
    });
    {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return running != 0; });
    }
    tid = running;
    EXPECT_TRUE(os::readTaskStat(pid, tid, &files).ok());
    EXPECT_EQ(files.openFiles(), 2U);
    {
        std::lock_guard lock(mutex);
        leave = true;
    }
    wake.notify_all();
    other.join();
    EXPECT_TRUE(statGoneSoon(pid, tid, files));
    EXPECT_EQ(files.openFiles(), 1U);
    files.keepOnly({});
    EXPECT_EQ(files.openFiles(), 0U);
}

TEST(ProgramsLive, APidThatDoesNotExist)
{
    const long pid = nonexistentPid();
    const auto watch = ProcessWatch::start(pid);
    ASSERT_FALSE(watch.ok());
    EXPECT_EQ(watch.error().message, "no process with PID " + std::to_string(pid) + " is running");
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const int cpu = topology->allowedPus().front();
    const auto thread = pinThread(*topology, pid, { cpu });
    ASSERT_FALSE(thread.ok());
    EXPECT_EQ(thread.error().message, "no thread with TID " + std::to_string(pid) + " is running");
    const auto process = pinProcess(*topology, pid, { cpu });
    ASSERT_FALSE(process.ok());
    EXPECT_EQ(process.error().message, "no process with PID " + std::to_string(pid) + " is running");
}

TEST(ProgramsLive, CpusOutsideTheAllowedSetAreRefusedAsEverywhere)
{
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const auto refused = pinThread(*topology, ::gettid(), { 65535 });
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message, checkPuUsable(*topology, 65535).error().message);
}

TEST(ProgramsLive, PerCpuKernelThreadsAreRefusedWithTheReason)
{
    const auto tasks = os::scanTasks();
    const auto kthread = std::find_if(
        tasks.begin(), tasks.end(), [](const os::TaskStat& t) { return t.kernelThread() && t.affinityFixed(); });
    if (kthread == tasks.end())
        GTEST_SKIP() << "no per-CPU kernel thread is visible here";
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const std::vector<int> before = threadAffinity(static_cast<int>(kthread->tid));
    const auto refused = pinThread(*topology, kthread->tid, { topology->allowedPus().front() });
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("is a per-CPU kernel thread"), std::string::npos) << refused.error().message;
    EXPECT_EQ(threadAffinity(static_cast<int>(kthread->tid)), before);
}

TEST(ProgramsLive, ListsProcessesWithThisOneMarkedOwn)
{
    auto work = RunningWorkload::start("pingpong", 1);
    ASSERT_TRUE(work.ok()) << work.error().message;
    const auto list = sampleProcesses(0.3, {});
    ASSERT_TRUE(list.ok()) << list.error().message;
    const auto me
        = std::find_if(list->begin(), list->end(), [](const ProcessActivity& p) { return p.pid == ::getpid(); });
    ASSERT_NE(me, list->end());
    EXPECT_TRUE(me->own);
    EXPECT_FALSE(me->kernel);
    EXPECT_GE(me->threads, 3);
    EXPECT_GT(me->voluntaryPerS, 0);
    EXPECT_TRUE(std::is_sorted(list->begin(), list->end(),
        [](const ProcessActivity& a, const ProcessActivity& b) { return a.switchesPerS() > b.switchesPerS(); }));
}

TEST(Unprivileged, PinningAnotherUsersProgramNamesWhatIsMissing)
{
    if (::getuid() == 0 || test::hasSysNice()) {
        if (std::getenv("CTXSCOPE_REQUIRE_UNPRIVILEGED"))
            FAIL() << "expected to run as a user without CAP_SYS_NICE";
        GTEST_SKIP() << "this process may change any thread's affinity (root or CAP_SYS_NICE)";
    }
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    // init, root's program; with the opt-in PID 1's guard lets the kernel's EPERM speak.
    const auto refused = pinThread(*topology, 1, { topology->allowedPus().front() }, KernelThreads::Move);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("needs root or the CAP_SYS_NICE capability"), std::string::npos)
        << refused.error().message;
    // Watching needs no privilege: another user's threads are readable in /proc.
    auto watch = ProcessWatch::start(1);
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    EXPECT_TRUE(watch->next().ok());
}

TEST(Workload, CountsItsWorkAndStopsAtItsDuration)
{
    for (const std::string name : { "pingpong", "pipeline", "busy" }) {
        SCOPED_TRACE(name);
        std::vector<WorkloadThread> threads;
        std::vector<WorkloadTick> ticks;
        const auto done = runWorkload(name, 2, 0.3, {},
            { [&](const std::vector<WorkloadThread>& t) { threads = t; },
                [&](const WorkloadTick& t) { ticks.push_back(t); } });
        ASSERT_TRUE(done.ok()) << done.error().message;
        EXPECT_EQ(threads.size(), name == "pingpong" ? 4U : name == "pipeline" ? 4U : 2U);
        for (const auto& t : threads)
            EXPECT_GT(t.tid, 0);
        ASSERT_EQ(ticks.size(), 1U); // the duration ends it before a whole second
        EXPECT_GT(ticks[0].work, 0U);
    }
}

TEST(Workload, ASleeperLateByAPeriodOrMoreSkipsToTheNextDeadlineAfterNow)
{
    using ctxscope::workload::nextWake;
    constexpr std::int64_t kPeriod = 100;
    EXPECT_EQ(nextWake(1000, 1003, kPeriod), 1100); // on time: the next period
    EXPECT_EQ(nextWake(1000, 990, kPeriod), 1100); // woken early (a signal): the next all the same
    EXPECT_EQ(nextWake(1000, 1099, kPeriod), 1100); // late by less than a period: nothing skipped
    EXPECT_EQ(nextWake(1000, 1100, kPeriod), 1200); // a period late: the one due now is skipped
    EXPECT_EQ(nextWake(1000, 1350, kPeriod), 1400); // 3.5 periods late: three skipped, still on the grid
}

TEST(Workload, StopsOnRequestAndRefusesUnknownNames)
{
    std::stop_source stop;
    std::jthread stopper([&] {
        pause(100);
        stop.request_stop();
    });
    const auto done = runWorkload("pingpong", 1, 0, stop.get_token(), {});
    EXPECT_TRUE(done.ok());
    const auto unknown = runWorkload("nope", 1, 0.1, {}, {});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().message, "no workload named 'nope' (workloads: pingpong, pipeline, busy, sleepers)");
}
