// SPDX-License-Identifier: MIT
// What the app's traced watch of a program costs at both ends of the worker's stream, without
// the widgets: a `ctxscope-cli worker` watching a program of 1,000 threads that each wake every
// 100 ms (`ctxscope-cli workload sleepers`), traced, at 2 Hz, and this process reading its lines
// as the app's WorkerClient does (parseEvent; for a lean watch WatchDeltaDecoder back to whole
// samples). Each round watches the full stream (watch_sample, every thread's whole line) and
// the lean one (watch_delta, docs/protocol.md) with the focus a table of --focus visible rows
// sends, in an order that alternates. Measured from the first sample to the last, so the
// worker's start (the trace's opening, the first reading) is left out: the worker's CPU (its
// process clock) and the reader's (this thread's clock), each over the wall time, as shares of
// one CPU. Goal (issue 40): the lean stream's worker + reader < 2% of one CPU. --backend auto
// (the default) names none, as the app's watch without its timeline: the worker takes the
// cheapest it may use; the report says which one ran (each sample's "backend").
// Usage: perf_worker_watch CLI [--seconds 10] [--rounds 3] [--threads 1000] [--focus 40]
//        [--backend auto|ftrace|bpf] [--json FILE]
// Exit status 0 when the goal holds, 1 when it does not, 2 when it could not run. Never part of
// ctest.
#include "perf_util.h"

#include "ctxscope/events.h"
#include "ctxscope/protocol.h"
#include "ctxscope/watch_delta.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using ctxscope::perf::load1;
using ctxscope::perf::median;
using ctxscope::perf::nowNs;
using ctxscope::perf::processCpuNs;
namespace protocol = ctxscope::protocol;

