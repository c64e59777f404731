// SPDX-License-Identifier: MIT
// `ctxscope-cli worker`: the engine behind the GUI, speaking NDJSON on stdin/stdout.
#include "bounded_line.h"
#include "commands.h"
#include "parent_death.h"

#include "ctxscope/protocol.h"
#include "ctxscope/worker.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <sys/prctl.h>

namespace ctxscope::cli {

namespace {

int runWorker()
{
    // The controller owns us: die with it, and treat a closed stdout as the end.
    if (!dieWithParent())
        return kOk;
    std::signal(SIGPIPE, SIG_IGN);
    auto topology = Topology::loadLive();
    if (!topology) {
        std::printf(
            "{\"type\":\"error\",\"id\":null,\"message\":\"%s\"}\n", "this machine's topology could not be read");
        return kMeasurementFailed;
    }
    bool outputBroken = false;
    WorkerSession session(std::move(*topology), [&outputBroken](const std::string& line) {
        if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size() || std::fputc('\n', stdout) == EOF
            || std::fflush(stdout) != 0)
            outputBroken = true;
    });
    session.sendHello();
    std::string line;
    bool quit = false;
    while (!quit && !outputBroken) {
        const auto read = readBoundedLine(std::cin, line, protocol::kMaxLineBytes);
        if (read.end)
            break;
        if (read.bytes > protocol::kMaxLineBytes)
            session.rejectLongLine(read.bytes);
        else
            quit = !session.handleLine(line);
    }
    session.finish(quit || outputBroken);
    return kOk;
}

} // namespace

Command addWorkerCommand(CLI::App& app)
{
    CLI::App* sub = app.add_subcommand("worker",
        "Serve the desktop app: newline-delimited JSON on stdin/stdout (docs/protocol.md describes it)");
    return { sub, [] { return runWorker(); } };
}

} // namespace ctxscope::cli
