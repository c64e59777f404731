// SPDX-License-Identifier: MIT
// What measuring through ssh costs, on loopback: Debian's sshd on 127.0.0.1 with its own keys
// and config (tests/gui/localsshd.h, the one the ssh tests use), reached through the system's
// ssh client as the app reaches a server.
//   observer effect  the app measures futex with both tasks on one PU (`ctxscope [--remote
//                    lab-test] --run futex --cpus C,C --plot live --save-results F --quit`,
//                    offscreen, default settings) through ssh and through its local pipe,
//                    alternately, 5 times each; the figure is the median p50 through ssh
//                    over the median p50 locally. Goal: <= 1.10.
//   stream rate      a stand-in worker on the server replays a recorded stream (hello, then
//                    1e6 samples in the worker's batches) through ssh into WorkerClient, as
//                    fast as it goes: samples per second parsed, and parsed and drawn in the
//                    live plot. Goal: >= 1e6 samples/s.
//   traced run       `ctxscope-cli worker` on the server through ssh, read by the app's own
//                    WorkerClient (its 1 MiB pipe, its parsing), runs futex on one PU with
//                    "trace", its traced run about 1 s long (ops from an untraced run first):
//                    from the traced run's first progress line to its result, less the traced
//                    run's own time (ops x its ns per op), is how long the events (collected,
//                    decoded, cut, the window of 200,000 sent) took to reach the controller.
//                    Goal: <= 2 s. Skipped where the server may not trace.
// Usage: perf_ssh CLI APP [--json FILE] [--runs N] [--cpu C] [--only stream|observer|traced].
// Exit status 0 when the goals hold, 1 when not, 2 when it could not run (no sshd, say).
#include "liveplot.h"
#include "localsshd.h"
#include "machinelink.h"
#include "qcp.h"
#include "workerclient.h"

#include "ctxscope/clock.h"
#include "ctxscope/events.h"
#include "ctxscope/protocol.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <random>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr std::size_t kBatch = 2500; // a futex round trip's samples in one of the worker's 20 ms batches
constexpr qsizetype kStreamSamples = 1'000'000;

