// SPDX-License-Identifier: MIT
// The text tour that `packaging/dev.sh run` shows on a machine without a display: where
// tasks can run, what may distort the numbers, then every lesson, measured just now.
#include "commands.h"
#include "lesson_print.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology_report.h"

#include <fmt/core.h>

namespace ctxscope::cli {

namespace {

int run(double minTime)
{
    fmt::print("ctxscope tour: what a context switch costs on this machine\n\n");
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    fmt::print("Where tasks can run\n\n{}\n", describeTopology(*topology));
    const SysInfo sys = readSysInfo();
    fmt::print("Measurement conditions: {}, kernel {}, clocksource {}\n", sys.cpuModel, sys.kernel, sys.clocksource);
    for (const std::string& w : machineWarnings(sys))
        fmt::print("  warning: {}\n", w);
    if (const std::string caches = checkCaches(*topology).sentence(); !caches.empty())
        fmt::print("  warning: {}\n", caches);
    fmt::print("\n");
    int status = kOk;
    for (const LessonInfo& l : lessons()) {
        const int s = runAndPrintLesson(std::string(l.id), RunBudget { minTime, 3 });
        if (s == kInterrupted)
            return s;
        if (s != kOk)
            status = s;
    }
    fmt::print("Run one lesson again with more time: ctxscope-cli lesson NAME --min-time 1\n");
    return status;
}

} // namespace

Command addTourCommand(CLI::App& app)
{
    auto minTime = std::make_shared<double>(0.05);
    CLI::App* sub
        = app.add_subcommand("tour", "A guided text tour: the topology, then every lesson measured on this machine");
    sub->add_option("--min-time", *minTime, "Seconds per repetition of each experiment")->capture_default_str();
    return { sub, [minTime] { return run(*minTime); } };
}

} // namespace ctxscope::cli
