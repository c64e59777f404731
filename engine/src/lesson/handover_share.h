// SPDX-License-Identifier: MIT
// Where a traced hand-over's time goes: its steps (TraceSummary's segments) as shares of the
// whole, the figures the lessons quote instead of asserting what a VM or another CPU adds.
#pragma once

#include "ctxscope/handover_shares.h"
#include "ctxscope/result.h"

#include <optional>
#include <string>
#include <vector>

namespace ctxscope::lesson {

// The typical hand-over and its steps are defined once, in ctxscope/handover_shares.h; the
// lessons name them as their own.
using ctxscope::HandoverShares;
using ctxscope::handoverShares;
using ctxscope::StepShare;

// "IPI sent (sched_waking → ipi_send_cpu), 6.1 µs (38%)"; "switch-in (cpu_idle → sched_switch in
// most hand-overs, else from ipi_send_cpu), 12 µs (40%)"
std::string stepText(const StepShare& step);
// "sched_waking → ipi_send_cpu"; "cpu_idle → sched_switch in most hand-overs, else from ipi_send_cpu"
std::string waysText(const StepShare& step);

// What a step is, in words: "the waker's CPU interrupting the wakee's (on a VM, a VM exit)".
std::string stepMeaning(const std::string& name);

// Where the kernel put the woken task in a traced unpinned run, and what a hand-over cost each
// way: "The kernel put the woken task on the waker's own CPU in 62% of 9,812 wake-ups (a hand-over
// there took 3.1 µs), on another CPU that was idle in 30% and on one running another task in 8%
// (a hand-over across CPUs took 11.7 µs, 7.0 µs of it the idle exit); 35% of the wake-ups moved
// it off the CPU it last ran on." "" for a run that was not traced, pinned, or saw no wake-up.
std::string placementSentence(const RunResult& r);

// The VM sentence with the figures a trace measured: the IPI to the other vCPU (or the
// largest step where no IPI was sent) against the whole hand-over; "" without a cross-CPU trace.
std::string tracedVmNote(const RunResult& r);

} // namespace ctxscope::lesson
