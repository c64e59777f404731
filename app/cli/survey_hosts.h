// SPDX-License-Identifier: MIT
// survey --hosts: the survey on many machines over the system's ssh, N at a time, one card per
// host in a directory, each host's progress and failure (ssh's reason) as lines on stderr.
#pragma once

#include "ctxscope/bundle_push.h"

#include <optional>
#include <string>
#include <vector>

namespace ctxscope::cli {

struct HostsOptions {
    std::vector<std::string> hosts; // --hosts a,b and --hosts-file lines, in that order
    std::string outDir = ".";
    int parallel = 0; // 0: every host at once
    std::string remoteCli = "ctxscope-cli";
    double budgetSeconds = 0;
    std::optional<ssh::PushBundle> push; // --push: copied to each host and run there instead of remoteCli
};

// Why a destination cannot be one (ssh::hostProblem), as the CLI's sentence; none when it can.
std::optional<std::string> hostProblem(const std::string& host);
// The card's file name for a host: characters other than letters, digits, '.', '_', '@' and
// '-' become '_' ("lab-1" -> "lab-1.json").
std::string cardFileFor(const std::string& host);
// The hosts of a hosts file: one a line; blank lines and lines starting with '#' are skipped.
std::vector<std::string> hostsFromText(const std::string& text);
// Runs the hosts' surveys; returns the exit code (0 all succeeded, 1 some failed, 2 bad input,
// 130 interrupted: the finished cards stay).
int surveyHosts(const HostsOptions& options);

} // namespace ctxscope::cli
