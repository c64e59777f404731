// SPDX-License-Identifier: MIT
#include "commands.h"
#include "interrupt.h"
#include "progress_line.h"
#include "spec_options.h"

#include "ctxscope/matrix.h"
#include "ctxscope/results_file.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/units.h"

#include <fmt/core.h>
#include <fstream>

namespace ctxscope::cli {

namespace {

constexpr std::size_t kMaxTablePus = 16;

struct MatrixOptions {
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    bool allPairs = false;
    bool classes = false;
    double minTime = 0.1; // classes; all pairs starts at kAllPairsMinTimeSeconds unless given
    int repetitions = 3;
    std::string json;
    std::string csv;
    CLI::Option* minTimeOption = nullptr;
};

// Writes text to FILE, or to stdout for "-".
bool writeText(const std::string& where, const std::string& text)
{
    if (where == "-") {
        fmt::print("{}", text);
        return true;
    }
    std::ofstream out(where);
    return static_cast<bool>(out << text);
}

// The context lines of the CSV: what ran where, so a file alone says what it holds.
std::vector<std::string> csvContext(const MatrixResult& m, const SysInfo& sys, const MatrixOptions& o)
{
    std::vector<std::string> out {
        fmt::format("ctxscope-cli matrix {} --mode {}{}", m.bench, toString(m.mode),
            m.matrixMode == MatrixMode::AllPairs ? " --all-pairs" : ""),
        fmt::format("host: {}, kernel {}, {} allowed PUs", sys.cpuModel, sys.kernel, m.pus.size()),
        fmt::format("budget per pair: {} repetitions of {} s{}", o.repetitions, o.minTime,
            m.matrixMode == MatrixMode::AllPairs ? " at first, doubled while the repetitions disagree" : ""),
    };
    for (const std::string& f : m.failures)
        out.push_back("could not run: " + f);
    return out;
}

void printTable(const MatrixResult& m)
{
    if (m.pus.size() > kMaxTablePus) {
        fmt::print("{} PUs: too many for a table; the cells are in --json. Per class:\n", m.pus.size());
        for (const auto& r : m.runs)
            fmt::print("  {:<14} CPUs {},{}  {}\n", toString(r.placement.relation), r.placement.cpus.at(0),
                r.placement.cpus.at(1), formatDuration(r.stats.p50));
        return;
    }
    fmt::print("median {} round trip per CPU pair ({}); * = filled from its class's representative pair\n\n", m.bench,
        toString(m.mode));
    fmt::print("{:>6}", "CPU");
    for (int b : m.pus)
        fmt::print(" {:>10}", b);
    fmt::print("\n");
    for (int a : m.pus) {
        fmt::print("{:>6}", a);
        for (int b : m.pus) {
            const MatrixCell* c = m.cell(a, b);
            fmt::print(" {:>10}", c ? formatDuration(c->medianNs) + (c->measured ? " " : "*") : std::string("-"));
        }
        fmt::print("\n");
    }
}

int run(MatrixOptions o)
{
    if (o.json == "-" && o.csv == "-")
        return badInput("--json - and --csv - would both write to stdout: give one of them a file");
    if (o.allPairs && o.minTimeOption->count() == 0)
        o.minTime = kAllPairsMinTimeSeconds;
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    ProgressLine progress;
    InterruptScope interrupt;
    bool estimated = false;
    auto m = runMatrix(
        o.bench, o.mode, o.allPairs ? MatrixMode::AllPairs : MatrixMode::Classes, *topology,
        RunBudget { o.minTime, o.repetitions },
        [&](const MatrixProgress& p) {
            if (p.estimateSeconds > 0 && !estimated && p.runs > 1) {
                estimated = true;
                progress.clear();
                fmt::print(stderr,
                    "{} pairs; the first took {}, so about {} in all (Ctrl-C keeps the finished "
                    "pairs)\n",
                    p.runs, formatDuration(p.estimateSeconds / p.runs * 1e9), formatDuration(p.estimateSeconds * 1e9));
            }
            progress.update(fmt::format("[{}/{}] CPUs {},{}{}", p.run + 1, p.runs, p.a, p.b,
                                p.attempts > 1 ? fmt::format(" (run {}: unstable)", p.attempts) : ""),
                p.fraction);
        },
        interrupt.token());
    progress.clear();
    if (!m) {
        fmt::print(stderr, "ctxscope-cli: {}\n", m.error().message);
        return kBadInput; // runMatrix fails only on its input; a pair that fails is in failures
    }
    if (m->cancelled)
        fmt::print(stderr, "ctxscope-cli: interrupted; writing the {} pair{} that finished\n", m->runs.size(),
            m->runs.size() == 1 ? "" : "s");
    if (o.json != "-" && o.csv != "-") // stdout carries the JSON or the CSV then
        printTable(*m);
    for (const auto& f : m->failures)
        fmt::print(stderr, "could not run: {}\n", f);
    const SysInfo sys = readSysInfo();
    if (!o.json.empty()) {
        nlohmann::json doc = makeReport(makeContext(sys, *topology, measurementClock()), m->runs, false);
        doc["matrix"] = matrixToJson(*m);
        if (!writeText(o.json, doc.dump(2) + "\n"))
            return badInput("cannot write " + o.json);
    }
    if (!o.csv.empty() && !writeText(o.csv, matrixToCsv(*m, csvContext(*m, sys, o))))
        return badInput("cannot write " + o.csv);
    if (m->cancelled)
        return kInterrupted;
    return m->runs.empty() ? kMeasurementFailed : kOk;
}

} // namespace

Command addMatrixCommand(CLI::App& app)
{
    auto o = std::make_shared<MatrixOptions>();
    CLI::App* sub
        = app.add_subcommand("matrix", "Median round trip for every pair of allowed CPUs (a placement heatmap)");
    sub->add_option("bench", o->bench, "A two-task benchmark: spin, spin-futex, futex, pipe or yield")->required();
    addModeOption(sub, o->mode, "thread or process");
    auto* all = sub->add_flag("--all-pairs", o->allPairs,
        fmt::format("Measure every pair (up to {} PUs): short runs, repeated with more time while a pair's "
                    "repetitions disagree; prints the time estimate after the first pair",
            kMatrixMaxPus));
    sub->add_flag("--classes", o->classes, "Measure one pair per relation class and fill the rest (the default)")
        ->excludes(all);
    o->minTimeOption = sub->add_option("--min-time", o->minTime,
        fmt::format("Seconds per repetition of each pair (with --all-pairs: the first run's, default {})",
            kAllPairsMinTimeSeconds));
    o->minTimeOption->capture_default_str();
    sub->add_option("--repetitions", o->repetitions, "Repetitions of each pair")->capture_default_str();
    sub->add_option(
        "--json", o->json, "Write the runs (Google Benchmark shape) and the matrix as JSON to FILE, or - for stdout");
    sub->add_option("--csv", o->csv,
        "Write the matrix as a square CSV to FILE, or - for stdout: a header row and a first column of P#, the "
        "one-way ns in each cell, context in leading # lines");
    return { sub, [o] { return run(*o); } };
}

} // namespace ctxscope::cli
