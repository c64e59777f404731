// SPDX-License-Identifier: MIT
// ctxscope-cli workload NAME: a demonstration program to watch and re-pin.
#include "commands.h"
#include "interrupt.h"

#include "ctxscope/workload.h"

#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <unistd.h>

namespace ctxscope::cli {

namespace {

struct WorkloadOptions {
    std::string name;
    int threads = 0;
    double duration = 0;
};

std::string workloadHelp()
{
    std::string out = "The program to run:";
    for (const auto& w : workloadList())
        out += "\n  " + w.name + ": " + w.description + "; --threads counts " + w.threadsMeaning;
    return out;
}

int run(const WorkloadOptions& o)
{
    if (o.duration < 0)
        return badInput("--duration must be 0 (until Ctrl-C) or more seconds");
    std::string unit;
    for (const auto& w : workloadList())
        if (w.name == o.name)
            unit = w.unit;
    InterruptScope interrupt;
    WorkloadCallbacks callbacks;
    callbacks.started = [&](const std::vector<WorkloadThread>& threads) {
        fmt::print("workload {} (PID {}), unpinned; threads:", o.name, ::getpid());
        for (const auto& t : threads)
            fmt::print(" {} {}", t.name, t.tid);
        fmt::print("\n");
        std::fflush(stdout);
    };
    callbacks.tick = [&](const WorkloadTick& t) {
        fmt::print("{:7.1f} s  {:>14.0f} {}/s  ({} in all)\n", t.seconds, t.workPerS, unit, t.work);
        std::fflush(stdout);
    };
    auto done = runWorkload(o.name, o.threads, o.duration, interrupt.token(), callbacks);
    if (!done)
        return badInput(done.error().message);
    return interrupt.requested() ? kInterrupted : kOk;
}

} // namespace

Command addWorkloadCommand(CLI::App& app)
{
    auto options = std::make_shared<WorkloadOptions>();
    CLI::App* sub = app.add_subcommand("workload",
        "Run a demonstration program (unpinned) to watch and pin: prints its thread IDs and its work each second");
    sub->add_option("NAME", options->name, workloadHelp())->required();
    sub->add_option("--threads", options->threads, "Pairs (pingpong), stages (pipeline) or threads (busy, sleepers)")
        ->check(CLI::Range(1, 10000));
    sub->add_option("--duration", options->duration, "Stop after S seconds (default: run until Ctrl-C or SIGTERM)");
    return { sub, [options] { return run(*options); } };
}

} // namespace ctxscope::cli
