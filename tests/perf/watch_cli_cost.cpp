// SPDX-License-Identifier: MIT
// What `ctxscope-cli watch PID` costs with each backend, as a user runs it, on a program of
// 1,000 threads that each wake every 100 ms (`ctxscope-cli workload sleepers --threads 1000`),
// beside the peers run on the same program: the whole observer's user + system time (wait4's
// rusage, its waited-for children included) over its wall time, from fork to exit (its start
// included: loading the BPF programs, opening the trace, the first reading; and its summary).
// For a ctxscope watch, also its CPU while it runs (the whole process's CPU clock, from 2 s
// after its start to 1 s before its end) and what it spent beyond that once, in ms: a watch runs
// for a while, and its start's share shrinks with the window. Observers, in an order that
// rotates each round:
//   watch --backend proc, --backend ftrace, --backend bpf: at --interval (default 1 s), text to
//     /dev/null, or with --json-lines every thread's JSON line (watch --json -) to /dev/null;
//   with --peers: `pidstat -w -t -p PID 1` (sysstat), `runqlat -L -p PID 1` (libbpf-tools),
//     and `perf sched record` of the window followed by `perf sched timehist` of its file.
// With --stopped the program is stopped (SIGSTOP) once its threads have started, for the
// whole run: the watch still reads, compares and writes every thread each interval, with
// nothing competing for the CPUs and no scheduler figures to count (a diagnosis of a crowded
// machine's figure, with no goal; the program's side is then nothing).
// With --realtime each ctxscope watch runs at SCHED_FIFO priority 1 (the peers as they are): on
// a machine whose CPUs the program takes whole (10,000 sleepers on two vCPUs keep thousands of
// tasks runnable), a watch at the normal priority is one task in that queue and waits most of
// its window; at real-time priority its window is its work, which is what it costs.
// Goals, on a watch's CPU while it runs: bpf < 1% of one CPU, ftrace < 1%, proc < 5%; with
// 10,000 threads or more, bpf < 3% (issue 40's goal there is the cheapest backend's). A watch
// that took more than 1.5 times its duration from start to end was starved of CPU (a crowded
// machine): it is reported so, with no share, and its goal is not met.
// Beside it, what each observer costs the watched program: the program's own CPU time
// (clock_getcpuclockid) while nobody watches it and during each observer; the difference is
// the probes' cost inside the program. Per wake-up it is the program's CPU per wake-up while
// watched less its CPU per wake-up alone, each from the wake-ups it made in those windows (the
// counts it prints each second): a sleeper that wakes a period or more late skips the periods it
// missed, so a crowded machine makes fewer than 10 a second, and fewer in one window than in
// another.
// Usage: perf_watch_cli CLI [--seconds 30] [--rounds 3] [--threads 1000] [--interval 1]
//        [--json-lines] [--backends proc,ftrace,bpf] [--peers] [--stopped] [--realtime] [--json FILE]
// Exit status 0 when every goal holds, 1 when one does not, 2 when it could not run. Never
// part of ctest.
#include "perf_util.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sched.h>
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
    double interval = 1;
    bool jsonLines = false;
    std::vector<std::string> backends { "proc", "ftrace", "bpf" };
    bool peers = false;
    bool stopped = false;
    bool realtime = false;
    std::string json;
};

// One observer: what it is called in the report and the command that runs it for `seconds`.
struct Observer {
    std::string name;
    std::vector<std::string> args;
    double goal = 0; // its goal as a share of one CPU while it runs; 0: none
    bool ours = false; // a ctxscope watch: its share while it runs is measured apart from its start and end
};

std::vector<Observer> observers(const Options& o, pid_t program, const std::string& scratch)
{
    std::vector<Observer> out;
    const std::string pid = std::to_string(program);
    const std::string seconds = fmt::format("{}", o.seconds);
    const auto whole = std::to_string(static_cast<int>(o.seconds));
    for (const std::string& b : o.backends) {
        std::vector<std::string> args { o.cli, "watch", pid, "--backend", b, "--duration", seconds, "--interval",
            fmt::format("{}", o.interval) };
        if (o.jsonLines) {
            args.emplace_back("--json");
            args.emplace_back("-");
        }
        const double goal = o.stopped ? 0 : o.threads >= 10000 ? (b == "bpf" ? 0.03 : 0) : b == "proc" ? 0.05 : 0.01;
        out.push_back({ "watch_" + b, args, goal, true });
    }
    if (o.peers) {
        out.push_back({ "pidstat", { "/usr/bin/pidstat", "-w", "-t", "-p", pid, "1", whole }, 0 });
        out.push_back({ "runqlat", { "/usr/sbin/runqlat", "-L", "-p", pid, "1", whole }, 0 });
        out.push_back({ "perf_sched",
            { "/bin/sh", "-c",
                fmt::format("perf sched record -q -o {0} -- sleep {1} >/dev/null 2>&1 && perf sched timehist -i {0} "
                            ">/dev/null 2>&1; rm -f {0}",
                    scratch + "/perf-sched.data", seconds) },
            0 });
    }
    return out;
}

