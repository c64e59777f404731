// SPDX-License-Identifier: MIT
// Recording the scheduler's events: the private ftrace instance, whether this process may
// record, and the removal of the instances a dead ctxscope left.
#pragma once

#include "ctxscope/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace ctxscope {

// Whether this process may trace, as a sentence saying what is missing and how to grant it;
// mounts nothing and creates nothing.
Status tracingAllowed();

struct TraceOptions {
    std::vector<int> cpus; // empty: every CPU
    std::size_t bufferKbPerCpu = 0; // 0: 32 MiB on each of up to 8 traced CPUs, else 8 MiB
    bool syscalls = true; // raw_syscalls of the hand-over's calls (futex, read, write, sched_yield)
    // Only the events of these tasks and those they start (set_event_pid, event-fork); empty:
    // every task on the traced CPUs.
    std::vector<long> pids;
    bool schedOnly = false; // only sched_waking, sched_wakeup_new and sched_switch
    // Every collect() reads the kernel's saved_cmdlines into RawTrace::comms (thousands of lines
    // where its size was raised). Off, only the switches' own names are there: a watch, which
    // collects every 100 ms, looks up the few names it shows instead (SchedWatch).
    bool savedComms = true;
};

// A private ftrace instance ("ctxscope-PID-N") that records the scheduler's events on the
// chosen CPUs. It never touches the global instance. Destroying it removes the instance and
// unmounts tracefs if it mounted it; an instance a dead ctxscope left behind (kill -9) is
// removed when the next one opens.
class TraceSession {
public:
    static Expected<std::unique_ptr<TraceSession>> open(const TraceOptions& options);
    virtual ~TraceSession() = default;
    virtual Status start() = 0;
    virtual Status stop() = 0;
    // Writes a line into the trace itself (ftrace's print event, as trace_marker does), so the
    // trace says what it shows in every tool that opens it.
    virtual Status mark(const std::string& text) = 0;
    // Adds tasks to those whose events are recorded (with TraceOptions::pids).
    virtual Status addPids(const std::vector<long>& pids) = 0;
    // What a collect() reads besides the buffers. A watch empties the buffers many times a
    // second and needs the rest only now and then.
    struct Collect {
        // The per-CPU loss counters (RawTrace::losses, else empty): they run from the
        // instance's start, so a watch reads them only when it reports.
        bool losses = true;
        // The page header and the events' formats (else only pageSize, cpuCount and clock):
        // they do not change while the instance lives, so a reader needs them once.
        bool layout = true;
    };
    // Reads what the buffers hold (call after stop). The buffers are empty afterwards.
    virtual Expected<RawTrace> collect(Collect what) = 0;
    Expected<RawTrace> collect() { return collect(Collect {}); }
    // The instance's directory under tracefs: "/sys/kernel/tracing/instances/ctxscope-1234-1".
    virtual std::string instancePath() const = 0;
};

// Removes the instances of ctxscope processes that no longer run; returns how many.
int removeStaleTraceInstances();

} // namespace ctxscope
