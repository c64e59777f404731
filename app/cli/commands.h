// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>

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
Command addCompareCommand(CLI::App& app);
Command addSurveyCommand(CLI::App& app);

// The usual command: CLI11 fills its options (a T shared with the run) and run(const T&) runs
// once parsed. subcommand<T>(app, name, description) makes it; .done(run) hands it back.
template <typename T> struct CommandWith {
    CLI::App* sub = nullptr;
    std::shared_ptr<T> options;
    Command done(int (*run)(const T&)) const
    {
        return { sub, [o = options, run] { return run(*o); } };
    }
};
template <typename T> CommandWith<T> subcommand(CLI::App& app, const std::string& name, const std::string& description)
{
    return { app.add_subcommand(name, description), std::make_shared<T>() };
}

// Prints "ctxscope-cli: <message>" on stderr and returns kBadInput.
int badInput(const std::string& message);

} // namespace ctxscope::cli
