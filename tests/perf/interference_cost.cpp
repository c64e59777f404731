// SPDX-License-Identifier: MIT
// What the interference accounting costs a run: `syscall` through the runner with it and
// without (5 repetitions of 200,000 ops, fixed so calibration does not set the run's length),
// in alternating rounds so a change in machine load hits both alike. Compares, as the median
// of each round's ratio (with / without: the two runs of a round are seconds apart, so the
// VM's drift between rounds cancels), the whole run's wall time (the accounting reads /proc
// between repetitions and scans every task once or twice) and the median per op (it must not
// move: nothing is read inside a repetition), and times the meter's reads alone. Goal: with /
// without <= 1.02 for both. Exit status 0 when the goal holds, 1 when not, 2 when it could not
// run. Usage: perf_interference [--json FILE]. Never part of ctest.
#include "ctxscope/runner.h"
#include "os/task_stat.h"
#include "perf_util.h"
#include "runner/interference.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string_view>

#include <unistd.h>
#include <vector>

using namespace ctxscope;
using perf::median;
using perf::nowNs;

namespace {

constexpr int kRounds = 15;

struct Side {
    std::vector<double> seconds;
    std::vector<double> p50;
};

// The meter's reads alone, on this process's main thread: begin (a scan of every task and
// the counters), one mark, and the last mark with its scan. Median over 20 tries, in ms.
double timeTheReads()
{
    std::vector<double> begin;
    std::vector<double> mark;
    std::vector<double> scan;
    std::size_t tasks = 0;
    for (int i = 0; i < 20; ++i) {
        run::InterferenceMeter meter({ { ::getpid(), ::getpid(), 0 } });
        double t = nowNs();
        meter.begin();
        begin.push_back((nowNs() - t) / 1e6);
        t = nowNs();
        meter.mark(false);
        mark.push_back((nowNs() - t) / 1e6);
        t = nowNs();
        tasks = os::scanTasks().size();
        scan.push_back((nowNs() - t) / 1e6);
    }
    fmt::print("reads alone (median of 20): begin {:.3f} ms (scan of {} tasks + counters), mark {:.3f} ms, "
               "scan {:.3f} ms\n",
        median(begin), tasks, median(mark), median(scan));
    return median(begin) + median(scan);
}

} // namespace

int main(int argc, char** argv)
{
    const std::string json = argc == 3 && std::string_view(argv[1]) == "--json" ? argv[2] : "";
    auto topology = Topology::loadLive();
    if (!topology) {
        fmt::print(stderr, "{}\n", topology.error().message);
        return 2;
    }
    const int cpu = topology->allowedPus().back();
    Side with;
    Side without;
    std::vector<double> wallRatios;
    std::vector<double> p50Ratios;
    for (int round = 0; round < kRounds; ++round) {
        for (const bool account : { round % 2 == 0, round % 2 != 0 }) {
            BenchSpec s;
            s.bench = "syscall";
            s.cpus = { cpu };
            s.accountInterference = account;
            // Fixed ops (about 0.2 s a repetition at 1 µs): a calibrated run's length moves
            // with the load at calibration by far more than the accounting costs.
            s.iterations = 200'000;
            auto r = runBenchmark(s, *topology);
            if (!r) {
                fmt::print(stderr, "{}\n", r.error().message);
                return 2;
            }
            Side& side = account ? with : without;
            side.seconds.push_back(r->seconds);
            side.p50.push_back(r->stats.p50);
            // Calibration sets the ops per repetition, so a round's wall time moves with it.
            fmt::print("round {} {}: {:.3f} s, {} ops x {} repetitions, p50 {:.1f} ns\n", round,
                account ? "with   " : "without", r->seconds, r->iterations, r->repetitions, r->stats.p50);
            if (account && round == 0 && r->interference)
                fmt::print("{}\n", interferenceLine(*r->interference));
        }
        wallRatios.push_back(with.seconds.back() / without.seconds.back());
        p50Ratios.push_back(with.p50.back() / without.p50.back());
    }
    const double readsMs = timeTheReads();
    const double wall = median(wallRatios);
    const double perOp = median(p50Ratios);
    fmt::print("run syscall on CPU {}, {} rounds: wall {:.3f} s with, {:.3f} s without (medians; their ratio {:.4f}); "
               "p50 {:.1f} ns with, {:.1f} ns without (ratio {:.4f})\n",
        cpu, kRounds, median(with.seconds), median(without.seconds), median(with.seconds) / median(without.seconds),
        median(with.p50), median(without.p50), median(with.p50) / median(without.p50));
    fmt::print("median of the rounds' own ratios (with / without): wall {:.4f}, p50 {:.4f}\n", wall, perOp);
    const bool ok = wall <= 1.02 && perOp <= 1.02;
    fmt::print("goal with / without <= 1.02: {}\n", ok ? "met" : "NOT met");
    double load[1] = {};
    if (!json.empty())
        std::ofstream(json) << nlohmann::json {
            { "rounds", kRounds }, { "wall_ratio", wall }, { "p50_ratio", perOp }, { "scans_ms", readsMs },
            { "goal", 1.02 }, { "load", ::getloadavg(load, 1) == 1 ? load[0] : -1 }
        }.dump(2) << '\n';
    return ok ? 0 : 1;
}