// Starts CLI ARGS with stdout to `out` and stderr to `log`, at SCHED_FIFO priority 1 when
// `realtime` (exit status 126, the reason in `log`, where it may not); -1 when fork fails.
pid_t spawn(const std::vector<std::string>& args, const std::string& log, const std::string& out = "/dev/null",
    bool realtime = false)
{
    const pid_t pid = ::fork();
    if (pid != 0)
        return pid;
    const int stdOut = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (stdOut >= 0)
        ::dup2(stdOut, STDOUT_FILENO);
    if (err >= 0)
        ::dup2(err, STDERR_FILENO);
    sched_param fifo {};
    fifo.sched_priority = 1;
    if (realtime && ::sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
        const std::string why = fmt::format("perf_watch_cli: SCHED_FIFO refused: {}\n", std::strerror(errno));
        (void)!::write(STDERR_FILENO, why.data(), why.size());
        ::_exit(126);
    }
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

// The workload's last tick in its output `path` ("  12.0 s  10000 wake-ups/s  (120000 in all)"):
// its seconds since it started and its work in all; nullopt before its first.
std::optional<std::pair<double, double>> lastTick(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::optional<std::pair<double, double>> last;
    while (std::getline(in, line)) {
        const auto open = line.rfind('(');
        const auto s = line.find(" s ");
        if (open == std::string::npos || s == std::string::npos || line.find(" in all)", open) == std::string::npos)
            continue;
        last = std::make_pair(std::atof(line.substr(0, s).c_str()), std::atof(line.substr(open + 1).c_str()));
    }
    return last;
}

struct Window {
    double watchShare = 0; // the watch process's CPU over its wall time (0 for the unwatched window)
    // Ours: its CPU from `kSettle` after its start to `kBeforeEnd` before its end, over that time;
    // and its CPU beyond that share over its whole wall time (its start and summary), in ms.
    double runningShare = -1;
    double onceMs = -1;
    double programShare = 0; // the watched program's CPU over the same wall time
    double wakesPerS = 0; // the wake-ups the program counted over its ticks in the window; 0 when unknown
    double seconds = 0;
    bool ok = true;
};

// Where a watch's running share is measured: from this long after its start to this long
// before its end (it starts sampling at once; its summary comes at the end).
constexpr double kSettle = 2;
constexpr double kBeforeEnd = 1;
// A watch that took longer than this many times its duration, from its start to its end, was
// starved (its start, its first reading, waited in the run queue).
constexpr double kStarved = 1.5;

// One observer of the program (or, with none, the program alone for as long), from fork to reap.
Window measure(
    const Options& o, pid_t program, const std::string& ticks, const Observer* observer, const std::string& log)
{
    Window w;
    const auto tickBefore = lastTick(ticks);
    const auto cpuBefore = processCpuNs(program);
    const double begin = nowNs();
    if (observer == nullptr) {
        std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    } else {
        const pid_t watch = spawn(observer->args, log, "/dev/null", o.realtime && observer->ours);
        // A watch's start (BTF, the verifier, the first read of every thread) and its summary cost
        // once, whatever the window: its CPU between two marks inside the window is what it costs
        // while it runs.
        if (observer->ours && watch > 0 && o.seconds > kSettle + kBeforeEnd + 1) {
            const auto at = [&](double s) {
                std::this_thread::sleep_for(std::chrono::duration<double>(s - (nowNs() - begin) / 1e9));
                return std::make_pair(nowNs(), processCpuNs(watch));
            };
            const auto [t0, c0] = at(kSettle);
            const auto [t1, c1] = at(o.seconds - kBeforeEnd);
            if (c0 && c1)
                w.runningShare = (*c1 - *c0) / (t1 - t0);
        }
        int status = 0;
        rusage usage {};
        if (watch < 0 || ::wait4(watch, &status, 0, &usage) != watch || !WIFEXITED(status)
            || WEXITSTATUS(status) != 0) {
            w.ok = false;
            return w;
        }
        const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9
            + static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3;
        const double wall = nowNs() - begin;
        w.watchShare = cpu / wall;
        if (w.runningShare >= 0)
            w.onceMs = std::max(0.0, cpu - w.runningShare * wall) / 1e6;
    }
    w.seconds = (nowNs() - begin) / 1e9;
    const auto cpuAfter = processCpuNs(program);
    if (!cpuBefore || !cpuAfter) {
        w.ok = false;
        return w;
    }
    w.programShare = (*cpuAfter - *cpuBefore) / 1e9 / w.seconds;
    const auto tickAfter = lastTick(ticks);
    if (tickBefore && tickAfter && tickAfter->first > tickBefore->first)
        w.wakesPerS = (tickAfter->second - tickBefore->second) / (tickAfter->first - tickBefore->first);
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
        else if (a == "--interval" && value)
            o.interval = std::atof(argv[++i]);
        else if (a == "--json-lines")
            o.jsonLines = true;
        else if (a == "--peers")
            o.peers = true;
        else if (a == "--stopped")
            o.stopped = true;
        else if (a == "--realtime")
            o.realtime = true;
        else if (a == "--backends" && value) {
            o.backends.clear();
            std::string list = argv[++i];
            for (std::size_t at = 0; at <= list.size();) {
                const std::size_t comma = std::min(list.find(',', at), list.size());
                if (comma > at)
                    o.backends.push_back(list.substr(at, comma - at));
                at = comma + 1;
            }
        } else if (a == "--json" && value)
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
    if (o.cli.empty() || o.seconds <= 0 || o.rounds < 1 || o.threads < 1 || o.interval <= 0) {
        fmt::print(stderr,
            "usage: perf_watch_cli CLI [--seconds 30] [--rounds 3] [--threads 1000] [--interval 1] [--json-lines] "
            "[--backends proc,ftrace,bpf] [--peers] [--stopped] [--realtime] [--json FILE]\n");
        return 2;
    }
    const std::string log = o.json.empty() ? std::string("/dev/null") : o.json + ".log";
    const std::string scratch = std::filesystem::temp_directory_path().string();
    // The workload's ticks (its wake-ups each second) go to a file read at each window's ends.
    const std::string ticks = fmt::format("{}/perf_watch_cli-{}.ticks", scratch, ::getpid());
    const pid_t program = spawn({ o.cli, "workload", "sleepers", "--threads", std::to_string(o.threads) }, log, ticks);
    if (program < 0)
        return 2;
    // Its threads started (the main thread and one per sleeper), then a second to settle.
    for (int i = 0; i < 600 && threadCount(program) < static_cast<std::size_t>(o.threads) + 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const std::size_t threads = threadCount(program);
    if (o.stopped)
        ::kill(program, SIGSTOP);
    const std::vector<Observer> list = observers(o, program, scratch);
    std::map<std::string, std::vector<double>> shares, programShares, running, once, wakes, nsPerWake, walls;
    std::set<std::string> failed;
    std::vector<double> alone, aloneWakes, aloneNsPerWake, loads;
    bool ok = threads >= static_cast<std::size_t>(o.threads);
    for (int round = 0; ok && round < o.rounds; ++round) {
        const Window idle = measure(o, program, ticks, nullptr, log);
        ok = idle.ok;
        alone.push_back(idle.programShare);
        aloneWakes.push_back(idle.wakesPerS);
        if (idle.wakesPerS > 0)
            aloneNsPerWake.push_back(idle.programShare * 1e9 / idle.wakesPerS);
        for (std::size_t k = 0; ok && k < list.size(); ++k) {
            const Observer& observer = list[(k + static_cast<std::size_t>(round)) % list.size()];
            if (failed.contains(observer.name))
                continue;
            const Window w = measure(o, program, ticks, &observer, log);
            if (!w.ok) { // not allowed here (ftrace or BPF without root), or a peer missing
                failed.insert(observer.name);
                continue;
            }
            shares[observer.name].push_back(w.watchShare);
            programShares[observer.name].push_back(w.programShare);
            wakes[observer.name].push_back(w.wakesPerS);
            walls[observer.name].push_back(w.seconds);
            if (w.wakesPerS > 0)
                nsPerWake[observer.name].push_back(w.programShare * 1e9 / w.wakesPerS);
            if (w.runningShare >= 0) {
                running[observer.name].push_back(w.runningShare);
                once[observer.name].push_back(w.onceMs);
            }
            fmt::print("round {} {}: {:.2f}% of one CPU over {:.1f} s{}; the program {:.2f}% (alone {:.2f}%), {:.0f} "
                       "wake-ups/s (alone {:.0f}); load average {:.2f}\n",
                round + 1, observer.name, w.watchShare * 100, w.seconds,
                w.runningShare >= 0
                    ? fmt::format(" ({:.2f}% while it runs, {:.0f} ms once)", w.runningShare * 100, w.onceMs)
                    : "",
                w.programShare * 100, idle.programShare * 100, w.wakesPerS, idle.wakesPerS, load1());
        }
        loads.push_back(load1());
    }
    ::kill(program, SIGTERM);
    if (o.stopped)
        ::kill(program, SIGCONT); // the SIGTERM waits for it
    ::waitpid(program, nullptr, 0);
    std::filesystem::remove(ticks);
    if (!ok || shares.empty()) {
        fmt::print(stderr, "perf_watch_cli: the workload or every observer failed (see {})\n", log);
        return 2;
    }
    // The wake-ups a second the program made: nominally 10 a thread; measured, per window.
    const double nominal = o.stopped ? 0 : static_cast<double>(o.threads) * 10;
    nlohmann::json report = {
        { "threads", o.threads },
        { "threads_seen", threads },
        { "stopped", o.stopped },
        { "realtime", o.realtime },
        { "wakes_per_s_nominal", nominal },
        { "wakes_per_s", o.stopped ? 0.0 : median(aloneWakes) },
        { "seconds", o.seconds },
        { "rounds", o.rounds },
        { "interval_s", o.interval },
        { "output", o.jsonLines ? "every thread's JSON line (--json -) to /dev/null" : "text to /dev/null" },
        { "program_alone", sideJson(alone) },
        { "load", median(loads) },
        { "failed", failed },
    };
    bool met = true;
    fmt::print("{} threads {}, {} s at {} s intervals, median of {} rounds{}; the program alone {:.2f}% of one CPU:\n",
        o.threads, o.stopped ? "stopped (SIGSTOP)" : "each waking every 0.1 s", o.seconds, o.interval, o.rounds,
        o.realtime ? ", the watches at SCHED_FIFO 1" : "", median(alone) * 100);
    for (const Observer& observer : list) {
        if (!shares.contains(observer.name)) {
            fmt::print("  {}: could not run here\n", observer.name);
            continue;
        }
        const bool apart = running.contains(observer.name);
        // The goal is on what a watch costs while it runs (its whole window without that measure).
        const double share = apart ? median(running[observer.name]) : median(shares[observer.name]);
        const double extra = median(programShares[observer.name]) - median(alone);
        // The program's CPU per wake-up while this observer watched it less alone: where the
        // windows' rates differ, the CPU of the wake-ups one made more is not counted as the probes'.
        const double wakesPerS = o.stopped ? 0 : median(wakes[observer.name]);
        const bool perWake = wakesPerS > 0 && !nsPerWake[observer.name].empty() && !aloneNsPerWake.empty();
        const double probeNs = perWake ? median(nsPerWake[observer.name]) - median(aloneNsPerWake) : 0;
        nlohmann::json side = sideJson(shares[observer.name]);
        side["program"] = sideJson(programShares[observer.name]);
        side["wakes_per_s"] = wakesPerS;
        side["probe_share"] = extra;
        side["probe_ns_per_wake"] = perWake ? nlohmann::json(probeNs) : nlohmann::json(nullptr);
        side["goal"] = observer.goal > 0 ? nlohmann::json(observer.goal) : nlohmann::json(nullptr);
        if (apart) {
            side["running"] = sideJson(running[observer.name]);
            side["once_ms"] = sideJson(once[observer.name]);
            side["running_window_s"] = { kSettle, o.seconds - kBeforeEnd };
        }
        // A watch of `seconds` that took far longer was starved of CPU (a machine crowded past its
        // CPUs): its windows saw it waiting, not working, and its share is not what it costs.
        const double wall = median(walls[observer.name]);
        const bool starved = observer.ours && wall > kStarved * o.seconds;
        side["wall_s"] = wall;
        side["starved"] = starved;
        report["observers"][observer.name] = side;
        const bool hit = observer.goal <= 0 || (!starved && share < observer.goal);
        met = met && hit;
        if (starved)
            fmt::print("  {}: took {:.0f} s for its {} s watch: starved of CPU, its share ({:.2f}%) is not its cost\n",
                observer.name, wall, o.seconds, share * 100);
        fmt::print("  {}: {:.2f}% of one CPU{}{}{}\n", observer.name, share * 100,
            apart ? fmt::format(" while it runs ({:.2f}% over its {} s, {:.0f} ms once)",
                median(shares[observer.name]) * 100, o.seconds, median(once[observer.name]))
                  : "",
            observer.goal > 0 ? fmt::format(" (goal < {:.0f}%: {})", observer.goal * 100, hit ? "met" : "MISSED") : "",
            perWake ? fmt::format("; the program {:.2f}% ({:+.0f} ns a wake-up of {:.0f} a second)",
                median(programShares[observer.name]) * 100, probeNs, wakesPerS)
                    : "");
    }
    // The keys of the earlier report (perf_report.py's rows): /proc and ftrace by their old names.
    if (report["observers"].contains("watch_proc"))
        report["watch"] = report["observers"]["watch_proc"];
    if (report["observers"].contains("watch_ftrace"))
        report["watch_trace"] = report["observers"]["watch_ftrace"];
    fmt::print("load average {:.2f}\n", median(loads));
    if (!o.json.empty())
        std::ofstream(o.json) << report.dump(2) << '\n';
    return met ? 0 : 1;
}
