// SPDX-License-Identifier: MIT
// The text tour that `packaging/dev.sh run` shows on a machine without a display. It grows
// with the engine: each section prints only what the engine measured or read just now.
#include "commands.h"

#include "ctxscope/placement.h"
#include "ctxscope/topology_report.h"

#include <fmt/core.h>

namespace ctxscope::cli {

namespace {

int run()
{
    fmt::print("ctxscope tour: what a context switch costs on this machine\n\n");
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    fmt::print("1. Where tasks can run\n\n{}\n", describeTopology(*topology));
    return kOk;
}

} // namespace

Command addTourCommand(CLI::App& app)
{
    CLI::App* sub = app.add_subcommand("tour", "A guided text tour of the main results on this machine");
    return { sub, [] { return run(); } };
}

} // namespace ctxscope::cli
