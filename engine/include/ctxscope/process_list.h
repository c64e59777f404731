// SPDX-License-Identifier: MIT
// Every running process with its thread count and switch rates, for choosing one to watch.
#pragma once

#include "ctxscope/expected.h"

#include <nlohmann/json_fwd.hpp>

#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

struct ProcessActivity {
    long pid = 0;
    std::string name;
    long uid = -1;
    bool own = false; // run by the user who runs this tool
    bool kernel = false; // a kernel thread ([kworker/0:1])
    int threads = 0;
    double voluntaryPerS = 0; // summed over its threads (a thread that ended in between lowers it; never below 0)
    double involuntaryPerS = 0;
    double switchesPerS() const { return voluntaryPerS + involuntaryPerS; }
};

// Reads every process twice, `seconds` apart, and orders them busiest first (switches per
// second, then PID). A stop request during the wait gives an error.
Expected<std::vector<ProcessActivity>> sampleProcesses(double seconds, std::stop_token stop);

// {"type": "processes", "interval_s": ..., "processes": [{"pid", "name", "uid", "own", "kernel",
// "threads", "voluntary_per_s", "involuntary_per_s"}, ...]}
nlohmann::json processesToJson(const std::vector<ProcessActivity>& processes, double seconds);

} // namespace ctxscope
