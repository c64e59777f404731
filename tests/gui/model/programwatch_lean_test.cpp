// SPDX-License-Identifier: MIT
// The Programs dock's document fed by the lean watch stream (watch_delta, decoded as the app's
// WorkerClient does) holds what it held when fed the full stream (watch_sample): the table,
// each thread's history, the process's, the wake-up epochs with their bins and peers.
#include "programwatch.h"
#include "threadtablemodel.h"

#include "ctxscope/events.h"
#include "ctxscope/watch_delta.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

// Everything the dock shows of a watch, as text: two documents that show the same give the same.
std::string stateOf(const ProgramWatch& watch, const std::set<long>& everSeen)
{
    std::ostringstream out;
    out << "samples " << watch.samples() << " last " << watch.lastSeconds() << " traced " << watch.traced()
        << " system " << watch.systemSwitchesPerS().value_or(-1) << '\n';
    const ThreadTableModel& table = *watch.threads();
    for (int row = 0; row < table.rowCount(); ++row) {
        for (int column = 0; column < table.columnCount(); ++column)
            out << table.data(table.index(row, column)).toString().toStdString() << '|'
                << table.data(table.index(row, column), ThreadTableModel::SortRole).toString().toStdString() << ' ';
        out << '\n';
    }
    const auto points = [&](const std::deque<ThreadPoint>& history) {
        for (const ThreadPoint& p : history)
            out << p.seconds << ':' << p.switchesPerS << ':' << p.runqueueWaitPerS.value_or(-1) << ' ';
        out << '\n';
    };
    points(watch.processHistory());
    for (const long tid : everSeen) {
        out << "thread " << tid << '\n';
        if (const auto* history = watch.history(tid))
            points(*history);
        if (const auto* epochs = watch.wakeups(tid))
            for (const WakeupEpoch& e : *epochs) {
                out << "epoch " << e.fromSeconds << ' ' << e.why.toStdString() << " count " << e.count << " bins";
                for (const std::uint64_t n : e.log2Hist)
                    out << ' ' << n;
                for (const auto& [who, n] : e.wakers)
                    out << " w:" << who << '=' << n;
                for (const auto& [who, n] : e.preemptors)
                    out << " p:" << who << '=' << n;
                out << '\n';
            }
    }
    for (const auto& [tid, cpus] : watch.restorePlan())
        out << "restore " << tid << ' ' << cpus.size() << '\n';
    return out.str();
}

template <typename T> T parsedAs(const std::string& line)
{
    auto p = protocol::parseEvent(line);
    if (const auto* error = std::get_if<protocol::EventError>(&p)) {
        ADD_FAILURE() << error->message << " in " << line;
        return T {};
    }
    return std::get<T>(std::get<protocol::Event>(std::move(p)));
}

// The two documents side by side: one reads the full stream, the other the lean one.
struct TwoDocuments {
    ProgramWatch full;
    ProgramWatch lean;
    protocol::WatchDeltaDecoder decoder;
    std::set<long> seen;

    TwoDocuments()
    {
        full.begin(100);
        lean.begin(100);
    }
    void addFullLine(const std::string& line)
    {
        const WatchSample s = parsedAs<protocol::WatchSampleEvent>(line).sample;
        for (const ThreadRates& t : s.threads)
            seen.insert(t.tid);
        full.addSample(s);
    }
    void addLeanLine(const std::string& line)
    {
        lean.addSample(decoder.apply(parsedAs<protocol::WatchDeltaEvent>(line)));
    }
    void pin(double seconds, long tid)
    {
        const std::vector<PinChange> change { { tid, "t", { 0, 1 }, { 1 } } };
        full.addPin(seconds, change);
        lean.addPin(seconds, change);
    }
    bool same() const { return stateOf(full, seen) == stateOf(lean, seen); }
    // The threads still running only: one that ended out of focus takes what was held back for
    // it along (the page shows the wake-ups of the table's threads, never of an ended one).
    bool sameForRunning() const
    {
        std::set<long> running;
        for (const ThreadRates& t : full.threads()->threads())
            running.insert(t.tid);
        return stateOf(full, running) == stateOf(lean, running);
    }
};

