// SPDX-License-Identifier: MIT
// The lean watch stream (watch_delta, watch_focus): what the encoder leaves out, the decoder
// puts back, so a controller reading it holds what the full stream would have given it.
#include "ctxscope/events.h"
#include "ctxscope/protocol.h"
#include "ctxscope/topology.h"
#include "ctxscope/watch_delta.h"
#include "ctxscope/worker.h"

#include "protocol/parse.h"
#include "protocol/rows_text.h"
#include "worker_transcript.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ctxscope;
using namespace ctxscope::protocol;
using ctxscope::test::Transcript;
using nlohmann::json;

namespace {

template <typename T> T parsedAs(const std::string& line)
{
    auto p = parseEvent(line);
    if (const auto* error = std::get_if<EventError>(&p)) {
        ADD_FAILURE() << error->message << " in " << line;
        return T {};
    }
    return std::get<T>(std::get<Event>(std::move(p)));
}

// A traced watch of a program whose threads come and go: each sample a few threads change,
// most keep their figures (idle threads), one starts and one ends now and then.
class SyntheticWatch {
public:
    explicit SyntheticWatch(unsigned seed)
        : m_random(seed)
    {
        for (long tid = 100; tid < 130; ++tid)
            m_threads[tid] = thread(tid);
    }

    WatchSample next()
    {
        ++m_samples;
        std::vector<long> ended;
        for (auto& [tid, t] : m_threads) {
            const auto roll = m_random() % 10;
            if (roll < 3)
                t = busy(t); // changed
            else if (roll == 3 && m_threads.size() > 20 && m_samples > 1) // seen once before it ends
                ended.push_back(tid);
            // else unchanged: the same figures as in the previous interval
        }
        WatchSample s;
        s.pid = 100;
        s.name = "synthetic";
        s.seconds = 0.5 * m_samples;
        s.intervalS = 0.5;
        s.monoNs = std::uint64_t { 1'000'000'000 } * static_cast<std::uint64_t>(m_samples);
        s.systemSwitchesPerS = 1000.0 + m_samples;
        s.cpus = { { 0, 0.25 }, { 1, 0.5 } };
        s.backend = SchedBackend::Ftrace;
        for (const long tid : ended) {
            s.ended.push_back({ tid, m_threads.at(tid).name });
            m_threads.erase(tid);
        }
        if (m_random() % 3 == 0) {
            m_threads[m_nextTid] = busy(thread(m_nextTid));
            s.appeared.push_back(m_nextTid++);
        }
        for (const auto& [tid, t] : m_threads)
            s.threads.push_back(t);
        return s;
    }

private:
    static ThreadRates thread(long tid)
    {
        ThreadRates t;
        t.tid = tid;
        t.name = "worker " + std::to_string(tid);
        t.state = 'S';
        t.cpu = 0;
        t.affinity = { 0, 1 };
        t.runqueueWaitPerS = 0.0;
        t.sched = ThreadSched {};
        t.sched->wake.log2Hist = {};
        return t;
    }

    ThreadRates busy(ThreadRates t)
    {
        const auto n = [&](unsigned most) { return static_cast<std::uint64_t>(m_random() % most); };
        t.voluntaryPerS = static_cast<double>(n(1000)) / 4.0; // figures of six digits or fewer, which
        t.involuntaryPerS = static_cast<double>(n(10));
        t.cpuShare = static_cast<double>(n(100)) / 800.0; // the lean stream keeps as they are
        t.runqueueWaitPerS = static_cast<double>(n(100)) / 1e4;
        t.cpu = static_cast<int>(n(2));
        t.state = n(2) == 0 ? 'R' : 'S';
        ThreadSched& s = *t.sched;
        s.switchIns = n(200);
        s.unrecordedSwitchIns = n(3);
        s.wake.log2Hist.assign(10 + n(8), 0);
        s.wake.count = 0;
        for (std::size_t i = 0; i < s.wake.log2Hist.size(); i += 1 + n(3)) {
            s.wake.log2Hist[i] = n(20);
            s.wake.count += s.wake.log2Hist[i];
        }
        s.wake.meanNs = 1000.0 + static_cast<double>(n(5000)) / 4.0;
        s.wake.p50Ns = 1024;
        s.wake.p99Ns = 65536;
        s.wake.maxNs = 70000.0 + static_cast<double>(n(100));
        s.wakers = { { 100 + static_cast<long>(n(5)), "waker", 1 + n(9) }, { 0, "an interrupt", 1 + n(4) } };
        if (s.wakers[0].tid == 100)
            s.wakers.pop_back();
        s.preemptors = { { 7, "kworker/0:1", n(3) } };
        s.migrations = { { 0, 1, "shared-l3", n(4) } };
        s.lostEvents = n(2);
        s.fromEnqueue = { true, n(20), 1500.0 + static_cast<double>(n(100)), 1024, 4096, { n(5), n(5), n(3) } };
        s.waitsNs = { 1.0, 2.0 }; // never on the wire
        return t;
    }

    std::mt19937 m_random;
    std::map<long, ThreadRates> m_threads;
    long m_nextTid = 1000;
    int m_samples = 0;
};

// A sample as the full stream gives it to a reader: written as watch_sample and read back.
WatchSample viaFullStream(const WatchSample& s)
{
    return parsedAs<WatchSampleEvent>(eventLine(WatchSampleEvent { 6, s })).sample;
}

// A sample as the lean stream gives it: encoded, written as watch_delta, read back, decoded.
struct LeanStream {
    WatchDeltaEncoder encoder;
    WatchDeltaDecoder decoder;
    std::string lastLine;
    WatchDeltaEvent lastDelta;

    WatchSample pass(const WatchSample& s, const WatchFocus& focus)
    {
        lastLine = eventLine(encoder.encode(6, s, focus));
        lastDelta = parsedAs<WatchDeltaEvent>(lastLine);
        return decoder.apply(lastDelta);
    }
};

std::string fullLine(const WatchSample& s) { return eventLine(WatchSampleEvent { 6, s }); }

// What the app's model sums per thread from each sample (ProgramWatch::addWakeups): the bins,
// the wake-ups, each peer's count.
struct Sums {
    std::map<long, std::vector<std::uint64_t>> bins;
    std::map<long, std::uint64_t> count;
    std::map<long, std::map<std::string, std::uint64_t>> peers;

