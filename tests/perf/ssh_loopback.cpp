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
//   traced run       `ctxscope-cli worker` on the server through ssh runs futex on one PU with
//                    "trace", its traced run about 1 s long (ops from an untraced run first):
//                    from the traced run's first progress line to its result, less the traced
//                    run's own time (ops x its ns per op), is how long the events (collected,
//                    decoded, cut, the window of 200,000 sent) took to reach the controller.
//                    Goal: <= 2 s. Skipped where the server may not trace.
// Usage: perf_ssh CLI APP [--json FILE] [--runs N] [--cpu C] [--only stream|observer|traced].
// Exit status 0 when the goals hold, 1 when not, 2 when it could not run (no sshd, say).
#include "liveplot.h"
#include "localsshd.h"
#include "qcp.h"
#include "workerclient.h"

#include "ctxscope/clock.h"
#include "ctxscope/protocol.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/topology.h"

#include <QApplication>
#include <QElapsedTimer>
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

// The worker on lab-test through the ssh command the tests use, read line by line.
class SshWorkerProcess {
public:
    SshWorkerProcess(const QString& sshCommand, const QString& cli)
    {
        // The command is a shell's ("ssh -F '/tmp/…/ssh_config'"): QProcess::splitCommand keeps
        // single quotes as part of the word, and ssh then found no such config file.
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"), QStringLiteral("%1 lab-test '%2' worker").arg(sshCommand, cli) });
        m_clock.start();
    }
    ~SshWorkerProcess()
    {
        m_process.write("{\"type\":\"quit\"}\n");
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(10'000))
            m_process.kill();
        m_process.waitForFinished(5'000);
    }
    void send(const std::string& line) { m_process.write(QByteArray::fromStdString(line + "\n")); }
    // The next line and when it arrived (s since the start); none after `timeoutMs` or at the end.
    std::optional<std::pair<std::string, double>> next(int timeoutMs)
    {
        QElapsedTimer waited;
        waited.start();
        while (!m_process.canReadLine()) {
            if (waited.elapsed() > timeoutMs || !m_process.waitForReadyRead(1000)) {
                if (waited.elapsed() > timeoutMs || m_process.state() != QProcess::Running)
                    return std::nullopt;
            }
        }
        QByteArray line = m_process.readLine();
        m_bytes += line.size();
        return std::pair(line.trimmed().toStdString(), static_cast<double>(m_clock.nsecsElapsed()) / 1e9);
    }
    qint64 bytes() const { return m_bytes; }

private:
    QProcess m_process;
    QElapsedTimer m_clock;
    qint64 m_bytes = 0;
};

// Reads lines until one of `type` for command `id` (or an error), and when it came; records when
// the first "traced" progress and the last trace_events line came.
std::optional<std::pair<nlohmann::json, double>> until(SshWorkerProcess& worker, const std::string& type,
    std::uint64_t id, double* tracedStart = nullptr, double* lastEvents = nullptr, std::size_t* windowEvents = nullptr)
{
    while (auto line = worker.next(300'000)) {
        auto j = nlohmann::json::parse(line->first, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            continue;
        const std::string t = j.value("type", "");
        if (t == "progress" && j.value("stage", "") == "traced" && tracedStart && *tracedStart < 0)
            *tracedStart = line->second;
        if (t == "trace_events" && lastEvents) {
            *lastEvents = line->second;
            *windowEvents += j["dt_ns"].size();
        }
        if (t == "error" || (t == type && j.value("id", std::uint64_t { 0 }) == id))
            return std::pair(std::move(j), line->second);
    }
    return std::nullopt;
}

nlohmann::json tracedFigures(const QString& sshCommand, const QString& cli, int cpu)
{
    SshWorkerProcess worker(sshCommand, cli);
    auto hello = until(worker, "hello", 0);
    if (!hello || hello->first.value("type", "") != "hello")
        return { { "error", "the worker over ssh sent no hello" } };
    if (const std::string refusal = hello->first.value("tracing", ""); !refusal.empty()) {
        fmt::print("  traced run through ssh: skipped: {}\n", refusal);
        return { { "skipped", refusal } };
    }
    nlohmann::json spec { { "bench", "futex" }, { "cpus", { cpu, cpu } }, { "min_time", 0.2 }, { "repetitions", 1 } };
    worker.send(nlohmann::json { { "type", "run" }, { "id", 1 }, { "spec", spec } }.dump());
    auto plain = until(worker, "result", 1);
    if (!plain || plain->first.value("type", "") != "result")
        return { { "error",
            "the untraced run over ssh failed: " + (plain ? plain->first.dump() : std::string("no answer")) } };
    const double mean = plain->first["result"]["stats"].value("mean", 0.0);
    const auto ops = static_cast<std::uint64_t>(std::clamp(1e9 / std::max(mean, 1.0), 1000.0, 1e6));
    // One PU records ~15 events a round trip: a buffer to hold a second of them without loss.
    worker.send(nlohmann::json {
        { "type", "run" }, { "id", 2 }, { "spec", spec }, { "trace", { { "ops", ops }, { "buffer_kb", 262144 } } } }
                    .dump());
    double tracedStart = -1;
    double lastEvents = -1;
    std::size_t window = 0;
    const qint64 before = worker.bytes();
    auto result = until(worker, "result", 2, &tracedStart, &lastEvents, &window);
    if (!result || result->first.value("type", "") != "result" || tracedStart < 0)
        return { { "error",
            "the traced run over ssh failed: "
                + (result ? result->first.dump().substr(0, 300) : std::string("no answer")) } };
    const auto& trace = result->first["result"]["trace"];
    const double tracedSeconds = trace.value("ns_per_op", 0.0) * static_cast<double>(trace.value("ops", 0)) / 1e9;
    // The result (the segments) comes after the last of the events.
    const double delivery = result->second - tracedStart - tracedSeconds;
    const double mb = static_cast<double>(worker.bytes() - before) / 1e6;
    fmt::print("  traced run through ssh: {} ops in {:.2f} s traced, {} events of {} in the window ({:.1f} MB); the "
               "last arrived {:.2f} s after the traced run (goal <= 2 s), {} lost\n",
        trace.value("ops", 0), tracedSeconds, window, trace.value("events", 0), mb, delivery,
        trace.value("lost_events", 0));
    return { { "ops", trace.value("ops", 0) }, { "traced_seconds", tracedSeconds }, { "window_events", window },
        { "recorded_events", trace.value("events", 0) }, { "megabytes", mb }, { "delivery_seconds", delivery },
        { "last_events_line_s", lastEvents - tracedStart - tracedSeconds },
        { "lost_events", trace.value("lost_events", 0) }, { "met", delivery <= 2.0 }, { "load", loadAverage() } };
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
        report["traced"] = tracedFigures(sshd.sshCommand(), cli, cpu);
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