namespace {

struct Options {
    std::string cli;
    double seconds = 10;
    int rounds = 3;
    int threads = 1000;
    std::size_t focus = 40;
    std::optional<ctxscope::SchedBackend> backend; // none: the worker's choice
    bool badBackend = false;
    std::string json;
};

constexpr double kGoal = 0.02; // of one CPU, worker + reader, lean

double threadCpuNs()
{
    timespec ts {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// A child with stdin and stdout on pipes (stderr to `log`).
struct Child {
    pid_t pid = -1;
    int in = -1; // its stdin
    int out = -1; // its stdout
};

Child spawn(const std::vector<std::string>& args, const std::string& log, bool piped)
{
    int toChild[2] = { -1, -1 };
    int fromChild[2] = { -1, -1 };
    if (piped && (::pipe2(toChild, O_CLOEXEC) != 0 || ::pipe2(fromChild, O_CLOEXEC) != 0))
        return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        ::dup2(piped ? toChild[0] : null, STDIN_FILENO);
        ::dup2(piped ? fromChild[1] : null, STDOUT_FILENO);
        if (err >= 0)
            ::dup2(err, STDERR_FILENO);
        std::vector<char*> argv;
        for (const auto& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    Child c { pid };
    if (piped) {
        ::close(toChild[0]);
        ::close(fromChild[1]);
        c.in = toChild[1];
        c.out = fromChild[0];
    }
    return c;
}

bool sendLine(const Child& c, const std::string& line)
{
    const std::string text = line + "\n";
    return ::write(c.in, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// Reads a line at a time from a child's stdout, waiting at most until `deadlineNs`.
class LineReader {
public:
    explicit LineReader(int fd)
        : m_fd(fd)
    {
    }
    std::optional<std::string> next(double deadlineNs)
    {
        for (;;) {
            if (const auto nl = m_buffer.find('\n'); nl != std::string::npos) {
                std::string line = m_buffer.substr(0, nl);
                m_buffer.erase(0, nl + 1);
                bytes += line.size() + 1;
                return line;
            }
            const double left = deadlineNs - nowNs();
            if (left <= 0)
                return std::nullopt;
            pollfd p { m_fd, POLLIN, 0 };
            if (::poll(&p, 1, static_cast<int>(left / 1e6) + 1) <= 0)
                continue;
            char chunk[1 << 16];
            const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
            if (n <= 0)
                return std::nullopt;
            m_buffer.append(chunk, static_cast<std::size_t>(n));
        }
    }
    std::size_t bytes = 0;

private:
    int m_fd;
    std::string m_buffer;
};

struct Window {
    bool ok = false;
    double seconds = 0;
    double workerShare = 0;
    double readerShare = 0;
    int samples = 0;
    double bytesPerSample = 0;
    std::size_t threadsSent = 0; // threads in the lines, summed over the window's samples
    std::size_t threadsHeld = 0; // threads the reader holds after the last one
    std::string backend; // what gave the figures, as the samples name it
};

// One watch of `program` through a fresh worker: the full stream or the lean one.
Window measure(const Options& o, pid_t program, bool lean, const std::string& log)
{
    Window w;
    Child worker = spawn({ o.cli, "worker" }, log, true);
    if (worker.pid < 0)
        return w;
    LineReader lines(worker.out);
    const double startDeadline = nowNs() + 60e9;
    const auto hello = lines.next(startDeadline);
    protocol::WatchCommand watch { 1, static_cast<long>(program), 0.5, 0, true, 0, o.backend, lean };
    bool ok = hello && hello->find("\"hello\"") != std::string::npos && sendLine(worker, protocol::commandLine(watch));
    protocol::WatchDeltaDecoder decoder;
    double beginNs = 0, workerBegin = 0, readerBegin = 0, endNs = 0, workerEnd = 0, readerEnd = 0;
    std::size_t bytesBegin = 0;
    double deadline = startDeadline;
    while (ok) {
        const auto line = lines.next(deadline);
        if (!line) {
            ok = w.samples > 0; // the window's end
            break;
        }
        auto parsed = protocol::parseEvent(*line);
        auto* event = std::get_if<protocol::Event>(&parsed);
        if (!event) {
            ok = false;
            break;
        }
        std::optional<ctxscope::WatchSample> sample;
        if (auto* full = std::get_if<protocol::WatchSampleEvent>(event)) {
            sample = std::move(full->sample);
            w.threadsSent += sample->threads.size();
        } else if (auto* delta = std::get_if<protocol::WatchDeltaEvent>(event)) {
            w.threadsSent += delta->sample.threads.size() + delta->brief.size(); // whole and as rows
            sample = decoder.apply(*delta);
        } else if (std::holds_alternative<protocol::ErrorEvent>(*event)) {
            ok = false;
            break;
        }
        if (!sample)
            continue;
        if (beginNs == 0) { // the first sample: the window starts, and a table's rows are in focus
            if (lean) {
                protocol::WatchFocusCommand focus { 1, {}, false };
                for (std::size_t i = 0; i < sample->threads.size() && i < o.focus; ++i)
                    focus.tids.push_back(sample->threads[i].tid);
                ok = sendLine(worker, protocol::commandLine(focus));
            }
            beginNs = nowNs();
            workerBegin = processCpuNs(worker.pid).value_or(0);
            readerBegin = threadCpuNs();
            bytesBegin = lines.bytes;
            w.threadsSent = 0;
            deadline = beginNs + o.seconds * 1e9;
            continue;
        }
        ++w.samples;
        w.threadsHeld = sample->threads.size();
        w.backend = std::string(ctxscope::toString(sample->backend));
        endNs = nowNs();
        workerEnd = processCpuNs(worker.pid).value_or(0);
        readerEnd = threadCpuNs();
    }
    sendLine(worker, protocol::commandLine(protocol::QuitCommand {}));
    ::close(worker.in);
    // The worker's last lines (the watch's summary, bye) are not measured: drained and dropped.
    while (lines.next(nowNs() + 5e9)) { }
    ::close(worker.out);
    int status = 0;
    ::waitpid(worker.pid, &status, 0);
    if (!ok || w.samples == 0 || endNs <= beginNs || workerBegin == 0)
        return w;
    w.ok = true;
    w.seconds = (endNs - beginNs) / 1e9;
    w.workerShare = (workerEnd - workerBegin) / (endNs - beginNs);
    w.readerShare = (readerEnd - readerBegin) / (endNs - beginNs);
    w.bytesPerSample = static_cast<double>(lines.bytes - bytesBegin) / w.samples;
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
        else if (a == "--focus" && value)
            o.focus = static_cast<std::size_t>(std::atoi(argv[++i]));
        else if (a == "--backend" && value) {
            const std::string name = argv[++i];
            o.backend = ctxscope::schedBackendFrom(name);
            o.badBackend = name != "auto" && (!o.backend || *o.backend == ctxscope::SchedBackend::Proc);
        } else if (a == "--json" && value)
            o.json = argv[++i];
        else
            o.cli = a;
    }
    return o;
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

} // namespace

int main(int argc, char** argv)
{
    const Options o = parse(argc, argv);
    if (o.cli.empty() || o.seconds <= 0 || o.rounds < 1 || o.threads < 1 || o.badBackend) {
        fmt::print(stderr,
            "usage: perf_worker_watch CLI [--seconds 10] [--rounds 3] [--threads 1000] [--focus 40] "
            "[--backend auto|ftrace|bpf] [--json FILE]\n");
        return 2;
    }
    ::signal(SIGPIPE, SIG_IGN);
    const std::string log = o.json.empty() ? std::string("/dev/null") : o.json + ".log";
    const Child program = spawn({ o.cli, "workload", "sleepers", "--threads", std::to_string(o.threads) }, log, false);
    if (program.pid < 0)
        return 2;
    for (int i = 0; i < 600 && threadCount(program.pid) < static_cast<std::size_t>(o.threads) + 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::map<std::string, std::vector<double>> worker, reader, whole, bytes, sent;
    std::vector<double> loads;
    std::string ran; // the backend the watches used, as their samples say
    bool ok = threadCount(program.pid) >= static_cast<std::size_t>(o.threads);
    for (int round = 0; ok && round < o.rounds; ++round)
        for (int k = 0; ok && k < 2; ++k) {
            const bool lean = (k + round) % 2 == 1;
            const std::string name = lean ? "lean" : "full";
            const Window w = measure(o, program.pid, lean, log);
            ok = w.ok && (ran.empty() || ran == w.backend);
            if (!ok)
                break;
            ran = w.backend;
            worker[name].push_back(w.workerShare);
            reader[name].push_back(w.readerShare);
            whole[name].push_back(w.workerShare + w.readerShare);
            bytes[name].push_back(w.bytesPerSample);
            sent[name].push_back(static_cast<double>(w.threadsSent) / w.samples);
            fmt::print("round {} {}: worker {:.2f}% + reader {:.2f}% of one CPU over {:.1f} s, {} samples of {:.0f} "
                       "bytes, {:.0f} of {} threads sent a sample; load average {:.2f}\n",
                round + 1, name, w.workerShare * 100, w.readerShare * 100, w.seconds, w.samples, w.bytesPerSample,
                static_cast<double>(w.threadsSent) / w.samples, w.threadsHeld, load1());
        }
    loads.push_back(load1());
    ::kill(program.pid, SIGTERM);
    ::waitpid(program.pid, nullptr, 0);
    if (!ok) {
        fmt::print(stderr, "perf_worker_watch: the workload or a watch failed (tracing needs root; see {})\n", log);
        return 2;
    }
    nlohmann::json report = { { "threads", o.threads }, { "seconds", o.seconds }, { "rounds", o.rounds },
        { "focus", o.focus }, { "backend", ran }, { "asked", o.backend ? ctxscope::toString(*o.backend) : "auto" },
        { "interval_s", 0.5 }, { "load", median(loads) }, { "goal", kGoal } };
    fmt::print("{} threads each waking every 0.1 s, watched traced at 2 Hz ({}), median of {} rounds of {} s:\n",
        o.threads, ran, o.rounds, o.seconds);
    for (const char* name : { "full", "lean" }) {
        report[name] = { { "worker_share", median(worker[name]) }, { "reader_share", median(reader[name]) },
            { "share", median(whole[name]) }, { "bytes_per_sample", median(bytes[name]) },
            { "threads_sent_per_sample", median(sent[name]) }, { "rounds", whole[name] } };
        fmt::print("  {}: worker {:.2f}% + reader {:.2f}% = {:.2f}% of one CPU; {:.0f} bytes and {:.0f} threads a "
                   "sample\n",
            name, median(worker[name]) * 100, median(reader[name]) * 100, median(whole[name]) * 100,
            median(bytes[name]), median(sent[name]));
    }
    const bool met = median(whole["lean"]) < kGoal;
    fmt::print("  goal: lean < {:.0f}% of one CPU: {}\n", kGoal * 100, met ? "met" : "MISSED");
    if (!o.json.empty())
        std::ofstream(o.json) << report.dump(2) << '\n';
    return met ? 0 : 1;
}
