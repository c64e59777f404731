// SPDX-License-Identifier: MIT
// A benchmark run on its own thread that a test stops, kills or waits for, and the long
// runs those tests start on this machine's first allowed PU.
#pragma once

#include "ctxscope/runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ctxscope::test {

using SteadyClock = std::chrono::steady_clock;

inline Topology& liveTopology()
{
    static Topology topology = [] {
        auto t = Topology::loadLive();
        EXPECT_TRUE(t.ok());
        return std::move(*t);
    }();
    return topology;
}

// A run far longer than any test waits for, all tasks on the first allowed CPU.
inline BenchSpec longRun(std::string bench, BenchMode mode)
{
    const int cpu = liveTopology().allowedPus().front();
    BenchSpec s;
    s.bench = std::move(bench);
    s.mode = mode;
    s.cpus = s.bench == "syscall" ? std::vector<int> { cpu } : std::vector<int> { cpu, cpu };
    if (s.bench == "ring") {
        s.cpus = { cpu };
        s.tasks = 3;
    }
    // Fixed iterations keep the calibration (the warm-up) down to about 10 ms, so the
    // measuring starts at once.
    s.iterations = kMaxIterations;
    s.repetitions = 3;
    return s;
}

class BackgroundRun {
public:
    explicit BackgroundRun(const BenchSpec& spec)
    {
        RunCallbacks callbacks;
        callbacks.progress = [this](const Progress& p) {
            if (p.stage == "measuring")
                m_measuring = true;
        };
        m_thread = std::jthread([this, spec, callbacks](std::stop_token stop) {
            auto r = runBenchmark(spec, liveTopology(), callbacks, stop);
            m_ended = SteadyClock::now();
            m_error = r.ok() ? "" : r.error().message;
            m_done = true;
        });
    }

    bool waitUntilMeasuring(std::chrono::milliseconds limit)
    {
        const auto until = SteadyClock::now() + limit;
        while (!m_measuring && !m_done && SteadyClock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return m_measuring && !m_done;
    }

    // Stops the run and returns how long it took to come back.
    std::chrono::microseconds stop()
    {
        const auto asked = SteadyClock::now();
        m_thread.request_stop();
        m_thread.join();
        return std::chrono::duration_cast<std::chrono::microseconds>(m_ended - asked);
    }

    // How long after `since` the run ended by itself; twice `limit` when it did not.
    std::chrono::milliseconds waitForEnd(std::chrono::milliseconds limit, SteadyClock::time_point since)
    {
        const auto until = SteadyClock::now() + limit;
        while (!m_done && SteadyClock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (!m_done)
            return limit * 2;
        m_thread.join();
        return std::chrono::duration_cast<std::chrono::milliseconds>(m_ended - since);
    }

    const std::string& error() const { return m_error; }

private:
    std::atomic<bool> m_measuring { false };
    std::atomic<bool> m_done { false };
    SteadyClock::time_point m_ended;
    std::string m_error;
    std::jthread m_thread;
};

} // namespace ctxscope::test
