// SPDX-License-Identifier: MIT
#include "os/clock_read.h"
#include "programs/rates.h"
#include "programs/snapshot.h"
#include "programs/sorted_walk.h"

#include "ctxscope/sched_total.h"
#include "ctxscope/trace_session.h" // tracingAllowed
#include "ctxscope/watch.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <iterator>
#include <map>
#include <mutex>
#include <set>

namespace ctxscope {

namespace {

// One thread from its first reading to its last: the summary's rates are the growth between.
struct ThreadTrack {
    std::optional<programs::TaskSnapshot> first; // none: it started during the watch (counters from zero)
    std::uint64_t firstNs = 0;
    programs::TaskSnapshot last;
    std::uint64_t lastNs = 0;
    std::set<int> cpusSeen;
    std::uint64_t cpuChanges = 0; // last-CPU changes seen between readings
    bool seen = false;
    bool ended = false;
};

void see(ThreadTrack& track, const programs::TaskSnapshot& task, std::uint64_t ns)
{
    if (track.last.stat.processor && task.stat.processor && *track.last.stat.processor != *task.stat.processor)
        ++track.cpuChanges;
    if (task.stat.processor)
        track.cpusSeen.insert(*task.stat.processor);
    track.last = task;
    track.lastNs = ns;
    track.seen = true;
}

} // namespace

struct ProcessWatch::State {
    programs::ProcessSnapshot previous;
    std::uint64_t startNs = 0;
    std::map<std::pair<long, std::uint64_t>, ThreadTrack> tracks; // by TID and start time
    int samples = 0;
    std::string ending;
    os::TaskFiles files; // kept open between readings: a reading costs a third (task_stat.h)
};

ProcessWatch::ProcessWatch(std::unique_ptr<State> state)
    : m_state(std::move(state))
{
}
ProcessWatch::ProcessWatch(ProcessWatch&&) noexcept = default;
ProcessWatch& ProcessWatch::operator=(ProcessWatch&&) noexcept = default;
ProcessWatch::~ProcessWatch() = default;

Expected<ProcessWatch> ProcessWatch::start(long pid)
{
    os::TaskFiles files;
    auto first = programs::readProcessSnapshot(pid, &files);
    if (!first)
        return first.error();
    ProcessWatch watch = fromSnapshot(std::move(*first));
    watch.m_state->files = std::move(files);
    return watch;
}

ProcessWatch ProcessWatch::fromSnapshot(programs::ProcessSnapshot first)
{
    auto state = std::make_unique<State>();
    state->startNs = first.timeNs;
    for (const auto& task : first.tasks) {
        ThreadTrack& track = state->tracks[{ task.stat.tid, task.stat.starttime }];
        track.first = task;
        track.firstNs = first.timeNs;
        see(track, task, first.timeNs);
    }
    state->previous = std::move(first);
    return ProcessWatch(std::move(state));
}

Expected<WatchSample> ProcessWatch::next()
{
    State& s = *m_state;
    return nextFrom(programs::readProcessSnapshot(s.previous.pid, &s.files, &s.previous, s.samples + 1));
}

Expected<WatchSample> ProcessWatch::nextFrom(Expected<programs::ProcessSnapshot> now)
{
    State& s = *m_state;
    const std::string who = "process " + std::to_string(s.previous.pid) + " (" + s.previous.name + ")";
    if (!s.ending.empty())
        return makeError(s.ending);
    if (!now)
        s.ending = who + " ended";
    else if (now->starttime != s.previous.starttime)
        s.ending = who + " ended; its PID now belongs to another program (" + now->name + ")";
    if (!s.ending.empty())
        return makeError(s.ending);
    WatchSample sample = programs::compareSnapshots(s.previous, *now);
    sample.seconds = static_cast<double>(now->timeNs - s.startNs) / 1e9;
    sample.monoNs = now->timeNs;
    // The reading's threads come in TID order, as the tracks: the tracks are walked with them
    // (findFrom).
    auto at = s.tracks.begin();
    const auto keyOf = [](const auto& entry) { return entry.first; };
    for (const auto& task : now->tasks) {
        const std::pair<long, std::uint64_t> key { task.stat.tid, task.stat.starttime };
        at = programs::findFrom(at, s.tracks.end(), key, keyOf, [&] { return s.tracks.lower_bound(key); });
        if (at == s.tracks.end() || at->first != key)
            at = s.tracks.emplace_hint(at, key, ThreadTrack {});
        ThreadTrack& track = at->second;
        ++at;
        if (!track.seen)
            track.firstNs = s.previous.timeNs; // started within this interval
        see(track, task, now->timeNs);
    }
    for (const auto& gone : sample.ended)
        for (auto it = s.tracks.lower_bound({ gone.tid, 0 }); it != s.tracks.end() && it->first.first == gone.tid; ++it)
            if (it->second.lastNs == s.previous.timeNs)
                it->second.ended = true;
    ++s.samples;
    s.previous = std::move(*now);
    return sample;
}

const programs::ProcessSnapshot& ProcessWatch::lastReading() const { return m_state->previous; }

WatchSummary ProcessWatch::summary() const
{
    const State& s = *m_state;
    WatchSummary out;
    out.pid = s.previous.pid;
    out.name = s.previous.name;
    out.seconds = static_cast<double>(s.previous.timeNs - s.startNs) / 1e9;
    out.samples = s.samples;
    out.ending = s.ending;
    for (const auto& [key, track] : s.tracks) {
        const std::uint64_t dtNs = track.lastNs - track.firstNs;
        const ThreadRates r = programs::threadRates(track.first ? &*track.first : nullptr, track.last, dtNs);
        ThreadSummary t;
        t.tid = r.tid;
        t.name = r.name;
        t.seconds = static_cast<double>(dtNs) / 1e9;
        t.voluntaryPerS = r.voluntaryPerS;
        t.involuntaryPerS = r.involuntaryPerS;
        t.cpuShare = r.cpuShare;
        t.runqueueWaitPerS = r.runqueueWaitPerS;
        t.migrationsLowerBound = r.migrationsLowerBound;
        t.migrationsPerS = r.migrationsLowerBound ? (dtNs > 0 ? static_cast<double>(track.cpuChanges) / t.seconds : 0.0)
                                                  : r.migrationsPerS;
        t.cpusSeen.assign(track.cpusSeen.begin(), track.cpusSeen.end());
        t.affinity = track.last.status.cpusAllowed;
        t.ended = track.ended;
        out.threads.push_back(std::move(t));
    }
    return out;
}

namespace {

// The scheduler's view of the watched threads, interval by interval and in total. Its events
// also give the readings (programs::readCountedSnapshot): a traced watch does not read each
// thread's /proc files.
class SchedFollower {
public:
    static Expected<std::optional<SchedFollower>> open(long pid, const WatchOptions& options)
    {
        if (!options.trace)
            return std::optional<SchedFollower>();
        // No thread to name in the filter would trace every task: a PID that does not run is
        // refused as the untraced watch refuses it, before an instance is made.
        std::vector<long> tids = os::listTasks(pid);
        if (tids.empty())
            return programs::noProcess(pid);
        const bool bpf = options.backend == SchedBackend::Bpf;
        if (bpf && (options.onRecording || (options.onEvents && options.eventsPerSample > 0)))
            return makeError("the BPF backend keeps no events: a trace file or a timeline needs the ftrace backend");
        std::string refused;
        auto watch = bpf ? SchedWatch::openBpf(pid)
                         : SchedWatch::open(tids, options.onRecording ? options.keepTraceBytes : 0, options.traceMarks);
        if (!watch && bpf && options.onBpfFallback && tracingAllowed()) {
            // Refused at load: ftrace sees the same threads (no recording or events were asked).
            refused = watch.error().message;
            options.onBpfFallback(refused);
            watch = SchedWatch::open(tids, 0, options.traceMarks);
        }
        if (!watch)
            return watch.error();
        if (options.onEvents && options.eventsPerSample > 0)
            (*watch)->keepEvents(options.eventsPerSample);
        SchedFollower follower(std::move(*watch));
        follower.m_fallback = refused.empty() ? options.backendFallback : std::move(refused);
        follower.m_followed.insert(tids.begin(), tids.end());
        follower.m_tids = std::move(tids);
        return std::optional<SchedFollower>(std::move(follower));
    }