    void add(const WatchSample& s)
    {
        for (const ThreadRates& t : s.threads) {
            if (!t.sched)
                continue;
            auto& b = bins[t.tid];
            const auto& h = t.sched->wake.log2Hist;
            if (b.size() < h.size())
                b.resize(h.size(), 0);
            for (std::size_t i = 0; i < h.size(); ++i)
                b[i] += h[i];
            count[t.tid] += t.sched->wake.count;
            for (const SchedPeer& p : t.sched->wakers)
                peers[t.tid]["w " + p.name + std::to_string(p.tid)] += p.count;
            for (const SchedPeer& p : t.sched->preemptors)
                peers[t.tid]["p " + p.name + std::to_string(p.tid)] += p.count;
        }
    }
};

std::set<long> tidsOf(const WatchSample& s)
{
    std::set<long> tids;
    for (const ThreadRates& t : s.threads)
        tids.insert(t.tid);
    return tids;
}

} // namespace

// Every thread in focus: each decoded sample is, byte for byte, the full stream's.
TEST(WatchDelta, RoundTripGivesTheFullStreamSampleBySample)
{
    SyntheticWatch watch(1);
    LeanStream lean;
    std::size_t fullBytes = 0;
    std::size_t leanBytes = 0;
    std::size_t omitted = 0;
    for (int i = 0; i < 40; ++i) {
        const WatchSample s = watch.next();
        const WatchSample decoded = lean.pass(s, WatchFocus { tidsOf(s), false });
        ASSERT_EQ(fullLine(decoded), fullLine(viaFullStream(s))) << "sample " << i;
        fullBytes += fullLine(s).size();
        leanBytes += lean.lastLine.size();
        omitted += s.threads.size() - lean.lastDelta.sample.threads.size();
    }
    EXPECT_GT(omitted, 200U) << "unchanged threads are left out";
    EXPECT_LT(leanBytes, fullBytes / 2);
}

// A repeat of the same figures sends no thread at all; the decoder repeats them.
// The worker keeps one event from sample to sample (its threads assigned into): each line is
// the line a fresh event gives, as threads come and go, change focus and turn from objects to
// rows and back, and the counts of objects and rows grow and shrink.
TEST(WatchDelta, AnEventKeptFromSampleToSampleGivesTheLinesOfFreshOnes)
{
    SyntheticWatch watch(23);
    WatchDeltaEncoder fresh;
    WatchDeltaEncoder kept;
    WatchDeltaEvent event;
    std::set<std::size_t> objects;
    std::set<std::size_t> rows;
    for (std::uint64_t id = 1; id <= 40; ++id) {
        const WatchSample s = watch.next();
        std::set<long> tids;
        for (const ThreadRates& t : s.threads)
            if (t.tid % 3 == static_cast<long>(id % 3)) // the focus moves every sample
                tids.insert(t.tid);
        const WatchFocus focus { tids, id % 7 == 0 };
        const std::string line = eventLine(fresh.encode(id, s, focus));
        kept.encode(id, s, focus, event);
        ASSERT_EQ(eventLine(event), line) << "sample " << id;
        objects.insert(event.sample.threads.size());
        rows.insert(event.brief.size());
    }
    EXPECT_GT(objects.size(), 3U); // the kept event's threads grew and shrank
    EXPECT_GT(rows.size(), 3U);
}

TEST(WatchDelta, UnchangedThreadsAreLeftOut)
{
    SyntheticWatch watch(2);
    LeanStream lean;
    const WatchSample s = watch.next();
    const WatchFocus all { tidsOf(s), false };
    lean.pass(s, all);
    EXPECT_EQ(lean.lastDelta.sample.threads.size(), s.threads.size()); // new threads come whole
    const WatchSample again = lean.pass(s, all);
    EXPECT_TRUE(lean.lastDelta.sample.threads.empty());
    EXPECT_TRUE(json::parse(lean.lastLine).at("threads").empty());
    EXPECT_EQ(fullLine(again), fullLine(viaFullStream(s)));
    // `everything` sends them all once, whole, and says so.
    lean.pass(s, WatchFocus { {}, true });
    EXPECT_EQ(lean.lastDelta.sample.threads.size(), s.threads.size());
    EXPECT_TRUE(lean.lastDelta.whole);
    lean.pass(s, all);
    EXPECT_TRUE(lean.lastDelta.sample.threads.empty());
}

// Out of focus, a thread carries its counts and no wakers, preemptors, migrations or bins.
TEST(WatchDelta, OnlyThreadsInFocusCarryPeersAndBins)
{
    SyntheticWatch watch(3);
    LeanStream lean;
    const WatchSample s = watch.next();
    const auto busy = std::find_if(s.threads.begin(), s.threads.end(),
        [](const ThreadRates& t) { return !t.sched->wakers.empty() && t.sched->wake.count > 0; });
    ASSERT_NE(busy, s.threads.end());
    const long focused = busy->tid;
    lean.pass(s, WatchFocus { { focused }, false });
    int out = 0;
    const json line = json::parse(lean.lastLine);
    for (const json& t : line.at("threads")) {
        const json& sched = t.at("sched");
        const bool inFocus = t.at("tid") == focused;
        EXPECT_TRUE(sched.contains("switch_ins"));
        EXPECT_TRUE(sched.at("wake_latency").contains("count"));
        EXPECT_TRUE(sched.at("wake_latency").contains("mean_ns"));
        EXPECT_FALSE(sched.at("wake_latency").contains("log2_hist")) << "the lean form has no whole histogram";
        if (inFocus) {
            EXPECT_TRUE(sched.contains("wakers"));
            EXPECT_TRUE(sched.contains("wait_from_enqueue"));
            EXPECT_TRUE(sched.at("wake_latency").contains("log2_grew"));
            continue;
        }
        ++out;
        for (const char* key : { "wakers", "preemptors", "migrations" })
            EXPECT_FALSE(sched.contains(key)) << key << " of thread " << t.at("tid");
        EXPECT_FALSE(sched.at("wake_latency").contains("log2_grew"));
        EXPECT_FALSE(sched.at("wake_latency").contains("log2_size"));
        EXPECT_FALSE(sched.contains("wait_from_enqueue")) << "thread " << t.at("tid");
    }
    EXPECT_EQ(out, static_cast<int>(s.threads.size()) - 1);
    // Decoded, the counts are the full stream's for every thread.
    const WatchSample full = viaFullStream(s);
    const WatchSample decoded = lean.decoder.apply(lean.lastDelta);
    ASSERT_EQ(decoded.threads.size(), full.threads.size());
    for (std::size_t i = 0; i < full.threads.size(); ++i) {
        EXPECT_EQ(decoded.threads[i].voluntaryPerS, full.threads[i].voluntaryPerS);
        EXPECT_EQ(decoded.threads[i].sched->switchIns, full.threads[i].sched->switchIns);
        EXPECT_EQ(decoded.threads[i].sched->wake.count, full.threads[i].sched->wake.count);
    }
}

// What was held back for a thread out of focus comes, summed, with its first sample in focus:
// the model's sums then equal the full stream's, whatever the focus did in between.
TEST(WatchDelta, HeldBackPeersAndBinsComeWhenAThreadIsFocused)
{
    SyntheticWatch watch(4);
    LeanStream lean;
    Sums full;
    Sums decoded;
    std::mt19937 random(9);
    for (int i = 0; i < 30; ++i) {
        const WatchSample s = watch.next();
        WatchFocus focus;
        for (const ThreadRates& t : s.threads)
            if (random() % 4 == 0)
                focus.tids.insert(t.tid);
        full.add(viaFullStream(s));
        decoded.add(lean.pass(s, focus));
    }
    // A last sample with every thread in focus brings what is still held back.
    const WatchSample last = watch.next();
    full.add(viaFullStream(last));
    decoded.add(lean.pass(last, WatchFocus { tidsOf(last), false }));
    for (const long tid : tidsOf(last)) {
        EXPECT_EQ(decoded.count[tid], full.count[tid]) << tid;
        EXPECT_EQ(decoded.peers[tid], full.peers[tid]) << tid;
        auto a = decoded.bins[tid];
        auto b = full.bins[tid];
        EXPECT_EQ(a, b) << tid;
    }
}

// A thread that ended is reported gone once, and the decoder forgets it.
TEST(WatchDelta, GoneThreadsAreReportedOnce)
{
    SyntheticWatch watch(5);
    LeanStream lean;
    std::map<long, int> goneTimes;
    std::set<long> ended;
    for (int i = 0; i < 40; ++i) {
        const WatchSample s = watch.next();
        const WatchSample decoded = lean.pass(s, WatchFocus { tidsOf(s), false });
        for (const EndedThread& e : s.ended)
            ended.insert(e.tid);
        for (const long tid : lean.lastDelta.gone) {
            ++goneTimes[tid];
            EXPECT_TRUE(ended.contains(tid)) << tid << " was reported gone but did not end";
        }
        EXPECT_EQ(tidsOf(decoded), tidsOf(s));
    }
    ASSERT_FALSE(ended.empty());
    for (const long tid : ended)
        EXPECT_EQ(goneTimes[tid], 1) << tid;
}

// The bins on the wire only grow: a negative or out-of-range one is refused, never applied.
TEST(WatchDelta, BinsOnlyGrow)
{
    SyntheticWatch watch(6);
    LeanStream lean;
    for (int i = 0; i < 20; ++i) {
        const WatchSample s = watch.next();
        lean.pass(s, WatchFocus { tidsOf(s), false });
        const json parsed = json::parse(lean.lastLine);
        for (const json& t : parsed.at("threads"))
            for (const json& pair : t.at("sched").at("wake_latency").value("log2_grew", json::array())) {
                EXPECT_TRUE(pair.at(1).is_number_unsigned()) << pair;
                EXPECT_GT(pair.at(1).get<std::uint64_t>(), 0U) << "a bin that did not grow is left out";
            }
    }
    json line = json::parse(eventLine(lean.encoder.encode(6, watch.next(), WatchFocus { {}, true })));
    json& wake = line.at("threads").at(0).at("sched").at("wake_latency");
    wake["log2_size"] = 4;
    for (const json& bad : { json::array({ json::array({ 1, -3 }) }), json::array({ json::array({ 4, 1 }) }),
             json::array({ json::array({ 1 }) }) }) {
        wake["log2_grew"] = bad;
        auto p = parseEvent(line.dump());
        ASSERT_TRUE(std::holds_alternative<EventError>(p)) << bad;
        EXPECT_NE(std::get<EventError>(p).message.find("log2_grew"), std::string::npos);
    }
}

TEST(WatchDelta, FocusCommandPrintsAndParses)
{
    auto focus = parseCommand(commandLine(WatchFocusCommand { 6, { 12, 10 }, false }));
    ASSERT_TRUE(focus.ok()) << focus.error().message;
    EXPECT_EQ(std::get<WatchFocusCommand>(*focus).tids, (std::vector<long> { 12, 10 }));
    EXPECT_FALSE(std::get<WatchFocusCommand>(*focus).everything);
    auto all = parseCommand(R"({"type":"watch_focus","id":6,"all":true})");
    ASSERT_TRUE(all.ok()) << all.error().message;
    EXPECT_TRUE(std::get<WatchFocusCommand>(*all).everything);
    auto lean = parseCommand(commandLine(WatchCommand { 6, 1234, 0.5, 0, true, 0, {}, true }));
    ASSERT_TRUE(lean.ok());
    EXPECT_TRUE(std::get<WatchCommand>(*lean).lean);
    EXPECT_FALSE(std::get<WatchCommand>(*parseCommand(R"({"type":"watch","id":1,"pid":5})")).lean);
    auto bad = parseCommand(R"({"type":"watch_focus","id":6,"tids":[-1]})");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'tids' should hold thread ids"), std::string::npos);
}

// The worker: a lean watch streams watch_delta lines and takes its focus while it runs; a
// focus for a watch that is not lean is refused.
TEST(WatchDelta, WorkerStreamsALeanWatchAndTakesItsFocus)
{
    auto topo = Topology::loadLive();
    ASSERT_TRUE(topo.ok());
    Transcript out;
    WorkerSession session(*topo, [&](const std::string& l) { out.add(l); });
    const long self = static_cast<long>(::getpid());
    WatchCommand watch { 1, self, 0.05, 0 };
    watch.lean = true;
    EXPECT_TRUE(session.handleLine(commandLine(watch)));
    auto first = out.waitFor("watch_delta", std::chrono::seconds(10));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->id, 1U);
    EXPECT_FALSE(first->body.at("threads").empty()) << "the first sample has every thread, new";
    EXPECT_TRUE(session.handleLine(commandLine(WatchFocusCommand { 1, { static_cast<long>(::gettid()) }, true })));
    bool whole = false;
    for (int i = 0; i < 40 && !whole; ++i) {
        auto next = out.waitFor("watch_delta", std::chrono::seconds(5));
        ASSERT_TRUE(next);
        whole = next->body.value("whole", false);
    }
    EXPECT_TRUE(whole) << "the one-shot request for everything was not honoured";
    EXPECT_TRUE(session.handleLine(commandLine(CancelCommand { 1 })));
    ASSERT_TRUE(out.waitFor("watch_summary", std::chrono::seconds(5)));

