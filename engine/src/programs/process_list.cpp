// SPDX-License-Identifier: MIT
#include "os/task_stat.h"

#include "ctxscope/process_list.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <unistd.h>

namespace ctxscope {

namespace {

struct Reading {
    ProcessActivity process; // rates unset: voluntaryPerS and involuntaryPerS hold the counts
    std::uint64_t starttime = 0;
};

// Every process now, by PID and start time (a reused PID is another process).
std::map<std::pair<long, std::uint64_t>, Reading> readAll()
{
    std::map<std::pair<long, std::uint64_t>, Reading> out;
    const long me = static_cast<long>(::getuid());
    for (const long pid : os::listProcesses()) {
        auto leader = os::readTaskStat(pid, pid);
        if (!leader)
            continue;
        Reading r;
        r.starttime = leader->starttime;
        r.process.pid = pid;
        r.process.name = leader->comm;
        r.process.kernel = leader->kernelThread();
        double voluntary = 0, involuntary = 0;
        for (const long tid : os::listTasks(pid)) {
            auto status = os::readTaskStatus(pid, tid);
            if (!status)
                continue;
            if (tid == pid)
                r.process.uid = status->uid;
            voluntary += static_cast<double>(status->voluntarySwitches);
            involuntary += static_cast<double>(status->involuntarySwitches);
            ++r.process.threads;
        }
        if (r.process.threads == 0)
            continue;
        r.process.own = r.process.uid == me;
        r.process.voluntaryPerS = voluntary;
        r.process.involuntaryPerS = involuntary;
        out.emplace(std::make_pair(pid, r.starttime), std::move(r));
    }
    return out;
}

} // namespace

Expected<std::vector<ProcessActivity>> sampleProcesses(double seconds, std::stop_token stop)
{
    if (!(seconds > 0))
        return makeError("the processes' sampling time must be more than 0 seconds");
    const auto before = readAll();
    const auto begin = std::chrono::steady_clock::now();
    {
        std::mutex mutex;
        std::condition_variable_any wake;
        std::unique_lock lock(mutex);
        wake.wait_for(lock, stop, std::chrono::duration<double>(seconds), [] { return false; });
    }
    if (stop.stop_requested())
        return makeError("stopped before the processes were sampled");
    auto after = readAll();
    const double span = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    std::vector<ProcessActivity> out;
    for (auto& [key, r] : after) {
        ProcessActivity p = std::move(r.process);
        const auto was = before.find(key);
        // A process that started in between: its counts are all from within the interval.
        const double v0 = was == before.end() ? 0 : was->second.process.voluntaryPerS;
        const double i0 = was == before.end() ? 0 : was->second.process.involuntaryPerS;
        p.voluntaryPerS = std::max(0.0, p.voluntaryPerS - v0) / span;
        p.involuntaryPerS = std::max(0.0, p.involuntaryPerS - i0) / span;
        out.push_back(std::move(p));
    }
    std::sort(out.begin(), out.end(), [](const ProcessActivity& a, const ProcessActivity& b) {
        return a.switchesPerS() != b.switchesPerS() ? a.switchesPerS() > b.switchesPerS() : a.pid < b.pid;
    });
    return out;
}

nlohmann::json processesToJson(const std::vector<ProcessActivity>& processes, double seconds)
{
    auto list = nlohmann::json::array();
    for (const auto& p : processes)
        list.push_back({ { "pid", p.pid }, { "name", p.name }, { "uid", p.uid }, { "own", p.own },
            { "kernel", p.kernel }, { "threads", p.threads }, { "voluntary_per_s", p.voluntaryPerS },
            { "involuntary_per_s", p.involuntaryPerS } });
    return { { "type", "processes" }, { "interval_s", seconds }, { "processes", list } };
}

} // namespace ctxscope