    // The first reading: the figures start here, like the rates.
    Expected<programs::ProcessSnapshot> start(long pid)
    {
        const std::uint64_t now = clk::monotonicNs();
        if (Status s = followThreads(pid); !s)
            return s.error();
        if (Status s = m_watch->countFrom(now); !s)
            return s.error();
        return programs::readCountedSnapshot(pid, m_tids, nullptr, m_watch->counts(), now);
    }

    // The end of an interval: its events are drained (annotate() adds their figures to the
    // sample), and their running totals give the reading's rates.
    Status drain(long pid)
    {
        m_drainedNs = clk::monotonicNs();
        ++m_readings;
        if (Status s = m_watch->drain(m_drainedNs, m_interval); !s)
            return s;
        return followThreads(pid);
    }

    Expected<programs::ProcessSnapshot> reading(long pid, const programs::ProcessSnapshot& previous) const
    {
        return programs::readCountedSnapshot(pid, m_tids, &previous, m_watch->counts(), m_drainedNs, m_readings);
    }

    // The sample's threads come in the order of /proc/PID/task, which is mostly their TIDs':
    // the figures and totals, both in TID order, are walked with them (findFrom). A thread's
    // figures are swapped into the sample, and back by reclaim(): the next drain refills them
    // in place. A thread new to the totals joins them after the walk.
    void annotate(WatchSample& sample)
    {
        const auto keyOf = [](const auto& entry) { return entry.first; };
        auto next = m_interval.begin();
        auto total = m_totals.begin();
        m_newTotals.clear();
        for (auto& t : sample.threads) {
            const long tid = t.tid;
            const auto it = programs::findFrom(
                next, m_interval.end(), tid, keyOf, [&] { return programs::findKey(m_interval, tid); });
            t.sched.emplace();
            if (it != m_interval.end()) {
                std::swap(*t.sched, it->second);
                next = std::next(it);
            }
            total = programs::findFrom(
                total, m_totals.end(), tid, keyOf, [&] { return programs::lowerBoundKey(m_totals, tid); });
            if (total != m_totals.end() && total->first == tid) {
                total->second.add(*t.sched);
                ++total;
            } else { // the next thread's totals are at or after this place
                m_newTotals.emplace_back(tid, SchedTotal {}).second.add(*t.sched);
            }
            t.sched->waitsNs.clear();
        }
        if (m_newTotals.empty())
            return;
        const auto byTid = [](const auto& a, const auto& b) { return a.first < b.first; };
        std::sort(m_newTotals.begin(), m_newTotals.end(), byTid);
        const auto middle = static_cast<std::ptrdiff_t>(m_totals.size());
        m_totals.insert(
            m_totals.end(), std::make_move_iterator(m_newTotals.begin()), std::make_move_iterator(m_newTotals.end()));
        std::inplace_merge(m_totals.begin(), m_totals.begin() + middle, m_totals.end(), byTid);
        m_newTotals.clear();
    }

