// SPDX-License-Identifier: MIT
// A watched program's threads through the scheduler's events: per thread, how long a wake-up
// waited to run (runqlat, per thread), who woke it, who preempted it, where it moved.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ctxscope {

// Runnable to running: from sched_waking (or being preempted while runnable) to the
// sched_switch that runs the thread, as perf sched timehist's "sch delay".
struct WakeLatency {
    std::uint64_t count = 0;
    double meanNs = 0;
    double p50Ns = 0;
    double p99Ns = 0;
    double maxNs = 0;
    std::vector<std::uint64_t> log2Hist; // [i]: waits of 2^i ns up to 2^(i+1) ns (bcc runqlat's bins)
    // The BPF backend keeps bins, not waits: count and mean are exact (it keeps their sum), p50,
    // p99 (and max, unless the watch's running max grew in the interval) are estimates within
    // their bin (a factor of 2).
    bool fromBins = false;
};

// The same waits from the wakee's enqueue (sched_wakeup, or its preemption), where bcc's
// runqlat starts a wait, in runqlat's own bins: the wake latency's mean less this one's is the
// wake-up's way to the wakee's CPU (an IPI, an idle exit). The BPF backend's only.
struct EnqueueWait {
    bool known = false; // counted (the BPF backend); the other backends leave it out
    std::uint64_t count = 0;
    double meanNs = 0; // exact
    double p50Ns = 0; // estimates within their bin
    double p99Ns = 0;
    std::vector<std::uint64_t> log2UsHist; // [i]: waits of 2^i up to 2^(i+1) whole µs ([0]: 0-1 µs)
};

struct SchedPeer {
    long tid = 0; // 0: an interrupt or the idle task
    std::string name;
    std::uint64_t count = 0;
};

struct SchedMigration {
    int from = -1;
    int to = -1;
    std::string relation; // "shared-l3", ... between the two CPUs ("" when unknown)
    std::uint64_t count = 0;
};

struct ThreadSched {
    std::uint64_t switchIns = 0;
    // Runs whose switch-in the kernel did not record (the thread left a CPU it was never seen
    // entering): their wait is unknown and not in `wake`.
    std::uint64_t unrecordedSwitchIns = 0;
    WakeLatency wake;
    EnqueueWait fromEnqueue;
    std::vector<SchedPeer> wakers; // most first, at most 5
    std::vector<SchedPeer> preemptors; // most first, at most 5
    std::vector<SchedMigration> migrations; // CPU changes between two runs, most first
    std::uint64_t lostEvents = 0; // events the kernel lost while this was gathered
    std::vector<double> waitsNs; // the interval's waits, for a running total (not in the JSON)
};

// One interval's figures of the threads that have any, in TID order, each TID once
// (SchedWatch::drain): a flat array walked beside a sample's threads (walking a map of 10,000
// threads took 9% of a watch's samples; docs/performance.md).
using SchedFigures = std::vector<std::pair<long, ThreadSched>>;

// A thread's running totals from its sched_switch and wake-up events since the watch's window
// began (SchedWatch::countFrom): what a traced watch reads instead of /proc's counters, so that
// watching a busy program costs the events, not a /proc reading per thread
// (programs::readCountedSnapshot).
struct SchedCounts {
    std::uint64_t voluntary = 0; // switched out to sleep (/proc's voluntary_ctxt_switches)
    std::uint64_t involuntary = 0; // switched out still runnable: preempted
    std::uint64_t runNs = 0; // on a CPU (schedstat's run time)
    std::uint64_t waitNs = 0; // runnable, waiting for a CPU (schedstat's wait time)
    std::uint64_t switchIns = 0; // runs (schedstat's timeslices)
    std::uint64_t migrations = 0; // runs on another CPU than the run before
    int cpu = -1; // the CPU it last ran on (-1: not seen running)
    char state = '?'; // R running or runnable; else its prev_state when it left a CPU (S, D, ...)
    // The BPF backend's fold of the CPUs it may run on, as the kernel had them when it last left
    // a CPU: a new key means a new affinity. 0: not known (the other backends, or not yet seen).
    std::uint32_t affinityKey = 0;
};

