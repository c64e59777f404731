// SPDX-License-Identifier: MIT
// Starting a job on its own thread and stopping it after a delay, timing how long the stop
// took; and the percentiles a soak prints.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace ctxscope::test {

struct Cancelled {
    std::chrono::microseconds latency { 0 }; // from the stop request to the job's return
    std::string error; // what the job returned ("" for success)
};

// The job returns its error message, or "" when it finished.
inline Cancelled cancelAfter(std::chrono::microseconds delay, const std::function<std::string(std::stop_token)>& job)
{
    using Clock = std::chrono::steady_clock;
    Cancelled out;
    Clock::time_point ended;
    std::jthread thread([&](std::stop_token stop) {
        out.error = job(stop);
        ended = Clock::now();
    });
    std::this_thread::sleep_for(delay);
    const auto asked = Clock::now();
    thread.request_stop();
    thread.join();
    out.latency
        = std::max(std::chrono::microseconds(0), std::chrono::duration_cast<std::chrono::microseconds>(ended - asked));
    return out;
}

struct LatencySummary {
    double p50Ms = 0;
    double p99Ms = 0;
    double maxMs = 0;
};

inline LatencySummary summarize(std::vector<std::chrono::microseconds> latencies)
{
    LatencySummary s;
    if (latencies.empty())
        return s;
    std::sort(latencies.begin(), latencies.end());
    const auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(q * static_cast<double>(latencies.size() - 1) + 0.5);
        return static_cast<double>(latencies[i].count()) / 1000.0;
    };
    s.p50Ms = at(0.5);
    s.p99Ms = at(0.99);
    s.maxMs = at(1.0);
    return s;
}

} // namespace ctxscope::test
