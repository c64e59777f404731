// SPDX-License-Identifier: MIT
// What watching a busy program costs: a process of 1,000 sleeping threads (this one) watched
// at 2 Hz for 10 s, as `watch --interval 0.5` paces it. The watching thread's own CPU time
// (CLOCK_THREAD_CPUTIME_ID: every thread's stat, status, schedstat and sched, and /proc/stat,
// and the waits between) over the whole 10 s, as a share of one CPU; the median reading's CPU
// time beside it. Prints the load average, which the figure depends on. Goal: under 5%
// of one CPU.
// With --waking every thread wakes every 0.1 s (one switch and a few microseconds of CPU), so
// each runs in every interval and the watch cannot keep any thread's `sched` reading from the
// last (programs/snapshot.h): the worst case, reported beside the goal, not held to it.
// Usage: perf_watch [--waking] [--json FILE]. Exit status 0 when the goal holds, 1 when not, 2
// when it could not run. Never part of ctest.
#include "ctxscope/watch.h"
#include "perf_util.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ctxscope;

namespace {

constexpr int kThreads = 1000;
constexpr int kReadings = 20;
constexpr double kHz = 2;

double threadCpuNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

} // namespace

int main(int argc, char** argv)
{
    bool waking = false;
    std::string json;
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--waking")
            waking = true;
        else if (std::string_view(argv[i]) == "--json" && i + 1 < argc)
            json = argv[++i];
    }
    std::mutex mutex;
    std::condition_variable wake;
    bool leave = false;
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&] {
            std::unique_lock lock(mutex);
            if (waking)
                while (!wake.wait_for(lock, std::chrono::milliseconds(100), [&] { return leave; })) { }
            else
                wake.wait(lock, [&] { return leave; });
        });
    auto watch = ProcessWatch::start(::getpid());
    int status = 2;
    if (!watch) {
        fmt::print(stderr, "perf_watch: {}\n", watch.error().message);
    } else {
        std::vector<double> cpuMs;
        std::size_t seen = 0;
        using Clock = std::chrono::steady_clock;
        const auto begin = Clock::now();
        const double cpuBegin = threadCpuNs();
        for (int i = 0; i < kReadings; ++i) {
            std::this_thread::sleep_until(
                begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>((i + 1) / kHz)));
            const double before = threadCpuNs();
            auto sample = watch->next();
            cpuMs.push_back((threadCpuNs() - before) / 1e6);
            if (!sample) {
                fmt::print(stderr, "perf_watch: {}\n", sample.error().message);
                cpuMs.clear();
                break;
            }
            seen = sample->threads.size();
        }
        if (!cpuMs.empty()) {
            const double wallS = std::chrono::duration<double>(Clock::now() - begin).count();
            const double share = (threadCpuNs() - cpuBegin) / 1e9 / wallS;
            double load[3] = {};
            const bool loadKnown = ::getloadavg(load, 3) == 3;
            const std::string verdict = waking ? std::string("worst case, the goal is for sleeping threads")
                                               : fmt::format("goal < 5%: {}", share < 0.05 ? "met" : "MISSED");
            fmt::print("watch of {} threads ({}) at {} Hz for {:.1f} s: the watching thread used {:.2f}% of one CPU "
                       "({}); {:.2f} ms of CPU a reading (median of {}); load average {}\n",
                seen, waking ? "each waking every 0.1 s" : "sleeping", kHz, wallS, share * 100, verdict,
                perf::median(cpuMs), kReadings,
                loadKnown ? fmt::format("{:.2f} {:.2f} {:.2f}", load[0], load[1], load[2]) : std::string("unknown"));
            status = share < 0.05 || waking ? 0 : 1;
            if (!json.empty())
                std::ofstream(json) << nlohmann::json {
                    { "threads", seen }, { "waking", waking }, { "hz", kHz }, { "seconds", wallS }, { "share", share },
                    { "reading_cpu_ms", perf::median(cpuMs) }, { "goal", 0.05 }, { "load", load[0] }
                }.dump(2) << '\n';
        }
    }
    {
        std::lock_guard lock(mutex);
        leave = true;
    }
    wake.notify_all();
    for (auto& t : threads)
        t.join();
    return status;
}