    EXPECT_TRUE(session.handleLine(commandLine(WatchCommand { 2, self, 0.05, 0 })));
    ASSERT_TRUE(out.waitFor("watch_sample", std::chrono::seconds(10)));
    EXPECT_TRUE(session.handleLine(commandLine(WatchFocusCommand { 2, { self }, false })));
    auto refused = out.waitFor("error", std::chrono::seconds(5));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->id, 2U);
    EXPECT_NE(refused->body.at("message").get<std::string>().find("not a lean watch"), std::string::npos);
    session.finish(true);
}

// appendWatchSampleLine writes a watch's lines without the JSON tree. Its bytes must be the
// tree's dump: the same keys in the same order, the same numbers, the same escapes.
namespace {

// A sample as a JSON tree, field by field: how its line was made before the direct writer.
json sampleTree(const WatchSample& s)
{
    const auto optionalNumber = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    json threads = json::array();
    for (const auto& t : s.threads) {
        threads.push_back({ { "tid", t.tid }, { "name", t.name }, { "state", std::string(1, t.state) },
            { "cpu", t.cpu ? json(*t.cpu) : json(nullptr) }, { "affinity", formatCpuList(t.affinity) },
            { "voluntary_per_s", t.voluntaryPerS }, { "involuntary_per_s", t.involuntaryPerS },
            { "cpu_share", t.cpuShare }, { "runqueue_wait_per_s", optionalNumber(t.runqueueWaitPerS) },
            { "migrations_per_s", t.migrationsPerS }, { "migrations_lower_bound", t.migrationsLowerBound } });
        if (t.sched)
            threads.back()["sched"] = threadSchedToJson(*t.sched);
    }
    json ended = json::array();
    for (const auto& e : s.ended)
        ended.push_back({ { "tid", e.tid }, { "name", e.name } });
    json cpus = json::array();
    for (const auto& c : s.cpus)
        cpus.push_back({ { "cpu", c.cpu }, { "busy_share", c.busyShare } });
    return { { "type", "watch_sample" }, { "pid", s.pid }, { "name", s.name }, { "kernel", s.kernel },
        { "seconds", s.seconds }, { "interval_s", s.intervalS }, { "mono_ns", s.monoNs }, { "threads", threads },
        { "appeared", s.appeared }, { "ended", ended }, { "backend", toString(s.backend) },
        { "system", { { "context_switches_per_s", optionalNumber(s.systemSwitchesPerS) }, { "cpus", cpus } } } };
}

json sampleTreeWithFallback(const WatchSample& s)
{
    json j = sampleTree(s);
    if (!s.backendFallback.empty())
        j["backend_fallback"] = s.backendFallback;
    return j;
}

// The tree a watch_sample or watch_delta line was built from before the direct writer: the
// oracle the writer is held to.
json treeLine(const WatchSample& s, const WatchLineForm& form)
{
    json j = sampleTreeWithFallback(s);
    if (form.id)
        j["id"] = *form.id;
    if (!form.delta)
        return j;
    j["type"] = "watch_delta";
    j["gone"] = std::vector<long>(form.gone.begin(), form.gone.end());
    if (form.whole)
        j["whole"] = true;
    if (!form.rows.empty()) {
        json rows = json::array();
        for (const ThreadRates& t : form.rows) {
            json sched = nullptr;
            if (t.sched) {
                const ThreadSched& ts = *t.sched;
                const EnqueueWait& q = ts.fromEnqueue;
                sched = { ts.switchIns, ts.unrecordedSwitchIns, ts.lostEvents, ts.wake.count, ts.wake.meanNs,
                    ts.wake.p50Ns, ts.wake.p99Ns, ts.wake.maxNs, ts.wake.fromBins,
                    q.known ? json { q.count, q.meanNs, q.p50Ns, q.p99Ns, q.log2UsHist } : json(nullptr) };
            }
            rows.push_back({ t.tid, std::string(1, t.state), t.cpu ? json(*t.cpu) : json(nullptr), t.cpuShare,
                t.voluntaryPerS, t.involuntaryPerS, t.runqueueWaitPerS ? json(*t.runqueueWaitPerS) : json(nullptr),
                t.migrationsPerS, t.migrationsLowerBound, sched });
        }
        j["rows"] = std::move(rows);
    }
    for (json& thread : j["threads"]) {
        const auto sched = thread.find("sched");
        if (sched == thread.end())
            continue;
        json& wake = (*sched)["wake_latency"];
        json& hist = wake["log2_hist"];
        json grew = json::array();
        for (std::size_t i = 0; i < hist.size(); ++i)
            if (const auto n = hist[i].get<std::uint64_t>(); n != 0)
                grew.push_back({ i, n });
        if (!hist.empty())
            wake["log2_size"] = hist.size();
        if (!grew.empty())
            wake["log2_grew"] = std::move(grew);
        wake.erase("log2_hist");
        for (const char* list : { "wakers", "preemptors", "migrations" })
            if ((*sched)[list].empty())
                sched->erase(list);
    }
    return j;
}

std::string writtenLine(const WatchSample& s, const WatchLineForm& form = {})
{
    std::string line = "kept "; // appended to, never replaced
    appendWatchSampleLine(line, s, form);
    EXPECT_EQ(line.substr(0, 5), "kept ");
    return line.substr(5);
}

// Samples with what a line can hold at its edges: names to escape, numbers dump() writes as
// null or in exponent form, empty and absent fields, each backend, the BPF backend's wait from
// the enqueue.
std::vector<WatchSample> edgeSamples()
{
    std::vector<WatchSample> out;
    SyntheticWatch watch(7);
    for (int i = 0; i < 6; ++i)
        out.push_back(watch.next());
    WatchSample s = out.back();
    s.name = "a \"quoted\" \\ name\twith tab";
    s.kernel = true;
    s.backend = SchedBackend::Bpf;
    s.systemSwitchesPerS.reset();
    out.push_back(s);
    s.backend = SchedBackend::Ftrace; // as a default watch that could not load its programs
    s.backendFallback = "the kernel refused the \"BPF\" programs: Permission denied";
    s.seconds = 1e-7;
    s.intervalS = 123456789012345678.0;
    s.monoNs = std::numeric_limits<std::uint64_t>::max();
    ThreadRates& t = s.threads.front();
    t.name = "caf\xc3\xa9 \x7f ctl\x01";
    t.state = 'D';
    t.cpu.reset();
    t.affinity = { 0, 2, 3, 4, 9 };
    t.voluntaryPerS = std::numeric_limits<double>::quiet_NaN();
    t.involuntaryPerS = std::numeric_limits<double>::infinity();
    t.cpuShare = -0.0;
    t.runqueueWaitPerS.reset();
    t.migrationsPerS = 1.0 / 3.0;
    t.sched->fromEnqueue = EnqueueWait { true, 9, 812.25, 700, 4096, { 3, 0, 6 } };
    t.sched->wake.fromBins = true;
    t.sched->wake.log2Hist = { 0, 0, 0 };
    t.sched->wakers = { { 0, "", 3 } };
    t.sched->migrations.clear();
    s.threads[1].sched.reset();
    s.threads[2].sched->wake.log2Hist.clear();
    out.push_back(s);
    s.threads.clear();
    s.cpus.clear();
    s.ended.clear();
    s.appeared.clear();
    out.push_back(s);
    return out;
}

} // namespace