    // After the sample was handed on: its threads' figures go back to their entries (those
    // that came from one), their memory for the next drain.
    void reclaim(WatchSample& sample)
    {
        const auto keyOf = [](const auto& entry) { return entry.first; };
        auto next = m_interval.begin();
        for (auto& t : sample.threads) {
            if (!t.sched)
                continue;
            const long tid = t.tid;
            const auto it = programs::findFrom(
                next, m_interval.end(), tid, keyOf, [&] { return programs::findKey(m_interval, tid); });
            if (it == m_interval.end())
                continue;
            std::swap(*t.sched, it->second);
            next = std::next(it);
        }
    }

    Expected<double> pump() { return m_watch->pump(); }
    SchedBackend backend() const { return m_watch->backend(); }
    // Why the backend is not BPF, where BPF was the default (WatchSample::backendFallback).
    const std::string& fallback() const { return m_fallback; }

    void annotate(WatchSummary& summary) const
    {
        for (auto& t : summary.threads)
            if (auto it = programs::findKey(m_totals, t.tid); it != m_totals.end())
                t.sched = it->second.figures();
    }

    // The interval's events (keepEvents), after its sample.
    void handEvents(const WatchOptions& options)
    {
        if (!options.onEvents || options.eventsPerSample == 0)
            return;
        std::uint64_t leftOut = 0;
        const Trace events = m_watch->takeEvents(leftOut);
        options.onEvents(events, leftOut);
    }

    void handOver(const WatchOptions& options) const
    {
        if (!options.onRecording)
            return;
        bool complete = true;
        const RawTrace& recording = m_watch->recording(complete);
        options.onRecording(recording, complete);
    }

private:
    explicit SchedFollower(std::unique_ptr<SchedWatch> watch)
        : m_watch(std::move(watch))
    {
    }

    // The process's threads; those that started since the last reading join the event filter
    // (it names thread ids). Listing /proc/PID/task costs about 1.5 µs a thread, the largest part
    // of a traced reading on a program of 1,000 threads, so it is listed again only when its
    // thread count changed or the events say that a listed thread ended (one that ended while
    // another started, with its end not seen, shows at the next change).
    Status followThreads(long pid)
    {
        const auto& counts = m_watch->counts(); // the events' totals at the last drain
        const bool ended = std::any_of(m_tids.begin(), m_tids.end(), [&](long tid) {
            const auto c = counts.find(tid);
            return c != counts.end() && (c->second.state == 'X' || c->second.state == 'Z');
        });
        const auto count = os::taskCount(pid);
        if (!m_tids.empty() && !ended && count && *count == m_tids.size())
            return {}; // the same threads, all followed
        m_tids = os::listTasks(pid);
        std::vector<long> fresh;
        for (const long tid : m_tids)
            if (!m_followed.contains(tid))
                fresh.push_back(tid);
        if (fresh.empty())
            return {};
        m_followed.insert(fresh.begin(), fresh.end());
        return m_watch->follow(fresh);
    }

