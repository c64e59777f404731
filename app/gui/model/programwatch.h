// SPDX-License-Identifier: MIT
#pragma once

#include "threadtablemodel.h"
#include "timelinedata.h"

#include "ctxscope/pin.h"
#include "ctxscope/watch.h"

#include <QObject>
#include <QString>

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ctxscope::gui {

// A point of a thread's (or the whole process's) history, for the live plot.
struct ThreadPoint {
    double seconds = 0; // since the watch began, at the end of the sample
    double switchesPerS = 0; // voluntary + involuntary
    std::optional<double> runqueueWaitPerS; // s/s; none without schedstat
};

// A re-pin, drawn as a vertical line on the plot.
struct PinMark {
    double seconds = 0; // on the watch's clock
    QString what; // "1234 → 0", "2 threads → 0,1"
};

// A thread's wake-up latencies (runnable -> running, from the scheduler's events of a traced
// watch) since a point of the watch: its start, or a re-pin of that thread. Summed from each
// interval's log2 bins, as bcc's runqlat sums them.
struct WakeupEpoch {
    double fromSeconds = 0; // on the watch's clock
    QString why; // "from the start", "after 1234 → 0"
    std::vector<std::uint64_t> log2Hist; // [i]: waits of 2^i ns up to 2^(i+1) ns
    std::uint64_t count = 0;
    // "name (tid)" or "an interrupt" -> wake-ups: each interval's top five, summed
    std::map<std::string, std::uint64_t> wakers;
    std::map<std::string, std::uint64_t> preemptors;
    // The bin holding the q-quantile of the waits (its lower edge, ns: 2^i); nullopt when none.
    std::optional<std::uint64_t> quantileBin(double q) const;
    // The most frequent wakers or preemptors, most first, at most `most`.
    static std::vector<std::pair<std::string, std::uint64_t>> top(
        const std::map<std::string, std::uint64_t>& peers, std::size_t most);
};

// The watch of one running program (the Programs dock's document): its latest threads, each
// thread's history, the re-pins, and the affinity each thread had when it was first seen
// (what Restore gives back).
class ProgramWatch : public QObject {
    Q_OBJECT
public:
    // Points kept per thread: 10 minutes at the default 0.5 s.
    static constexpr std::size_t kHistory = 1200;
    // A traced watch's timeline: its last 10 seconds of events, 400,000 at most (16 MB).
    static constexpr std::uint64_t kTimelineNs = 10'000'000'000;
    static constexpr std::size_t kTimelineEvents = 400'000;
    // Past this many names the timeline's names are pruned to the tasks its events still hold
    // (a program that starts short-lived threads or wakes many tasks would grow them for ever).
    static constexpr std::size_t kTimelineNames = 4096;
    // In the timeline, what ran on a PU when no watched thread did: the watch traces only the
    // program's threads, so the task after a switch away from one is named by the switch but
    // what followed it is not seen (idle or any other task).
    static constexpr std::int32_t kOtherTasks = -1;

    explicit ProgramWatch(QObject* parent = nullptr);

    // Forgets everything and begins the watch of `pid`.
    void begin(long pid);
    void addSample(const WatchSample& sample);
    // Records the answer to a pin at `seconds` on the watch's clock: a mark for the plot,
    // and the threads' new affinity at once.
    void addPin(double seconds, const std::vector<PinChange>& changes);

    long pid() const { return m_pid; }
    const QString& name() const { return m_name; }
    // A kernel thread or PID 1 (as the worker's samples say): its threads move only once the
    // user said yes (ProgramsPanel's question), and Restore gives them back all the same.
    PinGuard guard() const;
    int samples() const { return m_samples; }
    double lastSeconds() const { return m_lastSeconds; }
    ThreadTableModel* threads() { return &m_threads; }
    const ThreadTableModel* threads() const { return &m_threads; }
    const std::deque<ThreadPoint>* history(long tid) const; // nullptr when never seen
    const std::deque<ThreadPoint>& processHistory() const { return m_process; } // every thread summed
    const std::vector<PinMark>& pins() const { return m_pins; }
    // A traced watch: each thread's wake-ups, one epoch per re-pin of it (before, then after
    // each); nullptr for a thread with none (an untraced watch, or never woken).
    const std::vector<WakeupEpoch>* wakeups(long tid) const;
    bool traced() const { return m_traced; } // a sample carried the scheduler's events
    SchedBackend backend() const { return m_backend; } // what gave the last sample's figures
    // Why that is not BPF where the worker's default could not use it (one sentence), else empty.
    const QString& backendFallback() const { return m_backendFallback; }
    // Part of an interval's scheduler events of the watched threads (the worker sends them
    // after its sample); `intervalEnds` on its last part, with the count of the interval's
    // earlier events the worker left out. Switches to and from tasks not watched name
    // kOtherTasks instead; an interval with events left out breaks every lane where its kept
    // ones begin (kUnrecordedPid).
    void addEvents(const std::vector<TraceEvent>& events, const std::map<int, std::string>& comms, bool intervalEnds,
        std::uint64_t leftOut);
    // The last kTimelineNs of those events (at most kTimelineEvents), for the timeline.
    const TraceWindow& timeline() const { return m_timeline; }
    // Where the newest stretch without a gap begins: the last interval's kept events when the
    // worker left some out, else the timeline's start (0 when it is empty).
    std::uint64_t timelineStretchFromNs() const;
    // Events left out since the watch began (the worker's cap on an interval, or kTimelineEvents).
    std::uint64_t timelineLeftOut() const { return m_timelineLeftOut; }
    const std::optional<double>& systemSwitchesPerS() const { return m_systemSwitches; }

    // The threads still running whose affinity is not the one they had when first seen, with
    // that first affinity: what Restore pins back.
    std::vector<std::pair<long, std::vector<int>>> restorePlan() const;

signals:
    void sampleAdded();
    void pinsChanged();
    void timelineChanged(); // an interval's events are all in (or a new watch began)

private:
    void addWakeups(long tid, const ThreadSched& sched);

    long m_pid = 0;
    QString m_name;
    bool m_kernel = false;
    int m_samples = 0;
    double m_lastSeconds = 0;
    ThreadTableModel m_threads;
    std::map<long, std::deque<ThreadPoint>> m_history;
    std::deque<ThreadPoint> m_process;
    std::map<long, std::vector<int>> m_firstAffinity;
    std::vector<PinMark> m_pins;
    std::optional<double> m_systemSwitches;
    std::map<long, std::vector<WakeupEpoch>> m_wakeups;
    bool m_traced = false;
    SchedBackend m_backend = SchedBackend::Proc;
    QString m_backendFallback;
    TraceWindow m_timeline;
    std::uint64_t m_timelineLeftOut = 0;
    std::set<int> m_timelineCpus; // every CPU the events named: the lanes a gap breaks
    std::optional<std::size_t> m_intervalBegin; // where the interval coming in began in m_timeline
};

} // namespace ctxscope::gui
