// SPDX-License-Identifier: MIT
// ctxscope-cli: argument parsing and printing only; everything it shows comes from the engine.
#include "commands.h"

#include "ctxscope/version.h"

#include <fmt/core.h>

#include <vector>

namespace ctxscope::cli {

int badInput(const std::string& message)
{
    fmt::print(stderr, "ctxscope-cli: {}\n", message);
    return kBadInput;
}

} // namespace ctxscope::cli

int main(int argc, char** argv)
{
    using namespace ctxscope::cli;
    CLI::App app { "ctxscope-cli: measure what a context switch costs on this machine, without a display.\n"
                   "CPU numbers are OS indices, as taskset uses them.",
        "ctxscope-cli" };
    app.set_version_flag("--version", std::string("ctxscope-cli ") + ctxscope::kVersion + ctxscope::kBuildNote);
    app.require_subcommand(1);
    app.footer("Exit status: 0 success, 1 a measurement failed, 2 bad input or usage, 130 interrupted.");

    const std::vector<Command> commands { addTopologyCommand(app), addSysinfoCommand(app), addRunCommand(app),
        addSweepCommand(app), addMatrixCommand(app), addLessonCommand(app), addTourCommand(app), addWorkerCommand(app),
        addPsCommand(app), addWatchCommand(app), addPinCommand(app), addWorkloadCommand(app), addCompareCommand(app),
        addSurveyCommand(app) };

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "ctxscope-cli: {}\nRun 'ctxscope-cli --help' for usage.\n", e.what());
        return kBadInput;
    }
    for (const auto& command : commands)
        if (command.sub->parsed())
            return command.run();
    return kBadInput;
}
