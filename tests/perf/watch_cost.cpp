// SPDX-License-Identifier: MIT
// What watching a busy program costs: a process of 1,000 sleeping threads (this one) watched
// at 2 Hz. Times the CPU time of the watcher's readings (every thread's stat, status,
// schedstat and sched, and /proc/stat) over 20 of them, and gives the share of one CPU that
// two readings a second take. Goal (issue #19): under 5% of one CPU.
// Exit status 0 when the goal holds, 1 when not, 2 when it could not run. Never part of ctest.
#include "ctxscope/watch.h"
#include "perf_util.h"

#include <fmt/core.h>

#include <condition_variable>
#include <ctime>
#include <mutex>
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

int main()
{
    std::mutex mutex;
    std::condition_variable wake;
    bool leave = false;
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&] {
            std::unique_lock lock(mutex);
            wake.wait(lock, [&] { return leave; });
        });
    auto watch = ProcessWatch::start(::getpid());
    int status = 2;
    if (!watch) {
        fmt::print(stderr, "perf_watch: {}\n", watch.error().message);
    } else {
        std::vector<double> cpuMs;
        std::size_t seen = 0;
        for (int i = 0; i < kReadings; ++i) {
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
            const double ms = perf::median(cpuMs);
            const double share = ms * kHz / 1000;
            fmt::print("watch of {} threads: {:.2f} ms of CPU a reading (median of {}), at {} Hz {:.2f}% of one CPU "
                       "(goal < 5%): {}\n",
                seen, ms, kReadings, kHz, share * 100, share < 0.05 ? "met" : "MISSED");
            status = share < 0.05 ? 0 : 1;
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
