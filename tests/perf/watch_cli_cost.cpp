// SPDX-License-Identifier: MIT
// What `ctxscope-cli watch PID [--trace]` costs, as a user runs it, on a program of 1,000 threads
// that each wake every 100 ms (`ctxscope-cli workload sleepers --threads 1000`): the whole watch
// process's user + system time (wait4's rusage) over its wall time, from fork to exit (its start
// included: opening the trace and the first reading), at the default interval and text output
// (to /dev/null), over 30 s: a watch runs for a while. Goals: < 1% of one CPU with --trace,
// < 5% without.
// Beside it, what the watch costs the watched program: the program's own CPU time
// (clock_getcpuclockid) while nobody watches it, while a watch reads /proc, and while a watch
// also traces it; the difference of the last two is the tracepoints' cost inside the program,
// stated per wake-up. Rounds alternate the order of the two watches.
// Usage: perf_watch_cli CLI [--seconds 30] [--rounds 3] [--threads 1000] [--json FILE]
// Exit status 0 when both goals hold, 1 when one does not, 2 when it could not run. Never part
// of ctest.
#include "perf_util.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using ctxscope::perf::load1;
using ctxscope::perf::median;
using ctxscope::perf::nowNs;
using ctxscope::perf::processCpuNs;

namespace {

struct Options {
    std::string cli;
    double seconds = 30;
    int rounds = 3;
    int threads = 1000;
    std::string json;
};

// Starts CLI ARGS with stdout to /dev/null and stderr to `log`; -1 when fork fails.
pid_t spawn(const std::vector<std::string>& args, const std::string& log)
{
    const pid_t pid = ::fork();
    if (pid != 0)
        return pid;
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (null >= 0)
        ::dup2(null, STDOUT_FILENO);
    if (err >= 0)
        ::dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
}

std::size_t threadCount(pid_t pid)
{
    std::error_code ec;
    std::size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid), ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return n;
}

struct Window {
    double watchShare = 0; // the watch process's CPU over its wall time (0 for the unwatched window)
    double programShare = 0; // the watched program's CPU over the same wall time
    double seconds = 0;
    bool ok = true;
};

// One watch of the program (or, with no watch, the program alone for as long), from fork to reap.
Window measure(const Options& o, pid_t program, std::optional<bool> trace, const std::string& log)
{
    Window w;
    const auto cpuBefore = processCpuNs(program);
    const double begin = nowNs();
    if (!trace) {
        std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    } else {
        std::vector<std::string> args { o.cli, "watch", std::to_string(program), "--duration",
            fmt::format("{}", o.seconds) };
        if (*trace)
            args.emplace_back("--trace");
        const pid_t watch = spawn(args, log);
        int status = 0;
        rusage usage {};
        if (watch < 0 || ::wait4(watch, &status, 0, &usage) != watch || !WIFEXITED(status)
            || WEXITSTATUS(status) != 0) {
            w.ok = false;
            return w;
        }
        const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9
            + static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3;
        w.watchShare = cpu / (nowNs() - begin);
    }
    w.seconds = (nowNs() - begin) / 1e9;
    const auto cpuAfter = processCpuNs(program);
    if (!cpuBefore || !cpuAfter) {
        w.ok = false;
        return w;
    }
    w.programShare = (*cpuAfter - *cpuBefore) / 1e9 / w.seconds;
    return w;
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--seconds" && value)
            o.seconds = std::atof(argv[++i]);
        else if (a == "--rounds" && value)
            o.rounds = std::atoi(argv[++i]);
        else if (a == "--threads" && value)
            o.threads = std::atoi(argv[++i]);
        else if (a == "--json" && value)
            o.json = argv[++i];
        else
            o.cli = a;
    }
    return o;
}

nlohmann::json sideJson(const std::vector<double>& shares)
{
    return { { "share", median(shares) }, { "rounds", shares } };
}

} // namespace

