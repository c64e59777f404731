// SPDX-License-Identifier: MIT
#include "programs/rates.h"
#include "programs/snapshot.h"

#include "ctxscope/watch.h"

#include <fmt/core.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
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
    for (const auto& task : now->tasks) {
        ThreadTrack& track = s.tracks[{ task.stat.tid, task.stat.starttime }];
        if (!track.seen)
            track.firstNs = s.previous.timeNs; // started within this interval
        see(track, task, now->timeNs);
    }
    for (const auto& gone : sample.ended)
        for (auto& [key, track] : s.tracks)
            if (key.first == gone.tid && track.lastNs == s.previous.timeNs)
                track.ended = true;
    ++s.samples;
    s.previous = std::move(*now);
    return sample;
}

std::uint64_t ProcessWatch::startMonoNs() const { return m_state->startNs; }

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

std::vector<long> taskIds(long pid)
{
    std::vector<long> tids;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid), ec))
        tids.push_back(std::strtol(e.path().filename().c_str(), nullptr, 10));
    return tids;
}

// The scheduler's view of the watched threads, interval by interval and in total.
class SchedFollower {
public:
    static Expected<std::optional<SchedFollower>> open(long pid, const WatchOptions& options)
    {
        if (!options.trace)
            return std::optional<SchedFollower>();
        auto watch
            = SchedWatch::open(taskIds(pid), options.onRecording ? options.keepTraceBytes : 0, options.traceMarks);
        if (!watch)
            return watch.error();
        return std::optional<SchedFollower>(SchedFollower(std::move(*watch)));
    }

    Status annotate(WatchSample& sample)
    {
        if (Status s = m_watch->follow(sample.appeared); !s)
            return s;
        auto drained = m_watch->drain(sample.monoNs);
        if (!drained)
            return drained.error();
        for (auto& t : sample.threads) {
            auto it = drained->find(t.tid);
            t.sched = it != drained->end() ? std::move(it->second) : ThreadSched {};
            m_totals[t.tid].add(*t.sched);
            t.sched->waitsNs.clear();
        }
        return {};
    }

    Status pump() { return m_watch->pump(); }

    // The figures start at the watch's first reading, like its /proc rates.
    Status countFrom(std::uint64_t monoNs, long pid)
    {
        if (Status s = m_watch->follow(taskIds(pid)); !s)
            return s;
        return m_watch->countFrom(monoNs);
    }

    void annotate(WatchSummary& summary) const
    {
        for (auto& t : summary.threads)
            if (auto it = m_totals.find(t.tid); it != m_totals.end())
                t.sched = it->second.figures();
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
    std::unique_ptr<SchedWatch> m_watch;
    std::map<long, SchedTotal> m_totals;
};

} // namespace

Expected<WatchSummary> runWatch(long pid, double intervalS, double durationS, std::stop_token stop,
    const std::function<void(const WatchSample&)>& onSample, const WatchOptions& options)
{
    if (!(intervalS > 0))
        return makeError("a watch needs an interval of more than 0 seconds");
    auto watch = ProcessWatch::start(pid);
    if (!watch)
        return watch.error();
    auto follower = SchedFollower::open(pid, options);
    if (!follower)
        return follower.error();
    if (*follower) {
        // Opening the trace takes a while (tens of ms, hundreds on a loaded machine): the
        // first reading is taken again once the trace runs, so the scheduler's figures and
        // the rates cover the same intervals.
        watch = ProcessWatch::start(pid);
        if (!watch)
            return watch.error();
        if (Status s = (*follower)->countFrom(watch->startMonoNs(), pid); !s)
            return s.error();
    }
    using Clock = std::chrono::steady_clock;
    const auto seconds
        = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
    const auto begin = Clock::now();
    const auto end = begin + seconds(durationS);
    std::mutex mutex;
    std::condition_variable_any wake;
    // Ticks on a fixed grid from the start, so a slow reading does not stretch every interval.
    for (int n = 1; !stop.stop_requested(); ++n) {
        auto next = begin + seconds(intervalS * n);
        if (durationS > 0 && next > end)
            next = end;
        // A traced watch empties the kernel's buffers every 100 ms, so a busy program's events
        // never overrun them between samples.
        for (auto at = Clock::now(); !stop.stop_requested() && at < next; at = Clock::now()) {
            const auto until = *follower ? std::min(next, at + std::chrono::milliseconds(100)) : next;
            {
                std::unique_lock lock(mutex);
                wake.wait_until(lock, stop, until, [] { return false; });
            }
            if (*follower && Clock::now() < next)
                if (Status s = (*follower)->pump(); !s)
                    return s.error();
        }
        if (stop.stop_requested())
            break;
        auto sample = watch->next();
        if (!sample)
            break; // the process ended: the summary says so
        if (*follower)
            if (Status s = (*follower)->annotate(*sample); !s)
                return s.error();
        if (onSample)
            onSample(*sample);
        if (durationS > 0 && next >= end)
            break;
    }
    WatchSummary summary = watch->summary();
    if (*follower) {
        (*follower)->annotate(summary);
        (*follower)->handOver(options);
    }
    return summary;
}

} // namespace ctxscope