    std::unique_ptr<SchedWatch> m_watch;
    // The last drain()'s figures, swapped into the sample by annotate() and back by reclaim().
    SchedFigures m_interval;
    std::vector<std::pair<long, SchedTotal>> m_totals; // in TID order
    std::vector<std::pair<long, SchedTotal>> m_newTotals; // annotate()'s threads new to them
    std::set<long> m_followed;
    std::vector<long> m_tids; // the process's threads at the last reading
    std::uint64_t m_drainedNs = 0;
    int m_readings = 0;
    std::string m_fallback;
};

} // namespace

Expected<WatchSummary> runWatch(long pid, double intervalS, double durationS, std::stop_token stop,
    const std::function<void(const WatchSample&)>& onSample, const WatchOptions& options)
{
    if (!(intervalS > 0))
        return makeError("a watch needs an interval of more than 0 seconds");
    // A traced watch opens the trace first, then reads: its figures and its rates, all from the
    // events, cover the same intervals.
    auto follower = SchedFollower::open(pid, options);
    if (!follower)
        return follower.error();
    auto watch = *follower ? [&]() -> Expected<ProcessWatch> {
        auto first = (*follower)->start(pid);
        if (!first)
            return first.error();
        return ProcessWatch::fromSnapshot(std::move(*first));
    }()
        : ProcessWatch::start(pid);
    if (!watch)
        return watch.error();
    using Clock = std::chrono::steady_clock;
    const auto seconds
        = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
    const auto begin = Clock::now();
    const auto end = begin + seconds(durationS);
    std::mutex mutex;
    std::condition_variable_any wake;
    // A traced watch empties the kernel's buffers between samples, so a busy program's events
    // never overrun them: every 100 ms at first, then as often as the fullest CPU's buffer
    // needs (a tenth of it filled: twice as often; less than 2%: half as often). Each read has a
    // cost of its own, which a quiet program need not pay ten times a second.
    constexpr auto kPumpFastest = std::chrono::milliseconds(25);
    constexpr auto kPumpSlowest = std::chrono::milliseconds(500);
    Clock::duration pumpEvery = std::chrono::milliseconds(100);
    // Ticks on a fixed grid from the start, so a slow reading does not stretch every interval.
    for (int n = 1; !stop.stop_requested(); ++n) {
        auto next = begin + seconds(intervalS * n);
        if (durationS > 0 && next > end)
            next = end;
        for (auto at = Clock::now(); !stop.stop_requested() && at < next; at = Clock::now()) {
            const auto until = *follower ? std::min(next, at + pumpEvery) : next;
            {
                std::unique_lock lock(mutex);
                wake.wait_until(lock, stop, until, [] { return false; });
            }
            if (!*follower || Clock::now() >= next)
                continue;
            auto fill = (*follower)->pump();
            if (!fill)
                return fill.error();
            if (*fill > 0.10)
                pumpEvery = std::max<Clock::duration>(kPumpFastest, pumpEvery / 2);
            else if (*fill < 0.02)
                pumpEvery = std::min<Clock::duration>(kPumpSlowest, pumpEvery * 2);
        }
        if (stop.stop_requested())
            break;
        if (*follower)
            if (Status s = (*follower)->drain(pid); !s)
                return s.error();
        auto sample = *follower ? watch->nextFrom((*follower)->reading(pid, watch->lastReading())) : watch->next();
        if (!sample)
            break; // the process ended: the summary says so
        sample->backend = *follower ? (*follower)->backend() : SchedBackend::Proc;
        sample->backendFallback = *follower ? (*follower)->fallback() : options.backendFallback;
        if (*follower)
            (*follower)->annotate(*sample);
        if (onSample)
            onSample(*sample);
        if (*follower)
            (*follower)->reclaim(*sample);
        if (*follower)
            (*follower)->handEvents(options);
        if (durationS > 0 && next >= end)
            break;
    }
    WatchSummary summary = watch->summary();
    summary.backend = *follower ? (*follower)->backend() : SchedBackend::Proc;
    if (*follower) {
        (*follower)->annotate(summary);
        (*follower)->handOver(options);
    }
    return summary;
}

} // namespace ctxscope
