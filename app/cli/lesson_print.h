// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/lesson.h"

#include <string>

namespace ctxscope::cli {

// Runs a lesson on the live machine with a progress line, prints its experiments, failures
// and conclusion. Returns an exit code.
int runAndPrintLesson(const std::string& id, const RunBudget& options);

} // namespace ctxscope::cli
