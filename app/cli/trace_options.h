// SPDX-License-Identifier: MIT
// --trace and its companions, shared by the commands that trace (run, lesson, watch): parsed,
// checked before anything runs, and the traced run's report.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/traced_run.h"

#include <CLI/CLI.hpp>

#include <string>

namespace ctxscope::cli {

struct TraceCliOptions {
    bool trace = false;
    std::string out; // --trace-out FILE (implies --trace)
    std::uint64_t ops = 0;
    std::size_t bufferKb = 0;
    std::string backend = "ftrace"; // --trace-backend (run only; its default there is auto)

    void addTo(CLI::App* sub);
    // --trace-backend, on the commands whose traced runs may cut hand-overs in the kernel.
    void addBackendTo(CLI::App* sub);
    bool wanted() const { return trace || !out.empty(); }
    // auto with --trace-out is ftrace: the file needs the events.
    TracedRunOptions runOptions() const;
    // Every refusal before anything runs: the benchmark, the ranges, the file, the privilege.
    Status check(const BenchSpec& spec) const;
    // The same but the privilege, whether or not tracing was asked for (a lesson that always
    // traces runs untraced without the privilege, but never with a bad file or range).
    Status checkInput(const BenchSpec& spec) const;
};

// A --trace-out path: a known extension, in a place this user may write.
Status checkTraceOut(const std::string& path);

} // namespace ctxscope::cli
