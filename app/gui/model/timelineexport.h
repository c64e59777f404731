// SPDX-License-Identifier: MIT
#pragma once

#include "timelinedata.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ctxscope::gui {

// A traced run's timeline in the trace-event JSON format that Perfetto UI (ui.perfetto.dev,
// Open trace file) and chrome://tracing open: a process per PU ("CPU 3"), on its first track
// what ran there (a slice per task, named "comm (pid)", idle as "idle"), on its second the
// interrupts and softirqs, each migration as an instant event, each wake-up as a flow arrow from
// the waker's PU at sched_waking to the wakee's switch-in. Times in µs with ns precision, from
// the trace clock (CLOCK_MONOTONIC). `comments` (the run, the machine) go into its metadata.
nlohmann::json perfettoTrace(const TimelineData& data, const std::vector<std::string>& comments);

} // namespace ctxscope::gui