double loadAverage()
{
    std::ifstream in("/proc/loadavg");
    double load = 0;
    in >> load;
    return load;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// One run by the app, headless; the p50 of its saved result in ns, or nullopt.
std::optional<double> appRun(const QString& app, const QStringList& remote, int cpu, const QString& saved)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    const QString cpus = QStringLiteral("%1,%1").arg(cpu);
    process.start(app,
        remote
            + QStringList { QStringLiteral("--run"), QStringLiteral("futex"), QStringLiteral("--cpus"), cpus,
                QStringLiteral("--plot"), QStringLiteral("live"), QStringLiteral("--save-results"), saved,
                QStringLiteral("--quit") });
    if (!process.waitForFinished(300'000) || process.exitCode() != 0)
        return std::nullopt;
    std::ifstream in(saved.toStdString());
    const auto results = nlohmann::json::parse(in, nullptr, false);
    if (results.is_discarded() || !results.contains("benchmarks") || results["benchmarks"].empty())
        return std::nullopt;
    return results["benchmarks"][0]["stats"].value("p50", 0.0);
}

nlohmann::json observerFigures(const QString& app, const QString& cli, int runs, int cpu)
{
    QTemporaryDir dir;
    // The app's default run settings, never this user's.
    qputenv("XDG_CONFIG_HOME", dir.filePath(QStringLiteral("config")).toUtf8());
    const QStringList remote { QStringLiteral("--remote"), QStringLiteral("lab-test"), QStringLiteral("--remote-cli"),
        cli };
    std::vector<double> local;
    std::vector<double> overSsh;
    nlohmann::json pairs = nlohmann::json::array();
    for (int i = 0; i < runs; ++i) {
        const auto l = appRun(app, {}, cpu, dir.filePath(QStringLiteral("local-%1.json").arg(i)));
        const auto s = appRun(app, remote, cpu, dir.filePath(QStringLiteral("ssh-%1.json").arg(i)));
        if (!l || !s)
            return { { "error", fmt::format("run {} through {} failed", i + 1, l ? "ssh" : "the local pipe") } };
        local.push_back(*l);
        overSsh.push_back(*s);
        pairs.push_back({ { "local_p50", *l }, { "ssh_p50", *s }, { "load", loadAverage() } });
        fmt::print(
            "  pair {}: local p50 {:.0f} ns, through ssh {:.0f} ns (load {:.2f})\n", i + 1, *l, *s, loadAverage());
    }
    qunsetenv("XDG_CONFIG_HOME");
    const double ratio = median(overSsh) / median(local);
    fmt::print("  observer effect through ssh: median p50 {:.0f} ns over {:.0f} ns locally = {:.3f} (goal <= 1.10)\n",
        median(overSsh), median(local), ratio);
    return { { "ratio", ratio }, { "ssh_median_p50", median(overSsh) }, { "local_median_p50", median(local) },
        { "pairs", pairs }, { "met", ratio <= 1.10 } };
}

// A recorded stream as a stand-in worker on the server sends it: hello, then (after the run
// command) the samples of run 1 in the worker's batches, then (after quit) nothing.
bool writeStandIn(const QTemporaryDir& dir, QString& script)
{
    auto topology = Topology::loadLive();
    if (!topology)
        return false;
    const std::string stream = dir.filePath(QStringLiteral("stream.ndjson")).toStdString();
    std::ofstream out(stream);
    out << protocol::helloLine(*topology, readSysInfo(), measurementClock()) << '\n';
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> body(std::log(8000.0), 0.08);
    std::vector<double> samples(kBatch);
    for (std::size_t first = 0; first < static_cast<std::size_t>(kStreamSamples); first += kBatch) {
        for (double& s : samples)
            s = body(rng);
        for (const std::string& line : protocol::samplesLines(1, SampleBatch { 0, first, samples }))
            out << line << '\n';
    }
    out.close();
    script = dir.filePath(QStringLiteral("replay.sh"));
    QFile file(script);
    if (!out || !file.open(QIODevice::WriteOnly))
        return false;
    file.write(QStringLiteral("#!/bin/sh\nhead -n 1 '%1'; read -r run; tail -n +2 '%1'; read -r quit\n")
                   .arg(QString::fromStdString(stream))
                   .toUtf8());
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return true;
}

nlohmann::json streamFigures(const QString& script, bool draw)
{
    WorkerClient controller;
    controller.setLink(MachineLink { QStringLiteral("lab-test"), script });
    LivePlot plot;
    plot.resize(1000, 500);
    plot.show();
    plot.beginRun(1, QStringLiteral("futex"), QColor(31, 119, 180));
    qsizetype received = 0;
    QElapsedTimer clock;
    double seconds = 0;
    QEventLoop loop;
    QObject::connect(
        &controller, &WorkerClient::samplesAvailable, &plot, [&](quint64 id, int, quint64, const QVector<double>& ns) {
            if (received == 0)
                clock.start();
            if (draw)
                plot.addSamples(id, ns);
            received += ns.size();
            if (received >= kStreamSamples) {
                seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
                loop.quit();
            }
        });
    QObject::connect(&controller, &WorkerClient::workerFailed, &loop, &QEventLoop::quit);
    QTimer::singleShot(180'000, &loop, &QEventLoop::quit);
    BenchSpec spec;
    spec.bench = "futex";
    controller.start(spec);
    loop.exec();
    controller.stopWorker();
    if (received < kStreamSamples || seconds <= 0)
        return { { "error", fmt::format("only {} of {} samples arrived", received, kStreamSamples) } };
    // From the first batch's arrival to the last one's.
    const double rate = static_cast<double>(kStreamSamples - static_cast<qsizetype>(kBatch)) / seconds;
    const int redraws = plot.redrawCount();
    fmt::print("  stream through ssh -> WorkerClient{}: {:.3g} samples/s (goal >= 1e6){}\n",
        draw ? " -> live plot" : " (parsing only)", rate,
        draw ? fmt::format(", {} redraws in {:.2f} s, the last {:.1f} ms (replot {:.1f})", redraws, seconds,
            plot.lastRedrawCostMs(), plot.plot()->replotTime())
             : "");
    return { { "samples_per_s", rate }, { "samples", kStreamSamples }, { "batch", kBatch }, { "met", rate >= 1e6 },
        { "redraws", redraws }, { "seconds", seconds }, { "load", loadAverage() } };
}

// When (s on a clock) a traced run started, its last events part and its result arrived; the
// events the parts carried.
struct TracedTimes {
    double tracedStart = -1;
    double lastEvents = -1;
    double result = -1;
    std::size_t windowEvents = 0;
};
// One run through `controller` (the app's WorkerClient), with `trace` a traced run after the
// untraced one: its result, with `times` filled where given; null on a failure, said in `why`.
std::shared_ptr<const RunResult> runThrough(WorkerClient& controller, const BenchSpec& spec,
    std::optional<protocol::RunTrace> trace, const QElapsedTimer& clock, TracedTimes* times, std::string& why)
{
    std::shared_ptr<const RunResult> result;
    QEventLoop loop;
    QList<QMetaObject::Connection> links;
    const auto now = [&] { return static_cast<double>(clock.nsecsElapsed()) / 1e9; };
    links << QObject::connect(
        &controller, &WorkerClient::progress, [&](quint64, const QString& stage, int, int, double) {
            if (times && stage == QStringLiteral("traced") && times->tracedStart < 0)
                times->tracedStart = now();
        });
    links << QObject::connect(&controller, &WorkerClient::traceEventsAvailable,
        [&](quint64, std::shared_ptr<const protocol::TraceEventsEvent> part) {
            if (times) {
                times->lastEvents = now();
                times->windowEvents += part->events.size();
            }
        });
    links << QObject::connect(
        &controller, &WorkerClient::resultAvailable, [&](quint64, std::shared_ptr<const RunResult> r) {
            if (times)
                times->result = now();
            result = std::move(r);
            loop.quit();
        });
    links << QObject::connect(&controller, &WorkerClient::runFailed, [&](quint64, const QString& message) {
        why = message.toStdString();
        loop.quit();
    });
    links << QObject::connect(&controller, &WorkerClient::workerFailed, [&](const QString& message) {
        why = message.toStdString();
        loop.quit();
    });
    QTimer::singleShot(300'000, &loop, &QEventLoop::quit);
    if (!controller.start(spec, std::move(trace)))
        why = "the worker was busy";
    else
        loop.exec();
    for (const auto& link : links)
        QObject::disconnect(link);
    if (!result && why.empty())
        why = "no result in 300 s";
    return result;
}

// A traced run on one PU through the app's own reader of a worker through ssh (WorkerClient:
// its 1 MiB pipe, its parsing of the events), timed from the traced run's first progress to
// its result, less the traced run's own time.
nlohmann::json tracedFigures(const QString& cli, int cpu)
{
    WorkerClient controller;
    controller.setLink(MachineLink { QStringLiteral("lab-test"), cli });
    QElapsedTimer clock;
    clock.start();
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { cpu, cpu };
    spec.minTimeSeconds = 0.2;
    spec.repetitions = 1;
    std::string why;
    const auto plain = runThrough(controller, spec, std::nullopt, clock, nullptr, why);
    if (!plain)
        return { { "error", "the untraced run over ssh failed: " + why } };
    if (const QString refusal = controller.tracingRefusal(); !refusal.isEmpty()) {
        fmt::print("  traced run through ssh: skipped: {}\n", refusal.toStdString());
        return { { "skipped", refusal.toStdString() } };
    }
    const double mean = plain->stats.mean;
    const auto ops = static_cast<std::uint64_t>(std::clamp(1e9 / std::max(mean, 1.0), 1000.0, 1e6));
    // One PU records ~15 events a round trip: a buffer to hold a second of them without loss.
    protocol::RunTrace trace;
    trace.ops = ops;
    trace.bufferKbPerCpu = 262144;
    TracedTimes times;
    const auto traced = runThrough(controller, spec, trace, clock, &times, why);
    controller.stopWorker();
    if (!traced || !traced->trace || times.tracedStart < 0)
        return { { "error", "the traced run over ssh failed: " + (why.empty() ? "no trace in its result" : why) } };
    const TraceSummary& t = *traced->trace;
    const double tracedSeconds = t.nsPerOp * static_cast<double>(t.ops) / 1e9;
    // The result (the segments) comes after the last of the events.
    const double delivery = times.result - times.tracedStart - tracedSeconds;
    fmt::print("  traced run through ssh: {} ops in {:.2f} s traced, {} events of {} in the window; the result "
               "arrived {:.2f} s after the traced run (goal <= 2 s), {} lost\n",
        t.ops, tracedSeconds, times.windowEvents, t.events, delivery, t.lostEvents);
    return { { "ops", t.ops }, { "traced_seconds", tracedSeconds }, { "window_events", times.windowEvents },
        { "recorded_events", t.events }, { "delivery_seconds", delivery },
        { "last_events_line_s", times.lastEvents - times.tracedStart - tracedSeconds }, { "lost_events", t.lostEvents },
        { "met", delivery <= 2.0 }, { "load", loadAverage() } };
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const QStringList args = QApplication::arguments();
    std::optional<std::string> jsonPath;
    int runs = 5;
    int cpu = -1;
    QString only; // one part: stream, observer or traced
    QStringList positional;
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args[i] == QStringLiteral("--json") && i + 1 < args.size())
            jsonPath = args[++i].toStdString();
        else if (args[i] == QStringLiteral("--runs") && i + 1 < args.size())
            runs = args[++i].toInt();
        else if (args[i] == QStringLiteral("--cpu") && i + 1 < args.size())
            cpu = args[++i].toInt();
        else if (args[i] == QStringLiteral("--only") && i + 1 < args.size())
            only = args[++i];
        else
            positional.push_back(args[i]);
    }
    const QStringList parts { QStringLiteral("stream"), QStringLiteral("observer"), QStringLiteral("traced") };
    if (positional.size() != 2 || runs < 1 || (!only.isEmpty() && !parts.contains(only))) {
        fmt::print(
            stderr, "usage: perf_ssh CLI APP [--json FILE] [--runs N] [--cpu C] [--only stream|observer|traced]\n");
        return 2;
    }
    const QString cli = positional[0];
    const QString app = positional[1];
    if (cpu < 0) {
        auto topology = Topology::loadLive();
        if (!topology) {
            fmt::print(stderr, "perf_ssh: {}\n", topology.error().message);
            return 2;
        }
        cpu = topology->allowedPus().front();
    }
    LocalSshd sshd;
    if (!sshd.problem().isEmpty()) {
        fmt::print(stderr, "perf_ssh: cannot run: {}\n", sshd.problem().toStdString());
        return 2;
    }
    qputenv("CTXSCOPE_SSH_COMMAND", sshd.sshCommand().toUtf8());
    fmt::print("ssh on loopback (Debian's sshd on 127.0.0.1, the system's ssh), CPU {}, load average {:.2f}:\n", cpu,
        loadAverage());
    nlohmann::json report;
    QTemporaryDir dir;
    QString script;
    if (!writeStandIn(dir, script)) {
        fmt::print(stderr, "perf_ssh: could not write the recorded stream\n");
        return 2;
    }
    const auto wanted = [&](const char* part) { return only.isEmpty() || only == QLatin1String(part); };
    if (wanted("stream")) {
        report["stream"] = streamFigures(script, true);
        report["stream_parse_only"] = streamFigures(script, false);
    }
    if (wanted("observer"))
        report["observer"] = observerFigures(app, cli, runs, cpu);
    if (wanted("traced"))
        report["traced"] = tracedFigures(cli, cpu);
    if (jsonPath) {
        std::ofstream out(*jsonPath);
        out << report.dump(2) << '\n';
    }
    bool met = true;
    for (const char* part : { "stream", "observer", "traced" }) {
        if (!report.contains(part))
            continue;
        if (report[part].contains("error")) {
            fmt::print(stderr, "perf_ssh: {}: {}\n", part, report[part]["error"].get<std::string>());
            return 2;
        }
        met = met && report[part].value("met", true);
    }
    return met ? 0 : 1;
}
