// SPDX-License-Identifier: MIT
// The kernel's scheduler events: recorded in a private ftrace instance (libtracefs), decoded
// with the layouts the kernel states (libtraceevent), and cut into the steps of a hand-over.
#pragma once

#include "ctxscope/expected.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ctxscope {

enum class TraceEventKind : std::uint8_t {
    Waking, // sched_waking: other = the woken pid, aux = its target CPU, value = common_flags
            // (kTraceFlagHardirq, kTraceFlagSoftirq: woken from an interrupt, not by `pid`)
    Wakeup, // sched_wakeup: other = the woken pid, aux = its target CPU
    WakeupNew, // sched_wakeup_new: as Wakeup
    Switch, // sched_switch: pid = prev_pid, other = next_pid, value = prev_state
    Migrate, // sched_migrate_task: other = the pid, aux = orig_cpu, value = dest_cpu
    WakeIdleNoIpi, // sched_wake_idle_without_ipi: aux = the CPU woken
    IpiSend, // ipi_send_cpu: aux = the target CPU, value = the call site (a kernel address)
    IdleEnter, // power:cpu_idle with a state: value = the state
    IdleExit, // power:cpu_idle with PWR_EVENT_EXIT
    IrqEntry, // irq_handler_entry: value = the irq
    IrqExit, // irq_handler_exit: value = the irq
    SoftirqEntry, // softirq_entry: value = the vector
    SoftirqExit, // softirq_exit: value = the vector
    SysEnter, // raw_syscalls:sys_enter: value = the system call number
    SysExit, // raw_syscalls:sys_exit: value = the system call number
};

// Whether an event's `other` is a task (a woken, switched-in or migrated one), not a CPU or a
// number: the kinds whose `other` a reader names.
constexpr bool otherIsTask(TraceEventKind kind)
{
    return kind == TraceEventKind::Waking || kind == TraceEventKind::Wakeup || kind == TraceEventKind::WakeupNew
        || kind == TraceEventKind::Switch || kind == TraceEventKind::Migrate;
}

// common_flags bits (the kernel's TRACE_FLAG_HARDIRQ and TRACE_FLAG_SOFTIRQ).
inline constexpr std::int64_t kTraceFlagHardirq = 0x08;
inline constexpr std::int64_t kTraceFlagSoftirq = 0x10;

// The tracepoint an event kind comes from: "sched_switch", "cpu_idle" ...
const char* traceEventName(TraceEventKind kind);

// One decoded event: 40 bytes, so a window of 10^6 events is 40 MB.
struct TraceEvent {
    std::uint64_t ns = 0; // trace clock: CLOCK_MONOTONIC ("mono")
    std::int32_t cpu = -1; // the CPU that recorded it
    std::int32_t pid = 0; // the task running there when it fired (Switch: prev_pid)
    std::int32_t other = -1; // see TraceEventKind
    std::int32_t aux = -1;
    std::int64_t value = 0;
    TraceEventKind kind = TraceEventKind::Switch;
};

// What the kernel said about lost events on one CPU's buffer.
struct TraceCpuLoss {
    int cpu = 0;
    std::uint64_t overrun = 0; // events overwritten in the ring ("overrun")
    std::uint64_t dropped = 0; // events refused because the ring was full ("dropped events")
    std::uint64_t missedInPages = 0; // lost events the pages themselves flag
    // The pages flag the same losses the counters count, seen from the reader's side.
    std::uint64_t total() const { return std::max(overrun + dropped, missedInPages); }
};

// One CPU's ring buffer as the kernel wrote it: whole sub-buffers (pages) of trace_pipe_raw.
struct RawCpuBuffer {
    int cpu = 0;
    std::vector<std::uint8_t> pages;
};

// A recording as the kernel produced it, with everything a reader needs to decode it on
// another machine: the page and event headers, each recorded event's format file, the names
// of the tasks. trace.dat is this, laid out as trace-cmd lays it out.
struct RawTrace {
    std::size_t pageSize = 0;
    int cpuCount = 0; // CPUs of the machine (buffers are numbered by CPU)
    std::string clock; // the trace clock's name: "mono"
    std::string headerPage; // events/header_page
    std::string headerEvent; // events/header_event
    struct Format {
        std::string system; // "sched"
        std::string name; // "sched_switch"
        std::string text; // its events/SYSTEM/NAME/format file
    };
    std::vector<Format> formats;
    std::map<int, std::string> comms; // pid -> command, from saved_cmdlines and the switches
    std::vector<RawCpuBuffer> buffers; // only the CPUs that were traced
    std::vector<TraceCpuLoss> losses;
    std::vector<std::string> missingEvents; // asked for, but this kernel has no such event
    std::uint64_t lostEvents() const;
    std::size_t pageBytes() const; // the buffers' pages, all CPUs
};

// Appends a later recording of the same session (another collect()) to an earlier one: each
// CPU's pages after its earlier pages, the task names, the kernel's latest loss counts.
void appendRecording(RawTrace& into, RawTrace&& later);

// Decoded events in time order (ties keep each CPU's own order).
struct Trace {
    std::vector<TraceEvent> events;
    std::map<int, std::string> comms;
    std::vector<TraceCpuLoss> losses;
    std::vector<std::string> missingEvents;
    std::uint64_t lostEvents() const;
};

enum class TraceFileFormat {
    TraceDat, // trace-cmd's trace.dat, version 6: trace-cmd report, KernelShark
    FtraceText, // the kernel's own text format (/sys/kernel/tracing/trace): Perfetto UI, Catapult
};

// The format a --trace-out path's extension picks (.dat; .txt or .ftrace), or a sentence.
Expected<TraceFileFormat> traceFileFormat(const std::string& path);

// Writes a recording; `comments` (the machine, the placement) go into the text format's
// header, and the trace itself carries them as marks.
Status writeTraceFile(const RawTrace& raw, const std::string& path, const std::vector<std::string>& comments = {});

} // namespace ctxscope