TEST(WatchLine, TheWrittenSampleIsTheTreesDumpByteForByte)
{
    for (const WatchSample& s : edgeSamples()) {
        EXPECT_EQ(writtenLine(s), treeLine(s, {}).dump());
        EXPECT_EQ(writtenLine(s, { .id = 42 }), treeLine(s, { .id = 42 }).dump());
    }
}

// Whole numbers take a shorter way than the float formatter's (zero, counts, bins' edges):
// on both sides of where dump() changes to an exponent, with signs, and next to them.
TEST(WatchLine, WholeNumbersAreWrittenAsDumpWritesThem)
{
    const std::vector<double> values = { 0.0, -0.0, 1.0, -1.0, 12000.0, 46080.0, 0.5, 1e14, 999999999999999.0,
        -999999999999999.0, 1e15, -1e15, 1e15 + 2, 4503599627370496.0, 9007199254740993.0, 1e16, 1e300, 123.000001,
        5e-324, std::nextafter(1.0, 2.0), std::nextafter(1e15, 0.0) };
    const WatchSample base = edgeSamples().front();
    for (const double v : values) {
        WatchSample s = base;
        s.seconds = v;
        ThreadRates& t = s.threads.front();
        ASSERT_TRUE(t.sched);
        t.cpuShare = v;
        t.voluntaryPerS = -v;
        t.sched->wake.meanNs = v;
        t.sched->wake.p50Ns = std::trunc(v);
        EXPECT_EQ(writtenLine(s), treeLine(s, {}).dump()) << v;
    }
}

