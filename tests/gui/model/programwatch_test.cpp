// SPDX-License-Identifier: MIT
// The Programs dock's document: the process list's order, thread rows that keep their
// selection across samples, each thread's history, and what Restore gives back.
#include "processtablemodel.h"
#include "programwatch.h"
#include "threadtablemodel.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

ProcessActivity process(long pid, const char* name, bool own, double voluntary, double involuntary = 0)
{
    ProcessActivity p;
    p.pid = pid;
    p.name = name;
    p.own = own;
    p.threads = 1;
    p.voluntaryPerS = voluntary;
    p.involuntaryPerS = involuntary;
    return p;
}

ThreadRates thread(long tid, std::optional<int> cpu, std::vector<int> affinity, double voluntary = 100)
{
    ThreadRates t;
    t.tid = tid;
    t.name = "worker-" + std::to_string(tid);
    t.state = 'S';
    t.cpu = cpu;
    t.affinity = std::move(affinity);
    t.voluntaryPerS = voluntary;
    t.involuntaryPerS = 1;
    t.runqueueWaitPerS = 0.02;
    return t;
}

WatchSample sample(long pid, double seconds, std::vector<ThreadRates> threads)
{
    WatchSample s;
    s.pid = pid;
    s.name = "server";
    s.seconds = seconds;
    s.intervalS = 0.5;
    s.threads = std::move(threads);
    s.systemSwitchesPerS = 1234;
    return s;
}

std::vector<long> tidsOf(const ThreadTableModel& model)
{
    std::vector<long> tids;
    for (int row = 0; row < model.rowCount(); ++row)
        tids.push_back(model.data(model.index(row, 0), ThreadTableModel::TidRole).toLongLong());
    return tids;
}

} // namespace

TEST(ProcessTable, ListsTheUsersOwnFirstThenTheBusiestThenByPid)
{
    ProcessTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setProcesses({ process(10, "sshd", false, 500), process(30, "editor", true, 2),
        process(20, "server", true, 900, 100), process(5, "cron", false, 500), process(40, "idle", true, 2) });
    std::vector<long> order;
    for (int row = 0; row < model.rowCount(); ++row)
        order.push_back(model.data(model.index(row, 0), ProcessTableModel::PidRole).toLongLong());
    EXPECT_EQ(order, (std::vector<long> { 20, 30, 40, 5, 10 }));
    EXPECT_EQ(model.data(model.index(0, ProcessTableModel::Switches)).toString(), QStringLiteral("1,000"));
    EXPECT_TRUE(model.data(model.index(0, ProcessTableModel::Name), Qt::FontRole).isValid()); // own: bold
    EXPECT_FALSE(model.data(model.index(3, ProcessTableModel::Name), Qt::FontRole).isValid());
}

