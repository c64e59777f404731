// SPDX-License-Identifier: MIT
// Lost wake-ups: 10,000 tiny runs, each stopped at a random point of its life (before the
// threads start, while they pin, calibrate, measure, self-check or join). A stop that lands
// where a task is about to sleep and is never woken would hang the run: a watchdog turns
// any run that takes over 5 s into a failure instead of a hung test.
#include "background_run.h"
#include "cancel_after.h"
#include "proc_helpers.h"
#include "seed.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <random>

using namespace ctxscope;
using namespace std::chrono_literals;
using test::SteadyClock;

namespace {

constexpr int kCancels = 10'000;

BenchSpec tinyRun(const char* bench, BenchMode mode)
{
    BenchSpec s = test::longRun(bench, mode);
    s.iterations = 10; // a run is then mostly its setup and teardown, where stops are trickiest
    s.repetitions = 1;
    return s;
}

std::string runSpec(const BenchSpec& spec, std::stop_token stop)
{
    auto r = runBenchmark(spec, test::liveTopology(), {}, std::move(stop));
    return r ? std::string() : r.error().message;
}

// Ends the process when a cycle runs past the limit: a hang becomes a failure with a reason.
class Watchdog {
public:
    explicit Watchdog(std::chrono::seconds limit)
        : m_thread([this, limit](std::stop_token stop) {
            while (!stop.stop_requested()) {
                std::this_thread::sleep_for(50ms);
                const auto started = m_started.load();
                if (started != 0
                    && SteadyClock::now().time_since_epoch().count() - started
                        > std::chrono::nanoseconds(limit).count()) {
                    std::fprintf(stderr, "HANG: cycle %d (%s) did not end within %lld s\n", m_cycle.load(),
                        m_what.load(), static_cast<long long>(limit.count()));
                    std::fflush(stderr);
                    std::_Exit(1);
                }
            }
        })
    {
    }
    void begin(int cycle, const char* what)
    {
        m_cycle = cycle;
        m_what = what;
        m_started = SteadyClock::now().time_since_epoch().count();
    }
    void end() { m_started = 0; }

private:
    std::atomic<long long> m_started { 0 };
    std::atomic<int> m_cycle { 0 };
    std::atomic<const char*> m_what { "" };
    std::jthread m_thread;
};

} // namespace

TEST(LostWakeups, TenThousandCancelsAtRandomPointsNeverHang)
{
    struct Case {
        const char* name;
        BenchSpec spec;
        std::chrono::microseconds typical { 0 }; // how long the run takes when left alone
    };
    std::vector<Case> cases = {
        { "futex thread", tinyRun("futex", BenchMode::Thread) },
        { "futex process", tinyRun("futex", BenchMode::Process) },
        { "pipe thread", tinyRun("pipe", BenchMode::Thread) },
        { "pipe process", tinyRun("pipe", BenchMode::Process) },
    };
    for (Case& c : cases) {
        std::vector<std::chrono::microseconds> durations;
        for (int i = 0; i < 5; ++i) {
            const auto start = SteadyClock::now();
            ASSERT_EQ(runSpec(c.spec, {}), "") << c.name;
            durations.push_back(std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start));
        }
        std::sort(durations.begin(), durations.end());
        c.typical = durations[2];
        std::printf("%s: a whole tiny run takes %lld us\n", c.name, static_cast<long long>(c.typical.count()));
    }
    std::mt19937 random(test::seed());
    Watchdog watchdog(5s); // its thread is part of the baseline
    const int threads = test::threadCount();
    const int fds = test::fdCount();
    int cancelled = 0;
    int finished = 0;
    std::vector<std::chrono::microseconds> latencies;
    latencies.reserve(kCancels);
    for (int cycle = 0; cycle < kCancels; ++cycle) {
        const Case& c = cases[static_cast<std::size_t>(cycle) % cases.size()];
        // Anywhere from before the start to just after the usual end.
        std::uniform_int_distribution<long long> at(0, c.typical.count() * 11 / 10);
        watchdog.begin(cycle, c.name);
        const std::chrono::microseconds delay(at(random));
        const auto r
            = test::cancelAfter(delay, [&c](std::stop_token stop) { return runSpec(c.spec, std::move(stop)); });
        watchdog.end();
        latencies.push_back(r.latency);
        if (r.error.empty())
            ++finished;
        else if (r.error == "the run was cancelled")
            ++cancelled;
        else
            ADD_FAILURE() << c.name << ", cycle " << cycle << ", stopped after " << delay.count() << " us: " << r.error;
    }
    const auto s = test::summarize(latencies);
    std::printf("%d stops: %d cancelled a run, %d came after it ended; stop latency p50 %.2f ms, p99 %.2f ms, max "
                "%.2f ms; no hang\n",
        kCancels, cancelled, finished, s.p50Ms, s.p99Ms, s.maxMs);
    // A good share of the stops must land inside a run to test anything. Not "most": a run
    // left alone after the warm-up is often quicker than the typical time measured above, and
    // starting the stopping thread takes time too.
    EXPECT_GT(cancelled, kCancels / 4) << "the stops came too late to test cancelling";
    EXPECT_EQ(test::settledThreadCount(threads), threads);
    EXPECT_EQ(test::fdCount(), fds);
    EXPECT_TRUE(test::childPids().empty());
}