TEST(WatchLine, TheWrittenDeltaIsTheLeanTreesDumpByteForByte)
{
    const std::vector<long> gone = { 3, 1000000 };
    for (const WatchSample& s : edgeSamples())
        for (const bool whole : { false, true }) {
            const WatchLineForm form { .id = 9, .delta = true, .gone = gone, .whole = whole, .rows = s.threads };
            EXPECT_EQ(writtenLine(s, form), treeLine(s, form).dump());
        }
    const WatchLineForm none { .id = 9, .delta = true };
    EXPECT_EQ(writtenLine(edgeSamples().front(), none), treeLine(edgeSamples().front(), none).dump());
}

TEST(WatchLine, TheStreamsWatchLinesAreTheWritersAndReadBack)
{
    SyntheticWatch watch(11);
    WatchDeltaEncoder encoder;
    for (std::uint64_t id = 1; id <= 5; ++id) {
        const WatchSample s = watch.next();
        EXPECT_EQ(eventLine(WatchSampleEvent { id, s }), treeLine(s, { .id = id }).dump());
        const WatchDeltaEvent delta = encoder.encode(id, s, WatchFocus { { 101, 102 }, id == 3 });
        const std::string line = eventLine(delta);
        EXPECT_EQ(line,
            treeLine(delta.sample,
                { .id = id, .delta = true, .gone = delta.gone, .whole = delta.whole, .rows = delta.brief })
                .dump());
        EXPECT_EQ(eventLine(parsedAs<WatchDeltaEvent>(line)), line);
    }
}

