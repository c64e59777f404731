// SPDX-License-Identifier: MIT
#include "commands.h"
#include "interrupt.h"
#include "progress_line.h"
#include "spec_options.h"

#include "ctxscope/matrix.h"
#include "ctxscope/results_file.h"
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
    double minTime = 0.1;
    int repetitions = 3;
    std::string json;
};

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

int run(const MatrixOptions& o)
{
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    ProgressLine progress;
    InterruptScope interrupt;
    auto m = runMatrix(
        o.bench, o.mode, o.allPairs ? MatrixMode::AllPairs : MatrixMode::Classes, *topology,
        RunBudget { o.minTime, o.repetitions },
        [&](const MatrixProgress& p) {
            progress.update(fmt::format("[{}/{}] CPUs {},{}", p.run + 1, p.runs, p.a, p.b), p.fraction);
        },
        interrupt.token());
    progress.clear();
    if (!m) {
        if (interrupt.requested())
            return kInterrupted;
        const bool input = m.error().message.find("cancelled") == std::string::npos;
        fmt::print(stderr, "ctxscope-cli: {}\n", m.error().message);
        return input ? kBadInput : kMeasurementFailed;
    }
    if (o.json != "-") // stdout carries the JSON then
        printTable(*m);
    for (const auto& f : m->failures)
        fmt::print(stderr, "could not run: {}\n", f);
    if (!o.json.empty()) {
        nlohmann::json doc = makeReport(makeContext(readSysInfo(), *topology, measurementClock()), m->runs, false);
        doc["matrix"] = matrixToJson(*m);
        if (o.json == "-") {
            fmt::print("{}\n", doc.dump(2));
        } else {
            std::ofstream out(o.json);
            if (!(out << doc.dump(2) << '\n'))
                return badInput("cannot write " + o.json);
        }
    }
    return m->runs.empty() ? kMeasurementFailed : kOk;
}

} // namespace

Command addMatrixCommand(CLI::App& app)
{
    auto o = std::make_shared<MatrixOptions>();
    CLI::App* sub
        = app.add_subcommand("matrix", "Median round trip for every pair of allowed CPUs (a placement heatmap)");
    sub->add_option("bench", o->bench, "A two-task benchmark: futex, pipe or yield")->required();
    addModeOption(sub, o->mode, "thread or process");
    auto* all = sub->add_flag("--all-pairs", o->allPairs, "Measure every pair (small machines)");
    sub->add_flag("--classes", o->classes, "Measure one pair per relation class and fill the rest (the default)")
        ->excludes(all);
    sub->add_option("--min-time", o->minTime, "Seconds per repetition of each pair")->capture_default_str();
    sub->add_option("--repetitions", o->repetitions, "Repetitions of each pair")->capture_default_str();
    sub->add_option(
        "--json", o->json, "Write the runs (Google Benchmark shape) and the matrix as JSON to FILE, or - for stdout");
    return { sub, [o] { return run(*o); } };
}

} // namespace ctxscope::cli
