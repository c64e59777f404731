// SPDX-License-Identifier: MIT
// ctxscope-cli ps: every process with its threads and switches per second, busiest first.
#include "commands.h"
#include "interrupt.h"

#include "ctxscope/process_list.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace ctxscope::cli {

namespace {

struct PsOptions {
    bool json = false;
};

constexpr double kSeconds = 1.0;

int run(const PsOptions& o)
{
    InterruptScope interrupt;
    auto list = sampleProcesses(kSeconds, interrupt.token());
    if (!list) {
        if (interrupt.requested())
            return kInterrupted;
        return badInput(list.error().message);
    }
    if (o.json) {
        fmt::print("{}\n", processesToJson(*list, kSeconds).dump(2));
        return kOk;
    }
    fmt::print("{:>8} {:>7} {:>10} {:>10}  {}\n", "PID", "threads", "vol/s", "invol/s", "command");
    for (const auto& p : *list)
        fmt::print("{:>8} {:>7} {:>10.0f} {:>10.0f}  {}{}\n", p.pid, p.threads, p.voluntaryPerS, p.involuntaryPerS,
            p.kernel ? "[" + p.name + "]" : p.name, p.own ? " *" : "");
    fmt::print(
        "Switches per second over {} s, busiest first; * marks your own processes, [name] kernel threads.\n", kSeconds);
    return kOk;
}

} // namespace

Command addPsCommand(CLI::App& app)
{
    auto c = subcommand<PsOptions>(app, "ps",
        "List running processes with their thread count and context switches per second over one second, busiest "
        "first");
    c.sub->add_flag("--json", c.options->json, "Print JSON instead of the table");
    return c.done(run);
}

} // namespace ctxscope::cli
