// SPDX-License-Identifier: MIT
// Watching a running program: every interval, each of its threads' switch rates, CPU share,
// run-queue wait and migrations, read from /proc/PID/task/*, with the system's switch rate and
// each CPU's busy share. Observing never measures: nothing is pinned or started.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/sched_watch.h"
#include "ctxscope/trace.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

// One thread over one interval.
struct ThreadRates {
    long tid = 0;
    std::string name;
    char state = '?'; // R, S, D, ... as /proc/PID/task/TID/stat gives it
    std::optional<int> cpu; // the CPU it last ran on
    std::vector<int> affinity;
    double voluntaryPerS = 0; // switches it asked for (sleeping, waiting)
    double involuntaryPerS = 0; // switches the scheduler forced (preempted)
    double cpuShare = 0; // of one CPU: 1.0 ran all the time
    std::optional<double> runqueueWaitPerS; // seconds spent runnable but waiting, per second; none without schedstat
    double migrationsPerS = 0;
    // No se.nr_migrations (a kernel without CONFIG_SCHED_DEBUG): counted from last-CPU changes
    // between samples, so a thread that moved and came back in one interval is missed.
    bool migrationsLowerBound = false;
    // With --trace: its wake-ups, wakers, preemptors and migrations from the scheduler's events.
    std::optional<ThreadSched> sched;
};

struct CpuBusy {
    int cpu = 0;
    double busyShare = 0; // of the interval: 1.0 never idle
};

struct EndedThread {
    long tid = 0;
    std::string name;
};

struct WatchSample {
    long pid = 0;
    std::string name; // the process's command
    bool kernel = false; // a kernel thread: pinning it needs KernelThreads::Move (pin.h)
    double seconds = 0; // since the watch began, at the sample's end
    double intervalS = 0;
    std::uint64_t monoNs = 0; // CLOCK_MONOTONIC at the sample's end: perf -k CLOCK_MONOTONIC and ftrace's "mono"
    std::vector<ThreadRates> threads; // by TID
    std::vector<long> appeared; // threads started during the interval (their rates cover their part)
    std::vector<EndedThread> ended; // threads that ended during the interval
    std::optional<double> systemSwitchesPerS; // /proc/stat's ctxt, every CPU
    std::vector<CpuBusy> cpus;
    SchedBackend backend = SchedBackend::Proc; // what gave the threads' figures
    // Why `backend` is not BPF when BPF was the default and this watch could not use it (no
    // capabilities or BTF, or the kernel refused the programs at load): one sentence; else "".
    std::string backendFallback;
};

// One thread over the whole watch, from its first sample to its last.
struct ThreadSummary {
    long tid = 0;
    std::string name;
    double seconds = 0; // how long it was watched
    double voluntaryPerS = 0;
    double involuntaryPerS = 0;
    double cpuShare = 0;
    std::optional<double> runqueueWaitPerS;
    double migrationsPerS = 0;
    bool migrationsLowerBound = false;
    std::vector<int> cpusSeen; // every CPU it was seen on, ascending
    std::vector<int> affinity; // when last seen
    bool ended = false; // ended before the watch did
    std::optional<ThreadSched> sched; // with --trace, over the whole watch
};

struct WatchSummary {
    long pid = 0;
    std::string name;
    double seconds = 0;
    int samples = 0;
    std::vector<ThreadSummary> threads; // by TID
    std::string ending; // why the watch ended before it was asked to (the process ended), or ""
    SchedBackend backend = SchedBackend::Proc;
};

namespace programs {
struct ProcessSnapshot;
}

// Watches one process. start() reads it once; each next() reads it again and gives the rates
// over the time between. Not thread-safe; one watch per object.
class ProcessWatch {
public:
    // "no process with PID 123 is running" when it does not exist (or cannot be read).
    static Expected<ProcessWatch> start(long pid);
    ProcessWatch(ProcessWatch&&) noexcept;
    ProcessWatch& operator=(ProcessWatch&&) noexcept;
    ~ProcessWatch();

    // The rates since the previous read. An error sentence when the process ended (or its PID
    // now belongs to another program); after that, summary() says so in `ending`.
    Expected<WatchSample> next();
    WatchSummary summary() const;
    // The latest reading (the first one before any next()).
    const programs::ProcessSnapshot& lastReading() const;

    // For tests: a watch of recorded snapshots (see programs/snapshot.h).
    static ProcessWatch fromSnapshot(programs::ProcessSnapshot first);
    Expected<WatchSample> nextFrom(Expected<programs::ProcessSnapshot> now);