namespace {

// A summary as the JSON tree it was made as before the direct writer: the oracle.
json summaryTree(const WatchSummary& s)
{
    json threads = json::array();
    for (const auto& t : s.threads) {
        threads.push_back(
            { { "tid", t.tid }, { "name", t.name }, { "seconds", t.seconds }, { "voluntary_per_s", t.voluntaryPerS },
                { "involuntary_per_s", t.involuntaryPerS }, { "cpu_share", t.cpuShare },
                { "runqueue_wait_per_s", t.runqueueWaitPerS ? json(*t.runqueueWaitPerS) : json(nullptr) },
                { "migrations_per_s", t.migrationsPerS }, { "migrations_lower_bound", t.migrationsLowerBound },
                { "cpus_seen", formatCpuList(t.cpusSeen) }, { "affinity", formatCpuList(t.affinity) },
                { "ended", t.ended } });
        if (t.sched)
            threads.back()["sched"] = threadSchedToJson(*t.sched);
    }
    return { { "type", "watch_summary" }, { "pid", s.pid }, { "name", s.name }, { "seconds", s.seconds },
        { "samples", s.samples }, { "threads", threads }, { "backend", toString(s.backend) },
        { "ending", s.ending.empty() ? json(nullptr) : json(s.ending) } };
}

// The edge samples' threads as a summary's: each field at the edges the samples hold.
std::vector<WatchSummary> edgeSummaries()
{
    std::vector<WatchSummary> out;
    for (const WatchSample& s : edgeSamples()) {
        WatchSummary sum;
        sum.pid = s.pid;
        sum.name = s.name;
        sum.seconds = s.seconds;
        sum.samples = static_cast<int>(s.threads.size());
        sum.backend = s.backend;
        sum.ending = s.kernel ? "process 7 (\"x\") ended" : "";
        for (const ThreadRates& r : s.threads) {
            ThreadSummary t;
            t.tid = r.tid;
            t.name = r.name;
            t.seconds = s.intervalS;
            t.voluntaryPerS = r.voluntaryPerS;
            t.involuntaryPerS = r.involuntaryPerS;
            t.cpuShare = r.cpuShare;
            t.runqueueWaitPerS = r.runqueueWaitPerS;
            t.migrationsPerS = r.migrationsPerS;
            t.migrationsLowerBound = r.migrationsLowerBound;
            t.cpusSeen = r.affinity;
            t.affinity = r.affinity;
            t.ended = r.state == 'D';
            t.sched = r.sched;
            sum.threads.push_back(std::move(t));
        }
        out.push_back(std::move(sum));
    }
    return out;
}

} // namespace

TEST(WatchLine, TheWrittenSummaryIsTheTreesDumpByteForByte)
{
    const std::vector<WatchSummary> summaries = edgeSummaries();
    ASSERT_GE(summaries.size(), 3U);
    for (const WatchSummary& s : summaries) {
        std::string line = "kept ";
        appendWatchSummaryLine(line, s);
        EXPECT_EQ(line, "kept " + summaryTree(s).dump());
        json withId = summaryTree(s);
        withId["id"] = 42;
        EXPECT_EQ(eventLine(WatchSummaryEvent { 42, s }), withId.dump());
    }
}

TEST(WatchLine, ANameThatIsNotUtf8IsRefusedAsDumpRefusesIt)
{
    WatchSample s = edgeSamples().front();
    s.threads.front().name = "bad \xff byte";
    EXPECT_THROW(treeLine(s, {}).dump(), json::type_error);
    std::string line;
    EXPECT_THROW(appendWatchSampleLine(line, s), json::type_error);
}

TEST(WatchDelta, ChangedThreadsOutOfFocusTravelAsRowsAndComeBackNamed)
{
    SyntheticWatch watch(5);
    WatchDeltaEncoder encoder;
    WatchDeltaDecoder decoder;
    const WatchFocus focus { { 101 }, false };
    WatchSample first = watch.next();
    const WatchDeltaEvent opening = encoder.encode(1, first, focus);
    EXPECT_TRUE(opening.brief.empty()) << "a thread's first line names it";
    decoder.apply(parsedAs<WatchDeltaEvent>(eventLine(opening)));
    WatchSample s = watch.next();
    ASSERT_GT(s.threads.size(), 3U);
    ThreadRates& renamed = s.threads[2];
    ASSERT_NE(renamed.tid, 101);
    renamed.name = "renamed";
    renamed.voluntaryPerS += 1; // changed, so sent
    const WatchDeltaEvent delta = encoder.encode(2, s, focus);
    ASSERT_FALSE(delta.brief.empty());
    for (const ThreadRates& t : delta.brief) {
        EXPECT_NE(t.tid, 101) << "the thread in focus travels whole";
        EXPECT_NE(t.tid, renamed.tid) << "a renamed thread travels whole";
    }
    EXPECT_TRUE(std::any_of(delta.sample.threads.begin(), delta.sample.threads.end(),
        [&](const ThreadRates& t) { return t.tid == renamed.tid && t.name == "renamed"; }));
    // A row is a fraction of the object it stands for.
    const std::string line = eventLine(delta);
    WatchDeltaEvent objects = delta;
    objects.sample.threads.insert(objects.sample.threads.end(), delta.brief.begin(), delta.brief.end());
    objects.brief.clear();
    EXPECT_LT(line.size() * 10, eventLine(objects).size() * 8) << line;
    // Read back, every thread has its name and affinity, as the full stream would give them.
    const WatchSample held = decoder.apply(parsedAs<WatchDeltaEvent>(line));
    std::map<long, const ThreadRates*> byTid;
    for (const ThreadRates& t : held.threads)
        byTid[t.tid] = &t;
    for (const ThreadRates& t : s.threads) {
        ASSERT_TRUE(byTid.contains(t.tid)) << t.tid;
        EXPECT_EQ(byTid[t.tid]->name, t.name);
        EXPECT_EQ(byTid[t.tid]->affinity, t.affinity);
        EXPECT_EQ(byTid[t.tid]->voluntaryPerS, t.voluntaryPerS);
        EXPECT_EQ(byTid[t.tid]->sched->switchIns, t.sched->switchIns);
    }
}

