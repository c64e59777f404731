// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace ctxscope::cli {

// Exit codes every command keeps.
enum ExitCode : int { kOk = 0, kMeasurementFailed = 1, kBadInput = 2, kInterrupted = 130 };

// Each command adds its subcommand to the app and returns it with what runs it once parsed.
struct Command {
    CLI::App* sub = nullptr;
    std::function<int()> run;
};

Command addTopologyCommand(CLI::App& app);
Command addTourCommand(CLI::App& app);
Command addSysinfoCommand(CLI::App& app);
Command addWorkerCommand(CLI::App& app);
Command addLessonCommand(CLI::App& app);
Command addMatrixCommand(CLI::App& app);
Command addRunCommand(CLI::App& app);
Command addSweepCommand(CLI::App& app);
Command addPsCommand(CLI::App& app);
Command addWatchCommand(CLI::App& app);
Command addPinCommand(CLI::App& app);
Command addWorkloadCommand(CLI::App& app);

// Prints "ctxscope-cli: <message>" on stderr and returns kBadInput.
int badInput(const std::string& message);

} // namespace ctxscope::cli
