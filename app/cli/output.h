// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ctxscope::cli {

// --json FILE|-, --csv FILE and --samples, shared by the measuring commands.
struct OutputOptions {
    std::string json;
    std::string csv;
    bool samples = false;

    void addTo(CLI::App* sub);
    // The human table goes to stdout unless the JSON does.
    bool tableOnStdout() const { return json != "-" && csv != "-"; }
};

// Writes text to a file, or to stdout for "-"; returns an exit code.
int writeText(const std::string& where, const std::string& text);

// Writes the JSON document and the CSV text where the options say; returns an exit code.
int writeOutputs(const OutputOptions& options, const nlohmann::json& document, const std::string& csv);

} // namespace ctxscope::cli