// A lean line carries a thread's rates, shares and latencies with six significant digits: the
// precision the app shows, in about a quarter fewer bytes than the full stream's 17.
TEST(WatchDelta, FiguresTravelWithSixSignificantDigits)
{
    EXPECT_EQ(sixDigits(0.0), 0.0);
    EXPECT_EQ(sixDigits(2.000057269639859), 2.00006);
    EXPECT_EQ(sixDigits(0.00012194549178721184), 0.000121945);
    EXPECT_EQ(sixDigits(2.7420785166762467e-05), 2.74208e-05);
    EXPECT_EQ(sixDigits(-1.0 / 3.0), -0.333333);
    EXPECT_EQ(sixDigits(16302.08), 16302.1);
    EXPECT_EQ(sixDigits(100000.0), 100000.0);
    EXPECT_EQ(sixDigits(999999.7), 1000000.0);
    EXPECT_EQ(sixDigits(123456789.0), 123457000.0);
    EXPECT_EQ(sixDigits(1e-300), 1e-300); // beyond the powers of ten it uses: as it is
    EXPECT_TRUE(std::isnan(sixDigits(std::nan(""))));

    SyntheticWatch watch(3);
    WatchSample s = watch.next();
    ASSERT_FALSE(s.threads.empty());
    ThreadRates& t = s.threads.front();
    t.voluntaryPerS = 1.0 / 3.0;
    t.runqueueWaitPerS = 2.7420785166762467e-05;
    t.sched->wake.meanNs = 12345.678;
    WatchDeltaEncoder encoder;
    const std::string line = eventLine(encoder.encode(1, s, WatchFocus { { t.tid }, false }));
    EXPECT_NE(line.find("\"voluntary_per_s\":0.333333"), std::string::npos) << line;
    EXPECT_EQ(line.find("0.3333333"), std::string::npos) << line;
    WatchDeltaDecoder decoder;
    const WatchSample read = decoder.apply(parsedAs<WatchDeltaEvent>(line));
    ASSERT_FALSE(read.threads.empty());
    EXPECT_EQ(read.threads.front().voluntaryPerS, 0.333333);
    EXPECT_EQ(read.threads.front().runqueueWaitPerS, 2.74208e-05);
    EXPECT_EQ(read.threads.front().sched->wake.meanNs, 12345.7);
    // The same figures again are the same thread: not sent.
    t.voluntaryPerS = 0.3333334;
    EXPECT_TRUE(encoder.encode(1, s, WatchFocus { { t.tid }, false }).sample.threads.empty());
}

TEST(WatchDelta, AMalformedRowIsRefusedWithTheRowsShape)
{
    SyntheticWatch watch(5);
    WatchDeltaEncoder encoder;
    const WatchFocus focus { { 101 }, false };
    encoder.encode(1, watch.next(), focus);
    const WatchDeltaEvent delta = encoder.encode(2, watch.next(), focus);
    ASSERT_FALSE(delta.brief.empty());
    json line = json::parse(eventLine(delta));
    for (const auto& [index, bad] : std::vector<std::pair<std::size_t, json>> {
             { 0, -1 }, { 1, "SS" }, { 3, -0.5 }, { 6, "x" }, { 8, 1 }, { 9, json::array({ 1, 2 }) } }) {
        json broken = line;
        broken["rows"][0][index] = bad;
        const auto parsed = parseEvent(broken.dump());
        const auto* error = std::get_if<EventError>(&parsed);
        ASSERT_NE(error, nullptr) << "element " << index << " = " << bad.dump();
        EXPECT_NE(error->message.find("should hold rows [tid, state, cpu"), std::string::npos) << error->message;
    }
    json shortRow = line;
    shortRow["rows"][0].erase(9);
    EXPECT_TRUE(std::holds_alternative<EventError>(parseEvent(shortRow.dump())));
}

namespace {

// What a reader gets from `line`, as text: the event's own line, or the error's every field.
std::string answered(const std::variant<Event, EventError>& parsed)
{
    if (const auto* e = std::get_if<EventError>(&parsed))
        return "error " + std::to_string(static_cast<int>(e->kind)) + " '" + e->type + "' "
            + (e->id ? std::to_string(*e->id) : "-") + " '" + e->lost + "' " + e->message;
    return eventLine(std::get<Event>(parsed));
}

// parseEvent, which reads a lean line's rows from its text, answers every line as the line read
// whole as a document does.
void expectReadAlike(const std::string& line)
{
    EXPECT_EQ(answered(parseEvent(line)), answered(detail::parseEventWhole(line))) << line;
}

// The rows RowsText reads from `line`'s text, or -1 where it finds none or declines them.
long rowsReadFromText(const std::string& line)
{
    const auto span = detail::topLevelArray(line, "rows");
    if (!span)
        return -1;
    detail::RowsText text(std::string_view(line).substr(span->first, span->second - span->first));
    long rows = 0;
    while (text.next())
        ++rows;
    return text.declined() ? -1 : rows;
}

} // namespace

// The lean stream's rows are read from the line's text, not through a document: the same events
// for every line the encoder writes, and for each line the shortcut takes.
TEST(WatchDeltaRows, RowsReadFromTheTextAreTheDocumentsRows)
{
    SyntheticWatch watch(11);
    WatchDeltaEncoder encoder;
    std::size_t rows = 0;
    for (int i = 0; i < 30; ++i) {
        const WatchFocus focus { { 100 + i % 7, 103 }, i % 9 == 8 };
        const std::string line = eventLine(encoder.encode(6, watch.next(), focus));
        const auto shortcuts = detail::leanLinesRead();
        const auto parsed = parseEvent(line);
        ASSERT_TRUE(std::holds_alternative<Event>(parsed)) << line;
        const auto& delta = std::get<WatchDeltaEvent>(std::get<Event>(parsed));
        if (!delta.brief.empty()) { // else no rows are written
            EXPECT_EQ(rowsReadFromText(line), static_cast<long>(delta.brief.size())) << line;
            EXPECT_EQ(detail::leanLinesRead(), shortcuts + 1) << "read whole: " << line;
        }
        expectReadAlike(line);
        rows += delta.brief.size();
    }
    EXPECT_GT(rows, 100U);
}