ThreadRates wokenThread(long tid, double voluntary, std::vector<std::uint64_t> bins, std::vector<SchedPeer> wakers)
{
    ThreadRates t;
    t.tid = tid;
    t.name = "w" + std::to_string(tid);
    t.state = 'S';
    t.cpu = static_cast<int>(tid % 2);
    t.affinity = { 0, 1 };
    t.voluntaryPerS = voluntary;
    t.runqueueWaitPerS = voluntary / 1e4;
    ThreadSched s;
    for (const std::uint64_t n : bins)
        s.wake.count += n;
    s.switchIns = s.wake.count;
    s.wake.meanNs = 2000;
    s.wake.log2Hist = std::move(bins);
    s.wakers = std::move(wakers);
    s.preemptors = { { 9, "kworker", 1 } };
    t.sched = std::move(s);
    return t;
}

WatchSample sampleAt(double seconds, std::vector<ThreadRates> threads)
{
    WatchSample s;
    s.pid = 100;
    s.name = "server";
    s.seconds = seconds;
    s.intervalS = 0.5;
    s.threads = std::move(threads);
    s.systemSwitchesPerS = 1000 * seconds;
    s.backend = SchedBackend::Ftrace;
    return s;
}

} // namespace

// Hand-written lines, as a worker of protocol 8 sends them: a new thread whole, an unchanged
// one left out, one out of focus without its bins, its held-back bins when it is in focus
// again, and a thread gone.
TEST(ProgramWatchLean, AHandWrittenLeanStreamShowsWhatTheFullStreamShows)
{
    TwoDocuments docs;
    const std::string head = R"("type":"watch_sample","id":6,"pid":100,"name":"server","kernel":false,)"
                             R"("interval_s":0.5,"mono_ns":0,"backend":"ftrace","appeared":[],"ended":[],)";
    const auto systemPart
        = [](int n) { return R"("system":{"context_switches_per_s":)" + std::to_string(n) + R"(,"cpus":[]})"; };
    const auto threadJson = [](int tid, double rate, const std::string& hist, const std::string& wakers) {
        return R"({"tid":)" + std::to_string(tid) + R"(,"name":"w","state":"S","cpu":0,"affinity":"0-1",)"
            + R"("voluntary_per_s":)" + std::to_string(rate)
            + R"(,"involuntary_per_s":0,"cpu_share":0.1,"runqueue_wait_per_s":0.01,"migrations_per_s":0,)"
            + R"("migrations_lower_bound":false,"sched":{"switch_ins":4,"unrecorded_switch_ins":0,"lost_events":0,)"
            + R"("wake_latency":{"count":4,"mean_ns":3000,"p50_ns":2048,"p99_ns":4096,"max_ns":5000,"from_bins":false)"
            + hist + "}" + wakers + "}}";
    };
    const std::string fullHist = R"(,"log2_hist":[0,0,0,0,0,0,0,0,0,0,0,3,1])";
    const std::string leanHist = R"(,"log2_size":13,"log2_grew":[[11,3],[12,1]])";
    const std::string fullPeers = R"(,"wakers":[{"tid":7,"name":"pong","count":4}],"preemptors":[],"migrations":[])";
    const std::string leanPeers = R"(,"wakers":[{"tid":7,"name":"pong","count":4}])";
    // 1: threads 1 and 2, new, both in focus.
    docs.addFullLine("{" + head + R"("seconds":0.5,"threads":[)" + threadJson(1, 8, fullHist, fullPeers) + ","
        + threadJson(2, 8, fullHist, fullPeers) + "]," + systemPart(1) + "}");
    std::string lean = "{" + head + R"("seconds":0.5,"gone":[],"threads":[)" + threadJson(1, 8, leanHist, leanPeers)
        + "," + threadJson(2, 8, leanHist, leanPeers) + "]," + systemPart(1) + "}";
    docs.addLeanLine(lean.replace(lean.find("watch_sample"), 12, "watch_delta"));
    ASSERT_TRUE(docs.same()) << stateOf(docs.lean, docs.seen);
    // 2: thread 1 the same again (left out); thread 2 changed but out of focus (counts only).
    docs.addFullLine("{" + head + R"("seconds":1.0,"threads":[)" + threadJson(1, 8, fullHist, fullPeers) + ","
        + threadJson(2, 9, fullHist, fullPeers) + "]," + systemPart(2) + "}");
    lean
        = "{" + head + R"("seconds":1.0,"gone":[],"threads":[)" + threadJson(2, 9, "", "") + "]," + systemPart(2) + "}";
    docs.addLeanLine(lean.replace(lean.find("watch_sample"), 12, "watch_delta"));
    EXPECT_FALSE(docs.same()) << "thread 2's bins are held back: the test would not see a difference";
    // 3: thread 2 in focus again: its bins of this interval and the held-back ones, summed;
    // thread 1 gone.
    docs.addFullLine("{" + head + R"("seconds":1.5,"threads":[)" + threadJson(2, 9, fullHist, fullPeers) + "],"
        + systemPart(3) + "}");
    const std::string summed = R"(,"log2_size":13,"log2_grew":[[11,6],[12,2]])";
    const std::string summedPeers = R"(,"wakers":[{"tid":7,"name":"pong","count":8}])";
    lean = "{" + head + R"("seconds":1.5,"gone":[1],"threads":[)" + threadJson(2, 9, summed, summedPeers) + "],"
        + systemPart(3) + "}";
    docs.addLeanLine(lean.replace(lean.find("watch_sample"), 12, "watch_delta"));
    EXPECT_TRUE(docs.same()) << "full:\n"
                             << stateOf(docs.full, docs.seen) << "lean:\n"
                             << stateOf(docs.lean, docs.seen);
}

