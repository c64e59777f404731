// SPDX-License-Identifier: MIT
// What the desktop app itself costs while it measures (the app must not disturb its own
// measurement): the app as a user starts it (`ctxscope --run futex ×4 --cpus A,B --plot live
// --quit`), its own process's CPU time (every thread's, clock_getcpuclockid) over the time its
// worker's benchmark tasks run, as a share of one CPU. The tasks are told from the worker's
// other threads by their affinity: pinned to exactly one of the measured CPUs. Read every 20 ms;
// the share sums the intervals whose both ends saw the tasks. Twice: with the live plot (the
// desk's default), then on the quiet stage (View → Quiet stage, presentation mode's default).
// The runs have a fixed op count (the run panel's iterations), so a loaded machine makes them
// longer, not shorter. Settings go to a throwaway XDG_CONFIG_HOME.
// Usage: perf_app_cpu APP [--cpus 0,1] [--runs 4] [--iterations 5000] [--json FILE]
// The platform is the environment's (run_all.sh: Xvfb when it is installed, else offscreen).
// Exit status 0 when the live plot's share is <= 5% of one CPU, 1 when not, 2 when it could not
// run. Never part of ctest.
#include "perf_util.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using ctxscope::perf::load1;
using ctxscope::perf::nowNs;
using ctxscope::perf::processCpuNs;