    struct State;

private:
    explicit ProcessWatch(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

// A whole watch: a sample every `intervalS` until `durationS` (0: until `stop`) or the process
// ends, then its summary (whose `ending` says when the process ended). An error only when the
// process cannot be watched at all (it does not exist).
struct WatchOptions {
    bool trace = false; // also follow the threads' scheduler events (SchedWatch)
    // With trace: which observer follows them. BPF keeps no events: a recording (onRecording)
    // or the timeline's events (eventsPerSample) need Ftrace, and runWatch refuses them with Bpf.
    SchedBackend backend = SchedBackend::Ftrace;
    // With trace: keep what the kernel recorded, up to this many bytes, and hand it over at the
    // end (`complete` false when the cap cut it short), e.g. for watch --trace-out.
    std::size_t keepTraceBytes = 0;
    std::vector<std::string> traceMarks; // written into the recording as it starts: what it shows
    std::function<void(const RawTrace& recording, bool complete)> onRecording;
    // With trace: after each sample, the interval's scheduler events of the watched threads (their
    // switches in and out, their wake-ups), the latest `eventsPerSample` of them, with the count
    // of earlier ones left out: what the app's Programs timeline draws. 0: none.
    std::size_t eventsPerSample = 0;
    std::function<void(const Trace& events, std::uint64_t leftOut)> onEvents;
    // With trace and Bpf, the backend taken by default rather than named: the kernel may still
    // refuse the programs (a verifier, a hook or helper this kernel lacks), which bpfUnavailable
    // cannot tell beforehand. When set, the watch then follows with ftrace, where ftrace is
    // allowed, and calls this first with the refusal (one sentence); unset, it fails with it.
    std::function<void(const std::string& why)> onBpfFallback;
    // Why the default is not BPF (WatchBackendChoice::fallback), for each sample's
    // backendFallback; a refusal at load (onBpfFallback) takes its place.
    std::string backendFallback;
};
Expected<WatchSummary> runWatch(long pid, double intervalS, double durationS, std::stop_token stop,
    const std::function<void(const WatchSample&)>& onSample, const WatchOptions& options = {});

// Which backend a watch uses (watch --backend, a worker's traced watch): `named`, where this
// process may use it here; else the cheapest allowed: bpf (counts in the kernel), then ftrace
// (every event read), then /proc alone where `trace` does not require the scheduler's figures.
// `events`: the scheduler's events themselves are wanted (a recording, the app's timeline),
// which only ftrace keeps, so ftrace is not a fallback then. An error, as one sentence, when
// `named` is not allowed here or a traced watch can use no backend; the caller refuses the
// combinations that cannot work anywhere (bpf or proc with events, proc with trace) first.
struct WatchBackendChoice {
    SchedBackend backend = SchedBackend::Proc;
    std::string fallback; // why not bpf, when the default fell back to ftrace or /proc; else ""
};
Expected<WatchBackendChoice> chooseWatchBackend(std::optional<SchedBackend> named, bool trace, bool events);

// What a stream adds to a sample's line: the worker's `watch_sample` its command's id, a lean
// `watch_delta` (docs/protocol.md) also `gone`, `whole` and each sched block in its lean form
// (the bins as the pairs that grew, empty peer lists left out).
struct WatchLineForm {
    std::optional<std::uint64_t> id;
    bool delta = false;
    std::span<const long> gone = {};
    bool whole = false;
    // A delta's threads sent as rows of values, without name and affinity (`rows`).
    std::span<const ThreadRates> rows = {};
};

// A sample's JSON line, {"type": "watch_sample", ...} (`watch --json`, the worker's stream)
// with the form's fields, written straight into `out` as nlohmann's dump() would write it
// (keys in byte order, no spaces, its number format), without building a JSON tree: at 1,000
// threads and 2 Hz the tree, its allocations and its dump were most of a watch's CPU
// (docs/performance.md). Throws as dump() does on a name that is not UTF-8.
void appendWatchSampleLine(std::string& out, const WatchSample& sample, const WatchLineForm& form = {});

// The summary's JSON line of `watch --json` and the worker's stream (with its command's `id`),
// {"type": "watch_summary", ...}, written the same way: a summary of 10,000 threads made as a
// tree took most of a second of CPU.
void appendWatchSummaryLine(std::string& out, const WatchSummary& summary, std::optional<std::uint64_t> id = {});

} // namespace ctxscope