// The engine's encoder, threads in and out of focus at random, a re-pin of a thread in focus
// (the page keeps re-pinned threads in focus): with every thread in focus the documents are the
// same after every sample; with a changing focus, once a sample brings every thread in focus
// (for the threads still running).
TEST(ProgramWatchLean, TheEncodersStreamShowsWhatTheFullStreamShows)
{
    for (const bool allInFocus : { true, false }) {
        TwoDocuments docs;
        protocol::WatchDeltaEncoder encoder;
        std::mt19937 random(allInFocus ? 1 : 2);
        std::vector<long> alive { 1, 2, 3, 4, 5, 6, 7, 8 };
        std::map<long, ThreadRates> last;
        long next = 9;
        const long pinned = 3;
        for (int i = 1; i <= 40; ++i) {
            const double seconds = 0.5 * i;
            if (i % 7 == 0)
                alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(random() % alive.size()));
            if (i % 5 == 0)
                alive.push_back(next++);
            std::vector<ThreadRates> threads;
            protocol::WatchFocus focus;
            for (const long tid : alive) {
                if (!last.contains(tid) || random() % 3 == 0) {
                    std::vector<std::uint64_t> bins(10 + random() % 5, 0);
                    bins[random() % bins.size()] = 1 + random() % 5;
                    last[tid] = wokenThread(tid, static_cast<double>(random() % 50), std::move(bins),
                        { { 50 + static_cast<long>(random() % 3), "waker", 1 + random() % 4 } });
                }
                threads.push_back(last[tid]);
                if (allInFocus || random() % 3 == 0 || (tid == pinned && i >= 9) || i == 40)
                    focus.tids.insert(tid);
            }
            const WatchSample s = sampleAt(seconds, threads);
            docs.addFullLine(protocol::eventLine(protocol::WatchSampleEvent { 6, s }));
            docs.addLeanLine(protocol::eventLine(encoder.encode(6, s, focus)));
            if (i == 12 && std::find(alive.begin(), alive.end(), pinned) != alive.end())
                docs.pin(seconds + 0.1, pinned);
            if (allInFocus) {
                ASSERT_TRUE(docs.same()) << "sample " << i;
            }
        }
        EXPECT_TRUE(allInFocus ? docs.same() : docs.sameForRunning())
            << (allInFocus ? "all in focus" : "a changing focus") << "\nfull:\n"
            << stateOf(docs.full, docs.seen) << "lean:\n"
            << stateOf(docs.lean, docs.seen);
    }
}
