// SPDX-License-Identifier: MIT
#include "trace_options.h"
#include "ctxscope/trace_session.h"

#include <fmt/core.h>

#include <filesystem>

#include <unistd.h>

namespace ctxscope::cli {

namespace {

Status checkWritable(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec))
        return makeError(fmt::format("--trace-out {} is a directory: name a file", path));
    const bool exists = fs::exists(p, ec);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    const std::string where = exists ? path : dir.string();
    if (access(where.c_str(), exists ? W_OK : (W_OK | X_OK)) != 0)
        return makeError(fmt::format("--trace-out {}: {} is not writable", path, where));
    return {};
}

} // namespace

void TraceCliOptions::addTo(CLI::App* sub)
{
    sub->add_flag("--trace", trace,
        "After the run, run it once more traced and cut each hand-over into its steps (sched_waking, the IPI, the "
        "idle exit, sched_switch), in a private ftrace instance or, where --trace-backend allows, in the kernel "
        "(BPF): needs root or a tracefs your group may write");
    sub->add_option("--trace-out", out,
        "Also write the traced run's events to FILE: .dat is trace-cmd's trace.dat (trace-cmd report, KernelShark), "
        ".txt the kernel's text format (Perfetto UI); implies --trace");
    sub->add_option("--trace-ops", ops,
        fmt::format(
            "Ops of the traced run (default: about 0.25 s of them, 1,000 to 20,000; at most {})", kMaxTracedOps));
    sub->add_option("--trace-buffer", bufferKb,
        fmt::format("KiB of trace buffer on each traced CPU (default 32768 for up to 8 CPUs, else 8192; at most {})",
            kMaxTraceBufferKb));
}

void TraceCliOptions::addBackendTo(CLI::App* sub)
{
    backend = "auto";
    sub->add_option("--trace-backend", backend,
           "How the traced run cuts its hand-overs: ftrace records every event (any placement, --trace-out); bpf "
           "cuts and bins them in the kernel (pinned tasks only, a fraction of ftrace's cost, no events kept); "
           "auto: bpf where it can, else ftrace")
        ->default_str("auto");
}

TracedRunOptions TraceCliOptions::runOptions() const
{
    TracedRunOptions options { ops, bufferKb, {} };
    options.backend = traceBackendFrom(backend).value_or(TraceBackend::Ftrace);
    options.eventsWanted = !out.empty();
    return options;
}

Status TraceCliOptions::check(const BenchSpec& spec) const
{
    if (!wanted())
        return {};
    if (Status input = checkInput(spec); !input)
        return input;
    return traceAllowed(spec, runOptions());
}

Status TraceCliOptions::checkInput(const BenchSpec& spec) const
{
    if (!traceBackendFrom(backend))
        return makeError(fmt::format("--trace-backend must be auto, bpf or ftrace, not '{}'", backend));
    if (Status input = traceInputCheck(spec, runOptions(), out); !input)
        return input;
    return out.empty() ? Status {} : checkWritable(out);
}

Status checkTraceOut(const std::string& path)
{
    if (auto format = traceFileFormat(path); !format)
        return format.error();
    return checkWritable(path);
}

} // namespace ctxscope::cli