TEST(ThreadTable, ASampleInsertsAndRemovesOnlyTheThreadsThatStartedOrEndedSoTheSelectionStays)
{
    ProgramWatch watch;
    ThreadTableModel& model = *watch.threads();
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QItemSelectionModel selection(&model);
    watch.begin(100);
    watch.addSample(sample(100, 0.5, { thread(100, 0, { 0, 1 }), thread(101, 1, { 0, 1 }), thread(103, 0, { 0, 1 }) }));
    EXPECT_EQ(tidsOf(model), (std::vector<long> { 100, 101, 103 }));
    selection.select(model.index(model.rowOfThread(103), 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    // 101 ended, 102 and 104 started.
    watch.addSample(sample(100, 1.0,
        { thread(100, 1, { 0, 1 }), thread(102, 0, { 0, 1 }), thread(103, 1, { 0, 1 }), thread(104, 1, { 0, 1 }) }));
    EXPECT_EQ(tidsOf(model), (std::vector<long> { 100, 102, 103, 104 }));
    EXPECT_EQ(reset.count(), 0);
    ASSERT_EQ(selection.selectedRows().size(), 1);
    EXPECT_EQ(selection.selectedRows().front().data(ThreadTableModel::TidRole).toLongLong(), 103);
    EXPECT_EQ(model.data(model.index(model.rowOfThread(100), ThreadTableModel::Cpu)).toString(),
        QStringLiteral("P#1")); // moved
    EXPECT_EQ(model.data(model.index(0, ThreadTableModel::RunqueueWait)).toString(), QStringLiteral("2.0%"));
    watch.addSample(sample(100, 1.5, {}));
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(ProgramWatch, KeepsEachThreadsHistoryAndTheProcessSumBoundedAndIgnoresAnotherWatchesSamples)
{
    ProgramWatch watch;
    watch.begin(7);
    for (std::size_t i = 0; i < ProgramWatch::kHistory + 10; ++i)
        watch.addSample(sample(7, 0.5 * static_cast<double>(i + 1),
            { thread(7, 0, { 0 }, 10), thread(8, 0, { 0 }, static_cast<double>(i)) }));
    ASSERT_NE(watch.history(8), nullptr);
    EXPECT_EQ(watch.history(8)->size(), ProgramWatch::kHistory);
    EXPECT_DOUBLE_EQ(watch.history(8)->back().switchesPerS, static_cast<double>(ProgramWatch::kHistory + 9) + 1);
    EXPECT_DOUBLE_EQ(watch.processHistory().back().switchesPerS, 11 + watch.history(8)->back().switchesPerS);
    ASSERT_TRUE(watch.processHistory().back().runqueueWaitPerS.has_value());
    EXPECT_NEAR(*watch.processHistory().back().runqueueWaitPerS, 0.04, 1e-12);
    EXPECT_EQ(watch.history(9), nullptr);
    const int samples = watch.samples();
    watch.addSample(sample(99, 1e6, { thread(99, 0, { 0 }) })); // a late line of an earlier watch
    EXPECT_EQ(watch.samples(), samples);
    EXPECT_EQ(watch.threads()->rowOfThread(99), -1);
}

TEST(ProgramWatch, RestoreGivesEachRunningThreadTheAffinityItHadWhenFirstSeen)
{
    ProgramWatch watch;
    QSignalSpy pins(&watch, &ProgramWatch::pinsChanged);
    watch.begin(50);
    watch.addSample(sample(50, 0.5, { thread(50, 0, { 0, 1 }), thread(51, 1, { 0, 1 }) }));
    EXPECT_TRUE(watch.restorePlan().empty());
    // Pinned: the table shows the answer at once, before the next sample.
    watch.addPin(0.7, { PinChange { 51, "worker-51", { 0, 1 }, { 1 } } });
    EXPECT_EQ(
        watch.threads()->data(watch.threads()->index(1, ThreadTableModel::Affinity)).toString(), QStringLiteral("1"));
    ASSERT_EQ(watch.pins().size(), 1U);
    EXPECT_DOUBLE_EQ(watch.pins().front().seconds, 0.7);
    EXPECT_EQ(watch.pins().front().what, QStringLiteral("51 → 1"));
    using Plan = std::vector<std::pair<long, std::vector<int>>>;
    EXPECT_EQ(watch.restorePlan(), (Plan { { 51, { 0, 1 } } }));
    // A thread that starts later is restored to what it had when it appeared; one that ended is not.
    watch.addSample(sample(50, 1.0, { thread(50, 0, { 0 }), thread(51, 1, { 1 }), thread(52, 1, { 1 }) }));
    watch.addPin(1.2, { PinChange { 52, "worker-52", { 1 }, { 0 } }, PinChange { 50, "worker-50", { 0 }, { 0 } } });
    EXPECT_EQ(watch.pins().back().what, QStringLiteral("2 threads → 0"));
    EXPECT_EQ(watch.restorePlan(), (Plan { { 50, { 0, 1 } }, { 51, { 0, 1 } }, { 52, { 1 } } }));
    WatchSample ended = sample(50, 1.5, { thread(50, 0, { 0 }), thread(52, 0, { 0 }) });
    ended.ended.push_back({ 51, "worker-51" });
    watch.addSample(ended);
    EXPECT_EQ(watch.restorePlan(), (Plan { { 50, { 0, 1 } }, { 52, { 1 } } }));
    EXPECT_EQ(pins.count(), 3); // begin, then each pin
    watch.begin(60);
    EXPECT_TRUE(watch.pins().empty());
    EXPECT_TRUE(watch.restorePlan().empty());
}

// What the worker says of the watched process decides whether the dock asks before a pin:
// a kernel thread (kthreadd by its name) or PID 1, and nothing once another watch begins.
TEST(ProgramWatch, TheGuardFollowsTheWorkersKernelFlagAndPidOne)
{
    ProgramWatch watch;
    watch.begin(2);
    WatchSample kthreadd = sample(2, 0.5, { thread(2, 0, { 0, 1 }) });
    kthreadd.name = "kthreadd";
    kthreadd.kernel = true;
    watch.addSample(kthreadd);
    EXPECT_EQ(watch.guard(), PinGuard::Kthreadd);
    watch.begin(15);
    EXPECT_EQ(watch.guard(), PinGuard::None); // nothing known before the first sample
    WatchSample rcu = sample(15, 0.5, { thread(15, 0, { 0, 1 }) });
    rcu.kernel = true;
    watch.addSample(rcu);
    EXPECT_EQ(watch.guard(), PinGuard::KernelThread);
    watch.begin(1);
    watch.addSample(sample(1, 0.5, { thread(1, 0, { 0, 1 }) }));
    EXPECT_EQ(watch.guard(), PinGuard::Init);
    watch.begin(50);
    watch.addSample(sample(50, 0.5, { thread(50, 0, { 0, 1 }) }));
    EXPECT_EQ(watch.guard(), PinGuard::None);
}

namespace {

ThreadRates wokenThread(long tid, std::vector<std::uint64_t> bins, std::vector<SchedPeer> wakers)
{
    ThreadRates t = thread(tid, 0, { 0, 1 });
    ThreadSched sched;
    sched.wake.log2Hist = std::move(bins);
    for (std::uint64_t n : sched.wake.log2Hist)
        sched.wake.count += n;
    sched.wakers = std::move(wakers);
    sched.preemptors = { { 77, "cc1plus", 2 } };
    t.sched = sched;
    return t;
}

} // namespace

// A traced watch: each thread's wake-up latencies summed over the intervals, as log2 bins, its
// wakers and preemptors summed by name; a re-pin of the thread begins another epoch, so that
// before and after are shown side by side.
TEST(ProgramWatch, ATracedWatchSumsEachThreadsWakeUpsAndARepinBeginsAnotherEpoch)
{
    ProgramWatch watch;
    watch.begin(10);
    watch.addSample(sample(10, 0.5, { thread(11, 0, { 0, 1 }) }));
    EXPECT_FALSE(watch.traced()); // untraced samples: no wake-ups
    EXPECT_EQ(watch.wakeups(11), nullptr);
    // 2^13 ns = 8.2 µs bins: 3 waits of 8-16 µs and 1 of 64-128 µs, woken by pong and an interrupt.
    std::vector<std::uint64_t> first(17, 0);
    first[13] = 3;
    first[16] = 1;
    watch.addSample(sample(10, 1.0, { wokenThread(11, first, { { 12, "pong", 3 }, { 0, "", 1 } }) }));
    std::vector<std::uint64_t> second(14, 0);
    second[13] = 4;
    watch.addSample(sample(10, 1.5, { wokenThread(11, second, { { 12, "pong", 4 } }) }));
    EXPECT_TRUE(watch.traced());
    const std::vector<WakeupEpoch>* epochs = watch.wakeups(11);
    ASSERT_NE(epochs, nullptr);
    ASSERT_EQ(epochs->size(), 1U);
    const WakeupEpoch& before = epochs->front();
    EXPECT_EQ(before.count, 8U);
    ASSERT_EQ(before.log2Hist.size(), 17U);
    EXPECT_EQ(before.log2Hist[13], 7U);
    EXPECT_EQ(before.quantileBin(0.5), std::uint64_t { 1 } << 13);
    EXPECT_EQ(before.quantileBin(0.99), std::uint64_t { 1 } << 16);
    const auto wakers = WakeupEpoch::top(before.wakers, 5);
    ASSERT_EQ(wakers.size(), 2U);
    EXPECT_EQ(wakers[0], (std::pair<std::string, std::uint64_t> { "pong (12)", 7 }));
    EXPECT_EQ(wakers[1], (std::pair<std::string, std::uint64_t> { "an interrupt", 1 }));
    EXPECT_EQ(before.preemptors.at("cc1plus (77)"), 4U);

    watch.addPin(1.6, { { 11, "ping", { 0, 1 }, { 0 } } });
    std::vector<std::uint64_t> after(12, 0);
    after[11] = 5;
    watch.addSample(sample(10, 2.0, { wokenThread(11, after, {}) }));
    ASSERT_EQ(watch.wakeups(11)->size(), 2U);
    const WakeupEpoch& pinned = watch.wakeups(11)->back();
    EXPECT_DOUBLE_EQ(pinned.fromSeconds, 1.6);
    EXPECT_EQ(pinned.count, 5U);
    EXPECT_EQ(pinned.quantileBin(0.5), std::uint64_t { 1 } << 11);
    EXPECT_EQ(watch.wakeups(11)->front().count, 8U); // before stays as it was
    EXPECT_FALSE(WakeupEpoch {}.quantileBin(0.5).has_value());
    watch.begin(20);
    EXPECT_EQ(watch.wakeups(11), nullptr);
}

// What traced the watch and why not BPF follow the last sample; another watch forgets them.
TEST(ProgramWatch, TheBackendAndWhyNotBpfAreTheLastSamples)
{
    ProgramWatch watch;
    watch.begin(30);
    WatchSample fellBack = sample(30, 0.5, { thread(31, 0, { 0 }) });
    fellBack.backend = SchedBackend::Ftrace;
    fellBack.backendFallback
        = "the BPF backend needs CAP_BPF and CAP_PERFMON (or root), which this process does not have";
    watch.addSample(fellBack);
    EXPECT_EQ(watch.backend(), SchedBackend::Ftrace);
    EXPECT_EQ(watch.backendFallback().toStdString(), fellBack.backendFallback);
    WatchSample bpf = sample(30, 1.0, { thread(31, 0, { 0 }) });
    bpf.backend = SchedBackend::Bpf;
    watch.addSample(bpf);
    EXPECT_EQ(watch.backend(), SchedBackend::Bpf);
    EXPECT_TRUE(watch.backendFallback().isEmpty());
    watch.addSample(fellBack);
    watch.begin(40);
    EXPECT_EQ(watch.backend(), SchedBackend::Proc);
    EXPECT_TRUE(watch.backendFallback().isEmpty());
}

// A traced watch's timeline: the intervals' events in order, a switch to or from a task the
// watch does not follow named "other tasks or idle" (what ran after it is not seen), a waker
// kept as it is; an interval the worker cut to its latest events breaks every lane where they
// begin; only the last 10 seconds stay.
TEST(ProgramWatch, TheTimelineKeepsTheLastTenSecondsOfTheWatchedThreadsEvents)
{
    ProgramWatch watch;
    watch.begin(500);
    watch.addSample(sample(500, 0.5, { thread(500, 0, { 0, 1 }), thread(501, 1, { 0, 1 }) }));
    QSignalSpy changed(&watch, &ProgramWatch::timelineChanged);
    const auto sw = [](std::uint64_t ns, int cpu, std::int32_t prev, std::int32_t next) {
        return TraceEvent { ns, cpu, prev, next, -1, 1, TraceEventKind::Switch };
    };
    const std::uint64_t s = 1'000'000'000;
    // An interval in two parts: 501 leaves PU 1 to a task not watched (4242), which later
    // gives it back; 4242 wakes 500 (a waker stays itself).
    watch.addEvents({ sw(100 * s, 1, 501, 4242) }, { { 501, "worker-501" }, { 4242, "nginx" } }, false, 0);
    EXPECT_EQ(changed.count(), 0) << "the interval is not all in yet";
    watch.addEvents(
        { TraceEvent { 100 * s + 5, 0, 4242, 500, 0, 0, TraceEventKind::Waking }, sw(101 * s, 1, 4242, 501) }, {}, true,
        0);
    ASSERT_EQ(changed.count(), 1);
    const TraceWindow& t = watch.timeline();
    ASSERT_EQ(t.events.size(), 3U);
    EXPECT_EQ(t.events[0].pid, 501);
    EXPECT_EQ(t.events[0].other, ProgramWatch::kOtherTasks);
    EXPECT_EQ(t.events[1].pid, 4242) << "the waker";
    EXPECT_EQ(t.events[2].pid, ProgramWatch::kOtherTasks);
    EXPECT_EQ(t.events[2].other, 501);
    EXPECT_EQ(t.comms.at(ProgramWatch::kOtherTasks), "other tasks or idle");
    EXPECT_EQ(t.comms.at(4242), "nginx");
    // The next interval kept only its latest event of 8: both lanes break just before it.
    watch.addEvents({ sw(101 * s + 400'000'000, 1, 501, 0) }, {}, true, 7);
    EXPECT_EQ(watch.timelineLeftOut(), 7U);
    EXPECT_EQ(t.recorded, 11U);
    ASSERT_EQ(t.events.size(), 6U);
    for (const std::size_t i : { 3U, 4U }) {
        EXPECT_EQ(t.events[i].pid, kUnrecordedPid);
        EXPECT_EQ(t.events[i].ns, 101 * s + 400'000'000);
    }
    const TimelineData lanes = TimelineData::build(t.events, t.comms);
    EXPECT_EQ(lanes.pus(), (std::vector<int> { 0, 1 }));
    const auto pu1 = lanes.visible(1, 0, 200 * s, 0);
    ASSERT_EQ(pu1.size(), 2U);
    EXPECT_EQ(pu1[1], (TimelineSlice { 101 * s, 101 * s + 400'000'000, kUnrecordedPid, false }))
        << "501 ran from 101 s, but what followed was left out: not drawn as 501's";
    // Just under 11 s after the first: those more than 10 s older than the newest go.
    watch.addEvents({ sw(111 * s - 1, 0, 500, 0) }, {}, true, 0);
    ASSERT_EQ(t.events.size(), 5U);
    EXPECT_EQ(t.events.front().ns, 101 * s);
    // Names of tasks whose events are gone are dropped once there are too many of them.
    std::map<int, std::string> many;
    for (int pid = 10'000; pid < 10'000 + static_cast<int>(ProgramWatch::kTimelineNames); ++pid)
        many.emplace(pid, "short-lived");
    watch.addEvents({ TraceEvent { 111 * s, 0, 10'000, 500, 0, 0, TraceEventKind::Waking } }, many, true, 0);
    EXPECT_LT(t.comms.size(), 10U);
    EXPECT_EQ(t.comms.at(10'000), "short-lived") << "a waker whose event is kept keeps its name";
    EXPECT_EQ(t.comms.count(10'001), 0U);
    EXPECT_EQ(t.comms.at(ProgramWatch::kOtherTasks), "other tasks or idle");
    EXPECT_EQ(t.comms.at(501), "worker-501") << "501's runs from 101 s are still shown";
    EXPECT_EQ(t.comms.count(4242), 0U) << "its waking of 500 at 100 s is gone";
    // A new watch starts an empty timeline.
    watch.begin(600);
    EXPECT_TRUE(watch.timeline().events.empty());
    EXPECT_EQ(watch.timelineLeftOut(), 0U);
}