// Where a watch's scheduler figures come from (watch --backend): the kernel's counts kept by
// BPF programs, the scheduler's events read from a private ftrace instance, or /proc alone.
enum class SchedBackend { Bpf, Ftrace, Proc };
std::string_view toString(SchedBackend backend);
std::optional<SchedBackend> schedBackendFrom(std::string_view name);
// "" when this process may run the BPF backend here; else one sentence why not (not built
// with it, no BTF in this kernel, no CAP_BPF and CAP_PERFMON).
std::string bpfUnavailable();

// Follows a process's threads in a private ftrace instance (only the events of its threads:
// event filters on their ids). Figures cover a window of CLOCK_MONOTONIC (the trace clock):
// from countFrom()'s time to the last drain()'s. A switch-in counts in the interval its
// sched_switch falls in, with its wait from the wake-up (or preemption) before it, even one
// before the window (the trace runs from open()); a wake-up still waiting at a drain is
// counted when it runs.
class SchedWatch {
public:
    // tracingAllowed()'s sentence when this process may not trace. Tracing starts here.
    // With `keepBytes` > 0 it also keeps what the kernel records, up to that many bytes of
    // pages, for a trace file (recording()), which starts with `marks` (what it shows).
    static Expected<std::unique_ptr<SchedWatch>> open(
        const std::vector<long>& tids, std::size_t keepBytes = 0, const std::vector<std::string>& marks = {});
    // The BPF backend (engine/src/bpf): programs on the scheduler's tracepoints, filtered in the
    // kernel to process `pid`, counting into maps read once a drain. It keeps no events:
    // recording() is empty and keepEvents() keeps nothing (a timeline or trace file needs
    // open()'s ftrace). Nothing is pinned: its programs end with this object or the process.
    static Expected<std::unique_ptr<SchedWatch>> openBpf(long pid);
    virtual ~SchedWatch() = default;
    virtual SchedBackend backend() const { return SchedBackend::Ftrace; }
    // Adds threads that appeared since (the event filter names thread ids).
    virtual Status follow(const std::vector<long>& tids) = 0;
    // The window's start: the events before `monoNs` only say what is pending (a wake-up not
    // yet run, a thread on a CPU); nothing before it is counted. The watch passes the time of
    // its first /proc reading, so the scheduler's figures cover the same interval as its rates.
    virtual Status countFrom(std::uint64_t monoNs) = 0;
    // Moves what the kernel's buffers hold into memory, so they never fill between drains, and
    // says how full the fullest CPU's buffer was (0 to 1): the caller pumps more often when it
    // is filling (runWatch: every 25 to 500 ms).
    virtual Expected<double> pump() = 0;
    // The figures of the events up to `untilMonoNs` (a time already past) since the last drain
    // (or countFrom), into `figures`: an entry for each thread with figures, any other entry
    // erased; later events wait for the next drain. The BPF backend fills the entries it finds
    // in place, so a caller that keeps the array (and gives back what it moved out) makes a
    // steady watch allocate nothing per thread.
    virtual Status drain(std::uint64_t untilMonoNs, SchedFigures& figures) = 0;
    // Every task's running totals up to the last drain's `untilMonoNs` (a task on a CPU then
    // counts its run so far), from countFrom's time; valid until the next drain or countFrom.
    virtual const std::unordered_map<long, SchedCounts>& counts() const = 0;
    // What the kernel recorded since open, when asked to keep it; `complete` is false when it
    // reached `keepBytes` and the rest was left out (the recording then ends there).
    virtual const RawTrace& recording(bool& complete) const = 0;
    // Keeps the decoded events of the followed threads from here on, the latest `most` of each
    // interval (0: none), for a timeline of the watch (the app's Programs page).
    virtual void keepEvents(std::size_t most) = 0;
    // The events kept since the last call, up to the last drain's time, in time order, with the
    // names of the tasks they mention; `leftOut` says how many earlier ones `most` cut.
    virtual Trace takeEvents(std::uint64_t& leftOut) = 0;
};

// The "sched" block of a watch's thread (watch --trace; report/sched_json.cpp, beside its reader).
nlohmann::json threadSchedToJson(const ThreadSched& sched);

} // namespace ctxscope
