// SPDX-License-Identifier: MIT
// Demonstration programs for watching and re-pinning: threads that hand messages to each
// other or burn CPU, left unpinned, counting their work so a person sees what a placement
// does to it. Not benchmarks: nothing here times or pins anything.
#pragma once

#include "ctxscope/expected.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

struct WorkloadInfo {
    std::string name;
    std::string description;
    std::string threadsMeaning; // what --threads N counts
    std::string unit; // what its work is counted in, plural: "round trips"
};

const std::vector<WorkloadInfo>& workloadList();
// "pingpong, pipeline, busy"
std::string workloadNameList();

struct WorkloadThread {
    long tid = 0;
    std::string name; // as the thread names itself (/proc/PID/task/TID/comm)
};

struct WorkloadTick {
    double seconds = 0; // since the threads started
    std::uint64_t work = 0; // units since the start
    double workPerS = 0; // over the last tick
};

struct WorkloadCallbacks {
    std::function<void(const std::vector<WorkloadThread>&)> started; // every thread is running
    std::function<void(const WorkloadTick&)> tick; // about once a second
};

// Runs a workload until `durationS` passes (0: until `stop`) or `stop` is requested, then
// stops and joins its threads. `threads` 0 takes the workload's default.
Status runWorkload(
    const std::string& name, int threads, double durationS, std::stop_token stop, const WorkloadCallbacks& callbacks);

} // namespace ctxscope