namespace {

constexpr double kGoal = 0.05;

struct Options {
    std::string app;
    std::string cpus = "0,1";
    int runs = 4;
    int iterations = 5000;
    std::string json;
};

std::string readFile(const fs::path& path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The app's child: its worker.
std::optional<pid_t> childOf(pid_t parent)
{
    const std::string children
        = readFile(fmt::format("/proc/{}/task/{}/children", static_cast<int>(parent), static_cast<int>(parent)));
    std::istringstream in(children);
    long pid = 0;
    if (in >> pid)
        return static_cast<pid_t>(pid);
    return std::nullopt;
}

// Threads of `pid` allowed on exactly one CPU, that CPU one of `measured`: the benchmark's tasks.
int pinnedTasks(pid_t pid, const std::vector<std::string>& measured)
{
    int n = 0;
    std::error_code ec;
    for (auto it = fs::directory_iterator(fmt::format("/proc/{}/task", static_cast<int>(pid)), ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string status = readFile(it->path() / "status");
        const auto at = status.find("Cpus_allowed_list:");
        if (at == std::string::npos)
            continue;
        std::istringstream line(status.substr(at + 18));
        std::string list;
        line >> list;
        for (const auto& cpu : measured)
            if (list == cpu)
                ++n;
    }
    return n;
}

std::vector<std::string> split(const std::string& list)
{
    std::vector<std::string> out;
    std::istringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(item);
    return out;
}

struct Figures {
    bool ok = false;
    double runSeconds = 0; // wall time while the tasks ran
    double appCpuSeconds = 0; // the app's CPU time in it
    double wholeSeconds = 0; // the app's life, start-up and the end's drawing included
    double wholeCpuSeconds = 0;
    double loadStart = 0;
    double loadEnd = 0;
    double share() const { return runSeconds > 0 ? appCpuSeconds / runSeconds : 0; }
};

Figures measure(const Options& o, bool quiet, const fs::path& dir)
{
    Figures f;
    const fs::path config = dir / (quiet ? "quiet" : "live");
    fs::create_directories(config / "ctxscope");
    {
        std::ofstream conf(config / "ctxscope" / "ctxscope.conf");
        conf << "[run]\nbench=futex\nmode=thread\nplacement=map\ntasks=2\nlengthKind=1\niterations=" << o.iterations
             << "\nrepetitions=5\npolicy=other\n[view]\nquietStage=" << (quiet ? "true" : "false") << "\n";
    }
    std::vector<std::string> args { o.app };
    for (int i = 0; i < o.runs; ++i) {
        args.emplace_back("--run");
        args.emplace_back("futex");
    }
    for (const char* a : { "--cpus", o.cpus.c_str(), "--plot", "live", "--quit" })
        args.emplace_back(a);
    const std::string log = (dir / "app.log").string();
    f.loadStart = load1();
    const double start = nowNs();
    const pid_t app = ::fork();
    if (app == 0) {
        ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
        const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (err >= 0)
            ::dup2(err, STDERR_FILENO);
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    if (app < 0)
        return f;
    const auto measured = split(o.cpus);
    std::optional<double> lastCpu;
    double lastAt = 0;
    bool lastIn = false;
    double wholeCpu = 0;
    for (;;) {
        int status = 0;
        const pid_t done = ::waitpid(app, &status, WNOHANG);
        if (done == app) {
            f.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            break;
        }
        const double at = nowNs();
        const auto cpu = processCpuNs(app);
        const auto worker = childOf(app);
        const bool in = worker && pinnedTasks(*worker, measured) >= static_cast<int>(measured.size());
        if (cpu) {
            wholeCpu = *cpu;
            if (lastCpu && in && lastIn) {
                f.runSeconds += (at - lastAt) / 1e9;
                f.appCpuSeconds += (*cpu - *lastCpu) / 1e9;
            }
            lastCpu = cpu;
            lastAt = at;
            lastIn = in;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    f.wholeSeconds = (nowNs() - start) / 1e9;
    f.wholeCpuSeconds = wholeCpu / 1e9;
    f.loadEnd = load1();
    return f;
}

nlohmann::json toJson(const Figures& f)
{
    return { { "ok", f.ok }, { "share", f.share() }, { "run_seconds", f.runSeconds },
        { "app_cpu_seconds", f.appCpuSeconds }, { "whole_seconds", f.wholeSeconds },
        { "whole_cpu_seconds", f.wholeCpuSeconds }, { "load_start", f.loadStart }, { "load_end", f.loadEnd } };
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--cpus" && value)
            o.cpus = argv[++i];
        else if (a == "--runs" && value)
            o.runs = std::atoi(argv[++i]);
        else if (a == "--iterations" && value)
            o.iterations = std::atoi(argv[++i]);
        else if (a == "--json" && value)
            o.json = argv[++i];
        else if (o.app.empty() && a[0] != '-')
            o.app = a;
        else {
            fmt::print(stderr, "usage: perf_app_cpu APP [--cpus 0,1] [--runs 4] [--iterations 5000] [--json FILE]\n");
            return 2;
        }
    }
    if (o.app.empty() || o.runs < 1 || o.iterations < 1) {
        fmt::print(stderr, "usage: perf_app_cpu APP [--cpus 0,1] [--runs 4] [--iterations 5000] [--json FILE]\n");
        return 2;
    }
    char pattern[] = "/tmp/perf_app_cpu.XXXXXX";
    if (::mkdtemp(pattern) == nullptr)
        return 2;
    const fs::path dir(pattern);
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    nlohmann::json report { { "cpus", o.cpus }, { "runs", o.runs }, { "iterations", o.iterations },
        { "platform", platform ? platform : (std::getenv("DISPLAY") ? "xcb" : "default") }, { "goal", kGoal } };
    bool ran = true;
    for (const bool quiet : { false, true }) {
        const Figures f = measure(o, quiet, dir);
        ran = ran && f.ok && f.runSeconds > 0;
        fmt::print("  the app during {} futex runs on CPUs {} ({}): {:.2f}% of one CPU ({:.3f} s of CPU in {:.1f} s of "
                   "runs; whole life {:.2f}% over {:.1f} s; load {:.2f} -> {:.2f}){}\n",
            o.runs, o.cpus, quiet ? "quiet stage" : "live plot", 100 * f.share(), f.appCpuSeconds, f.runSeconds,
            f.wholeSeconds > 0 ? 100 * f.wholeCpuSeconds / f.wholeSeconds : 0.0, f.wholeSeconds, f.loadStart, f.loadEnd,
            f.ok ? "" : " [the app failed: see " + (dir / "app.log").string() + "]");
        report[quiet ? "quiet" : "live"] = toJson(f);
    }
    if (!o.json.empty())
        std::ofstream(o.json) << report.dump(2) << "\n";
    std::error_code ec;
    if (ran)
        fs::remove_all(dir, ec);
    if (!ran)
        return 2;
    return report["live"]["share"].get<double>() <= kGoal ? 0 : 1;
}
