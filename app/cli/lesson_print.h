// SPDX-License-Identifier: MIT
#pragma once

#include "trace_options.h"

#include "ctxscope/lesson.h"

#include <string>

namespace ctxscope::cli {

// Runs a lesson on the live machine with a progress line, prints its experiments (or a
// watching lesson's phases), failures, notes and conclusion, and with `json` (a file, or "-"
// for stdout instead of the text) writes lessonToJson's document with the steps' results
// ("results", each with its "trace" block when traced). `trace` is checked before anything runs;
// its --trace-out gets the cross-CPU traced step's events. Returns an exit code.
int runAndPrintLesson(
    const std::string& id, const RunBudget& options, const std::string& json = {}, const TraceCliOptions& trace = {});

} // namespace ctxscope::cli
