// SPDX-License-Identifier: MIT
// Demonstration programs for watching and re-pinning: threads that hand messages to each
// other or burn CPU, left unpinned, counting their work so a person sees what a placement
// does to it. Not benchmarks: nothing here times or pins anything.
#pragma once

#include "ctxscope/expected.h"

#include <cstdint>
#include <functional>
#include <memory>
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

// A workload running in this process's threads, unpinned, until stop() or destruction (both
// end and join its threads). runWorkload runs one; the live-placement lesson runs one while it
// watches and re-pins it.
class RunningWorkload {
public:
    // `threads` 0 takes the workload's default. Returns once every thread is running.
    static Expected<RunningWorkload> start(const std::string& name, int threads);
    RunningWorkload(RunningWorkload&&) noexcept;
    RunningWorkload& operator=(RunningWorkload&&) noexcept;
    ~RunningWorkload();

    const std::vector<WorkloadThread>& threads() const;
    std::uint64_t work() const; // units finished since start, every thread together
    void stop(); // idempotent

    struct State;

private:
    explicit RunningWorkload(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

// Runs a workload until `durationS` passes (0: until `stop`) or `stop` is requested, then
// stops and joins its threads. `threads` 0 takes the workload's default.
Status runWorkload(
    const std::string& name, int threads, double durationS, std::stop_token stop, const WorkloadCallbacks& callbacks);

} // namespace ctxscope