// Rows the worker does not write, and lines around them: whatever the text reader takes, it reads
// as the document does; what it declines is read whole, with the same words for what is wrong.
TEST(WatchDeltaRows, UnusualRowsAndLinesAreReadAsTheWholeLineReadsThem)
{
    SyntheticWatch watch(5);
    WatchDeltaEncoder encoder;
    json base = json::parse(eventLine(encoder.encode(6, watch.next(), WatchFocus {})));
    base["rows"] = json::array();
    const std::string empty = base.dump();
    const std::string rowsAt = "\"rows\":[]";
    ASSERT_NE(empty.find(rowsAt), std::string::npos);
    const auto withRows = [&](const std::string& rowsText) {
        std::string line = empty;
        return line.replace(line.find(rowsAt), rowsAt.size(), "\"rows\":" + rowsText);
    };
    const std::string sched = "[5,0,0,5,9534.4,7509.33,16179.2,16384,true,null]";
    const auto row = [&](const std::string& tid, const std::string& state, const std::string& rate,
                         const std::string& count, const std::string& enqueue) {
        return "[" + tid + "," + state + ",1," + rate + ",9.99928,0,null,0,false,[" + count
            + ",0,0,5,9534.4,7509.33,16179.2,16384,true," + enqueue + "]]";
    };
    const std::string plain = row("101", "\"S\"", "6.8623e-05", "5", "null");
    const std::string enqueue = row("102", "\"R\"", "0.25", "7", "[3,1.5,2,4,[0,1,2]]");
    ASSERT_EQ(rowsReadFromText(withRows("[" + plain + "," + enqueue + "]")), 2);

    std::string bins65 = "[1";
    for (int i = 1; i < 65; ++i)
        bins65 += ",1";
    bins65 += "]";
    std::vector<std::string> rowsTexts {
        "[]",
        "[" + plain + "]",
        "[" + plain + "," + enqueue + "]",
        " [ " + plain + " ,\n\t" + enqueue + " ] ",
    };
    // One field of a row at a time: an escape and a minus sign are read whole (and "-0" is a
    // rate of 0 there), numbers beyond a double or below a normal one, numbers JSON does not
    // allow, a count too large for 64 bits (a float to nlohmann), a row nested too deep.
    for (const char* state : { "\"\\u0053\"", "\"SS\"", "\"\"", "\"\\u00e9\"" })
        rowsTexts.push_back("[" + row("101", state, "1", "5", "null") + "]");
    for (const char* rate :
        { "-0", "-0.5", "1E2", "2.5e-3", "0.0", "1e400", "4.9e-324", "0.1e-400", "1.", ".5", "1e", "true" })
        rowsTexts.push_back("[" + row("101", "\"S\"", rate, "5", "null") + "]");
    for (const char* count : { "18446744073709551615", "18446744073709551616", "5.0", "5e0" })
        rowsTexts.push_back("[" + row("101", "\"S\"", "0.25", count, "null") + "]");
    for (const char* tid : { "01", "1073741824", "1073741825" })
        rowsTexts.push_back("[" + row(tid, "\"S\"", "0.25", "5", "null") + "]");
    for (const std::string& wait : std::vector<std::string> { "[3,1.5,2,4,[]]", "[3,1.5,2,4," + bins65 + "]",
             "[3,1.5,2,4,[0,-1]]", "[3,1.5,2,4,[0,[1]]]", "[3,1.5,2,4]", "{}" })
        rowsTexts.push_back("[" + row("101", "\"S\"", "0.25", "5", wait) + "]");
    rowsTexts.insert(rowsTexts.end(),
        {
            "[[101,\"S\",null,0.25,1,0,0.5,0,true,null]]",
            "[[101,\"S\",65536,0.25,1,0,0.5,0,true,null]]",
            "[[101,\"S\",1,0.25,1,0,0.5,0,true,null,7]]",
            "[[101,\"S\",1,0.25,1,0,0.5,0,tru,null]]",
            "[" + plain + ",]",
            "[" + plain + "]]",
            "[" + plain,
            "[" + plain + " " + plain + "]",
            "[[]]",
            "[5]",
            "5",
            "{\"a\":[1]}",
            "\"rows\"",
        });
    for (const std::string& rowsText : rowsTexts) {
        expectReadAlike(withRows(rowsText));
        json tree = json::parse(withRows(rowsText), nullptr, false);
        if (!tree.is_discarded()) {
            const auto shortcuts = detail::leanLinesRead();
            expectReadAlike(tree.dump(2)); // the same, spaced and on many lines: read whole
            EXPECT_EQ(detail::leanLinesRead(), shortcuts) << tree.dump(2);
        }
    }
    // Lines about the rows: a second "rows", one spelled with an escape, one not at the top
    // level, a line of another type, a line cut short.
    const std::string one = withRows("[" + plain + "]");
    const std::string tail = one.substr(0, one.size() - 1);
    expectReadAlike(tail + ",\"rows\":[" + enqueue + "]}");
    expectReadAlike(tail + ",\"r\\u006fws\":[" + enqueue + "]}");
    expectReadAlike(tail + ",\"extra\":{\"rows\":[" + enqueue + "]}}");
    std::string sampleType = one;
    sampleType.replace(sampleType.find("\"watch_delta\""), 13, "\"watch_sample\"");
    const auto shortcuts = detail::leanLinesRead();
    expectReadAlike(sampleType);
    EXPECT_EQ(detail::leanLinesRead(), shortcuts); // not the writer's form of a lean line
    for (std::size_t cut = 1; cut < one.size(); cut += 37)
        expectReadAlike(one.substr(0, cut));
    EXPECT_NE(
        answered(parseEvent(withRows("[" + plain + "]"))).find("\"rows\":[[101,\"S\",1,6.8623e-05"), std::string::npos);
}

TEST(WatchDeltaRows, TheRowsArrayIsFoundOnlyAtTheTopLevel)
{
    using detail::topLevelArray;
    const auto at = [](std::string_view line) {
        const auto span = topLevelArray(line, "rows");
        return span ? std::string(line.substr(span->first, span->second - span->first)) : std::string("none");
    };
    EXPECT_EQ(at(R"({"type":"x","rows":[[1,"]"],[2]],"gone":[]})"), R"([[1,"]"],[2]])");
    EXPECT_EQ(at(R"({"rows" : [ ] })"), "[ ]");
    EXPECT_EQ(at(R"({"a":{"rows":[1]}})"), "none");
    EXPECT_EQ(at(R"({"a":[{"rows":[1]}]})"), "none");
    EXPECT_EQ(at(R"({"a":"rows","b":["rows"]})"), "none");
    EXPECT_EQ(at(R"({"rows":[1],"rows":[2]})"), "none");
    EXPECT_EQ(at(R"({"ro\"ws":[1],"rows":[2]})"), "none"); // an escaped key could spell it
    EXPECT_EQ(at(R"({"a":"\\","rows":[2]})"), "[2]"); // an escape in a value is no matter
    EXPECT_EQ(at(R"({"rows":5})"), "none");
    EXPECT_EQ(at(R"({"rows":[1})"), "none");
    EXPECT_EQ(at(R"({"rows":[1}])"), "none");
    EXPECT_EQ(at(R"({"rows":[1]]})"), "none");
    EXPECT_EQ(at(R"({"rows":[1],"a":"unclosed})"), "none");
}