int main(int argc, char** argv)
{
    const Options o = parse(argc, argv);
    if (o.cli.empty() || o.seconds <= 0 || o.rounds < 1 || o.threads < 1) {
        fmt::print(stderr, "usage: perf_watch_cli CLI [--seconds 30] [--rounds 3] [--threads 1000] [--json FILE]\n");
        return 2;
    }
    const std::string log = o.json.empty() ? std::string("/dev/null") : o.json + ".log";
    const pid_t program = spawn({ o.cli, "workload", "sleepers", "--threads", std::to_string(o.threads) }, log);
    if (program < 0)
        return 2;
    // Its threads started (the main thread and one per sleeper), then a second to settle.
    for (int i = 0; i < 100 && threadCount(program) < static_cast<std::size_t>(o.threads) + 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const std::size_t threads = threadCount(program);
    std::vector<double> watchShares, tracedShares, alone, watched, traced;
    std::vector<double> loads;
    bool traceRan = true;
    bool ok = threads >= static_cast<std::size_t>(o.threads);
    for (int round = 0; ok && round < o.rounds; ++round) {
        const Window idle = measure(o, program, std::nullopt, log);
        ok = idle.ok;
        alone.push_back(idle.programShare);
        for (const bool trace : { round % 2 != 0, round % 2 == 0 }) {
            if (!ok || (trace && !traceRan))
                continue;
            const Window w = measure(o, program, trace, log);
            if (!w.ok) {
                // Without tracefs (not root) the traced watch exits 2: the /proc figure stands alone.
                if (trace)
                    traceRan = false;
                else
                    ok = false;
                continue;
            }
            (trace ? tracedShares : watchShares).push_back(w.watchShare);
            (trace ? traced : watched).push_back(w.programShare);
            fmt::print("round {} watch{}: the watch used {:.2f}% of one CPU over {:.1f} s; the program {:.2f}% "
                       "(alone {:.2f}%); load average {:.2f}\n",
                round + 1, trace ? " --trace" : "", w.watchShare * 100, w.seconds, w.programShare * 100,
                idle.programShare * 100, load1());
        }
        loads.push_back(load1());
    }
    ::kill(program, SIGTERM);
    ::waitpid(program, nullptr, 0);
    if (!ok || watchShares.empty()) {
        fmt::print(stderr, "perf_watch_cli: the workload or the watch did not run (see {})\n", log);
        return 2;
    }
    const double wakesPerS = static_cast<double>(o.threads) * 10;
    nlohmann::json report = {
        { "threads", o.threads },
        { "wakes_per_s", wakesPerS },
        { "seconds", o.seconds },
        { "rounds", o.rounds },
        { "output", "text to /dev/null" },
        { "watch", sideJson(watchShares) },
        { "program_alone", sideJson(alone) },
        { "program_watched", sideJson(watched) },
        { "load", median(loads) },
        { "goal_watch", 0.05 },
        { "goal_watch_trace", 0.01 },
    };
    fmt::print("watch of {} threads each waking every 0.1 s, {} s, median of {} rounds: {:.2f}% of one CPU (goal < 5%: "
               "{})",
        o.threads, o.seconds, watchShares.size(), median(watchShares) * 100,
        median(watchShares) < 0.05 ? "met" : "MISSED");
    bool met = median(watchShares) < 0.05;
    if (!tracedShares.empty()) {
        const double extra = median(traced) - median(watched);
        report["watch_trace"] = sideJson(tracedShares);
        report["program_traced"] = sideJson(traced);
        report["tracepoints_share"] = extra;
        report["tracepoints_ns_per_wake"] = extra * 1e9 / wakesPerS;
        fmt::print("; with --trace {:.2f}% (goal < 1%: {})", median(tracedShares) * 100,
            median(tracedShares) < 0.01 ? "met" : "MISSED");
        fmt::print("\nthe program used {:.2f}% of one CPU alone, {:.2f}% watched, {:.2f}% watched with --trace: the "
                   "tracepoints cost it {:+.2f}% of one CPU, {:+.0f} ns a wake-up",
            median(alone) * 100, median(watched) * 100, median(traced) * 100, extra * 100, extra * 1e9 / wakesPerS);
        met = met && median(tracedShares) < 0.01;
    } else {
        fmt::print("; --trace could not run (tracefs needs root)");
    }
    fmt::print("; load average {:.2f}\n", median(loads));
    if (!o.json.empty())
        std::ofstream(o.json) << report.dump(2) << '\n';
    return met ? 0 : 1;
}
