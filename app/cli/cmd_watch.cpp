// SPDX-License-Identifier: MIT
// ctxscope-cli watch PID: a running program's threads, their switches, CPU, run-queue wait and
// migrations every interval, as pidstat -w and top -H show parts of it.
#include "commands.h"
#include "interrupt.h"
#include "trace_options.h"

#include "ctxscope/topology.h"
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/units.h"
#include "ctxscope/version.h"
#include "ctxscope/watch.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace ctxscope::cli {

namespace {

struct WatchOptions {
    long pid = 0;
    double interval = 1.0; // pidstat's and vmstat's usual second
    double duration = 0;
    std::string json;
    bool trace = false;
    std::string traceOut; // implies trace
    std::string backend; // bpf, ftrace or proc; "": the cheapest allowed
    int rows = 20; // the text table's threads per interval, busiest first (0: every thread)
};

// How much of a watch's recording --trace-out keeps (its beginning; watch says when it was
// cut short).
constexpr std::size_t kWatchTraceBytes = 256U << 20;

std::string waitText(const std::optional<double>& perS)
{
    return perS ? fmt::format("{:.2f}", *perS * 1000) : std::string("-");
}

std::string durationText(double ns) { return ns > 0 ? formatDuration(ns) : std::string("-"); }

std::string backendText(SchedBackend b)
{
    switch (b) {
    case SchedBackend::Bpf:
        return "BPF (scheduler counts kept in the kernel)";
    case SchedBackend::Ftrace:
        return "ftrace (the scheduler's events)";
    case SchedBackend::Proc:
        return "/proc";
    }
    return "/proc";
}

// A thread's wake-up latency is not printed when more than 1% of its switch-ins went
// unrecorded (the kernel did not report them, and they could not be rebuilt): the waits left
// would be a biased subset.
bool measurable(const ThreadSched& s) { return s.unrecordedSwitchIns * 100 <= s.switchIns + s.unrecordedSwitchIns; }

// A wait's text; "~" marks an estimate within its log2 bin (the BPF backend's p50 and p99).
std::string waitFigure(double ns, bool estimate)
{
    return ns > 0 ? (estimate ? "~" : "") + formatDuration(ns) : std::string("-");
}

std::string peerText(const std::vector<SchedPeer>& peers)
{
    if (peers.empty())
        return "-";
    const auto& p = peers.front();
    return fmt::format("{}({}) {}", p.name.empty() ? "?" : p.name, p.tid, p.count);
}

std::string migrationText(const std::vector<SchedMigration>& moves)
{
    std::string out;
    for (std::size_t i = 0; i < moves.size() && i < 2; ++i)
        out += fmt::format("{}{}->{} {} x{}", out.empty() ? "" : ", ", moves[i].from, moves[i].to,
            moves[i].relation.empty() ? "?" : moves[i].relation, moves[i].count);
    return out.empty() ? "-" : out;
}

// A thread's row in the scheduler's table (--trace); the name is carried, not looked up, so
// a table of 1,000 threads is not 1,000 searches of 1,000 rows.
struct SchedRow {
    long tid;
    const std::string& name;
    const ThreadSched& sched;
};

template <typename Row> std::vector<SchedRow> schedRows(const std::vector<Row>& threads)
{
    std::vector<SchedRow> rows;
    for (const auto& t : threads)
        if (t.sched)
            rows.push_back({ t.tid, t.name, *t.sched });
    return rows;
}

// The BPF backend's waits from the enqueue, over the measurable rows: where runqlat starts a
// wait, and how much of the wait from sched_waking came before it.
void printFromEnqueue(const std::vector<SchedRow>& rows)
{
    std::uint64_t waits = 0;
    std::uint64_t queued = 0;
    double wakeSum = 0;
    double queuedSum = 0;
    for (const auto& r : rows) {
        if (!measurable(r.sched) || !r.sched.fromEnqueue.known)
            continue;
        waits += r.sched.wake.count;
        wakeSum += r.sched.wake.meanNs * static_cast<double>(r.sched.wake.count);
        queued += r.sched.fromEnqueue.count;
        queuedSum += r.sched.fromEnqueue.meanNs * static_cast<double>(r.sched.fromEnqueue.count);
    }
    if (queued == 0)
        return;
    const double wakeMean = wakeSum / static_cast<double>(waits);
    const double queuedMean = queuedSum / static_cast<double>(queued);
    fmt::print("from the enqueue (sched_wakeup, where runqlat starts): mean {} over {} waits", durationText(queuedMean),
        queued);
    // The difference of the means is each wait's way to its CPU only when both count the same waits.
    if (queued == waits && wakeMean >= queuedMean)
        fmt::print("; {} of the mean {} from sched_waking came before it: the wake-up's way to the woken thread's "
                   "CPU (an IPI, an idle exit)",
            durationText(wakeMean - queuedMean), durationText(wakeMean));
    fmt::print("\n");
}

// The scheduler's view of each thread (--trace): wake-up latency, who woke it, who preempted it.
void printSched(const std::vector<SchedRow>& rows)
{
    if (rows.empty())
        return;
    fmt::print("{:>8} {:<16} {:>7} {:>9} {:>9} {:>9} {:<24} {:<24} {}\n", "TID", "name", "wakes", "wake p50",
        "wake p99", "wake max", "top waker", "top preemptor", "migrations");
    std::uint64_t lost = 0;
    for (const auto& r : rows)
        lost = std::max(lost, r.sched.lostEvents);
    if (lost > 0)
        fmt::print("the kernel lost {} events: these figures miss some wake-ups\n", lost);
    std::uint64_t unrecorded = 0;
    for (const auto& r : rows)
        unrecorded += r.sched.unrecordedSwitchIns;
    if (unrecorded > 0)
        fmt::print("the kernel did not record {} switch-ins (it does not on some VMs): their waits are unknown and "
                   "left out\n",
            unrecorded);
    bool binned = false;
    for (const auto& [tid, name, s] : rows) {
        if (!measurable(s)) {
            fmt::print("{:>8} {:<16} not measurable here: {} of {} switch-ins unrecorded   {:<24} {:<24} {}\n", tid,
                name, s.unrecordedSwitchIns, s.switchIns + s.unrecordedSwitchIns, peerText(s.wakers),
                peerText(s.preemptors), migrationText(s.migrations));
            continue;
        }
        binned = binned || (s.wake.fromBins && s.wake.count > 0);
        fmt::print("{:>8} {:<16} {:>7} {:>9} {:>9} {:>9} {:<24} {:<24} {}\n", tid, name, s.wake.count,
            waitFigure(s.wake.p50Ns, s.wake.fromBins), waitFigure(s.wake.p99Ns, s.wake.fromBins),
            durationText(s.wake.maxNs), peerText(s.wakers), peerText(s.preemptors), migrationText(s.migrations));
    }
    if (binned)
        fmt::print("~: estimated within its log2 bin (BPF keeps bins, not each wait; the count and mean are exact)\n");
    printFromEnqueue(rows);
}

// The threads an interval's text table shows: the `rows` busiest (switches, then CPU share),
// busiest first; every thread, in TID order, when rows is 0 or the process has no more. A
// program of 1,000 threads is not 1,000 lines every interval: --json has every thread.
std::vector<const ThreadRates*> shownThreads(const WatchSample& s, int rows)
{
    std::vector<const ThreadRates*> shown;
    for (const auto& t : s.threads)
        shown.push_back(&t);
    if (rows <= 0 || shown.size() <= static_cast<std::size_t>(rows))
        return shown;
    const auto busier = [](const ThreadRates* a, const ThreadRates* b) {
        const double sa = a->voluntaryPerS + a->involuntaryPerS;
        const double sb = b->voluntaryPerS + b->involuntaryPerS;
        if (sa != sb)
            return sa > sb;
        if (a->cpuShare != b->cpuShare)
            return a->cpuShare > b->cpuShare;
        return a->tid < b->tid;
    };
    std::partial_sort(shown.begin(), shown.begin() + rows, shown.end(), busier);
    shown.resize(static_cast<std::size_t>(rows));
    return shown;
}

void printSample(const WatchSample& s, int rows)
{
    fmt::print("\n{:.1f} s", s.seconds);
    if (s.systemSwitchesPerS)
        fmt::print("  system {:.0f} switches/s", *s.systemSwitchesPerS);
    if (!s.cpus.empty()) {
        fmt::print("  CPU busy:");
        for (const auto& c : s.cpus)
            fmt::print(" {} {:.0f}%", c.cpu, c.busyShare * 100);
    }
    fmt::print("\n{:>8} {:<16} {:>2} {:>4} {:<10} {:>9} {:>9} {:>6} {:>10} {:>7}\n", "TID", "name", "st", "cpu",
        "affinity", "vol/s", "invol/s", "cpu%", "rq-wait", "migr/s");
    const std::vector<const ThreadRates*> shown = shownThreads(s, rows);
    std::vector<SchedRow> sched;
    for (const ThreadRates* t : shown) {
        fmt::print("{:>8} {:<16} {:>2} {:>4} {:<10} {:>9.0f} {:>9.0f} {:>6.1f} {:>10} {:>6.1f}{}\n", t->tid, t->name,
            t->state, t->cpu ? std::to_string(*t->cpu) : "-", formatCpuList(t->affinity), t->voluntaryPerS,
            t->involuntaryPerS, t->cpuShare * 100, waitText(t->runqueueWaitPerS), t->migrationsPerS,
            t->migrationsLowerBound ? "+" : "");
        if (t->sched)
            sched.push_back({ t->tid, t->name, *t->sched });
    }
    if (shown.size() < s.threads.size())
        fmt::print("  ... and {} quieter threads (--rows 0 shows every thread; --json writes them all)\n",
            s.threads.size() - shown.size());
    printSched(sched);
    for (const long tid : s.appeared)
        fmt::print("  + thread {} started\n", tid);
    for (const auto& e : s.ended)
        fmt::print("  - thread {} ({}) ended\n", e.tid, e.name);
}

void printSummary(const WatchSummary& s)
{
    fmt::print(
        "\nprocess {} ({}) over {:.1f} s, {} samples: each thread's average\n", s.pid, s.name, s.seconds, s.samples);
    fmt::print("{:>8} {:<16} {:>9} {:>9} {:>6} {:>10} {:>7} {:<10} {:<10}\n", "TID", "name", "vol/s", "invol/s", "cpu%",
        "rq-wait", "migr/s", "CPUs seen", "affinity");
    bool lowerBound = false;
    for (const auto& t : s.threads) {
        fmt::print("{:>8} {:<16} {:>9.0f} {:>9.0f} {:>6.1f} {:>10} {:>6.1f}{} {:<10} {:<10}{}\n", t.tid, t.name,
            t.voluntaryPerS, t.involuntaryPerS, t.cpuShare * 100, waitText(t.runqueueWaitPerS), t.migrationsPerS,
            t.migrationsLowerBound ? "+" : " ", formatCpuList(t.cpusSeen), formatCpuList(t.affinity),
            t.ended ? " (ended)" : "");
        lowerBound = lowerBound || t.migrationsLowerBound;
    }
    fmt::print("rq-wait: milliseconds per second spent runnable but waiting for a CPU (schedstat).\n");
    const std::vector<SchedRow> sched = schedRows(s.threads);
    if (!sched.empty()) {
        fmt::print("\nfrom the scheduler's events ({}): a wake is runnable -> running (sched_waking or a "
                   "preemption -> sched_switch in)\n",
            toString(s.backend));
        printSched(sched);
    }
    if (lowerBound)
        fmt::print("migr/s+: this kernel does not count migrations (no CONFIG_SCHED_DEBUG); counted from last-CPU "
                   "changes between samples, a lower bound.\n");
}

class JsonLines {
public:
    explicit JsonLines(const std::string& where)
    {
        if (!where.empty() && where != "-")
            m_file.open(where, std::ios::binary | std::ios::trunc);
        m_where = where;
    }
    bool ok() const { return m_where.empty() || m_where == "-" || m_file.is_open(); }
    // Whether anything is written: a sample of 1,000 threads is not made into JSON for nothing.
    bool wanted() const { return !m_where.empty(); }
    // A sample or the summary written straight to its line (appendWatchSampleLine,
    // appendWatchSummaryLine): no JSON tree for 1,000 threads.
    void write(const WatchSample& sample)
    {
        m_line.clear();
        appendWatchSampleLine(m_line, sample);
        writeLine(m_line);
    }
    void write(const WatchSummary& summary)
    {
        m_line.clear();
        appendWatchSummaryLine(m_line, summary);
        writeLine(m_line);
    }

private:
    void writeLine(const std::string& line)
    {
        if (m_where == "-") {
            std::fwrite(line.data(), 1, line.size(), stdout);
            std::fputc('\n', stdout);
            std::fflush(stdout);
        } else if (m_file.is_open()) {
            m_file << line << '\n';
            m_file.flush();
        }
    }

    std::string m_where;
    std::ofstream m_file;
    std::string m_line; // kept: a sample's line reuses the last one's buffer
};

// The backend --backend names, or else the cheapest this process may use
// (chooseWatchBackend); --trace-out needs ftrace's events. A fallback from the default says why
// in one sentence on stderr (here, or in run() when the kernel refuses the BPF programs); a
// backend named but not allowed here is refused (exit 2).
Expected<WatchBackendChoice> chooseBackend(const WatchOptions& o)
{
    const bool events = !o.traceOut.empty();
    std::optional<SchedBackend> named;
    if (!o.backend.empty()) {
        named = schedBackendFrom(o.backend);
        if (!named)
            return makeError("--backend must be bpf, ftrace or proc");
        if (*named == SchedBackend::Bpf && events)
            return makeError("--trace-out needs the scheduler's events, which only --backend ftrace keeps");
        if (*named == SchedBackend::Proc && (o.trace || events))
            return makeError("--backend proc reads no scheduler events: leave out --trace and --trace-out");
    }
    auto choice = chooseWatchBackend(named, o.trace, events);
    if (!choice)
        return makeError(
            named == SchedBackend::Bpf ? "--backend bpf: " + choice.error().message : choice.error().message);
    if (choice->backend == SchedBackend::Ftrace && !choice->fallback.empty())
        fmt::print(stderr, "ctxscope-cli: watching with ftrace, not BPF: {}\n", choice->fallback);
    else if (choice->backend == SchedBackend::Proc && !choice->fallback.empty())
        fmt::print(stderr, "ctxscope-cli: watching with /proc alone (no scheduler events): {}\n", choice->fallback);
    return choice;
}

int run(const WatchOptions& o)
{
    if (!(o.interval >= 0.05 && o.interval <= 3600))
        return badInput("--interval must be between 0.05 and 3600 seconds");
    if (!(o.duration >= 0))
        return badInput("--duration must be 0 (until Ctrl-C) or more seconds");
    JsonLines json(o.json);
    if (!json.ok())
        return badInput("cannot write " + o.json);
    const bool text = o.json != "-";
    if (!o.traceOut.empty())
        if (Status writable = checkTraceOut(o.traceOut); !writable)
            return badInput(writable.error().message);
    auto choice = chooseBackend(o);
    if (!choice)
        return badInput(choice.error().message);
    const SchedBackend backend = choice->backend;
    ctxscope::WatchOptions options;
    options.trace = backend != SchedBackend::Proc;
    options.backend = backend;
    options.backendFallback = std::move(choice->fallback); // each JSON line says it too
    if (o.backend.empty() && backend == SchedBackend::Bpf) // the default: a refusal falls back as above
        options.onBpfFallback = [](const std::string& why) {
            fmt::print(stderr, "ctxscope-cli: watching with ftrace, not BPF: {}\n", why);
        };
    Status written;
    if (!o.traceOut.empty()) {
        options.keepTraceBytes = kWatchTraceBytes;
        options.traceMarks = { fmt::format("ctxscope {}: watch of process {}", kVersion, o.pid) };
        options.onRecording = [&](const RawTrace& recording, bool complete) {
            std::vector<std::string> comments = options.traceMarks;
            if (!complete)
                comments.push_back(
                    fmt::format("the recording stops where it reached {} MiB: later events are not in this file",
                        kWatchTraceBytes >> 20));
            written = writeTraceFile(recording, o.traceOut, comments);
            if (written)
                fmt::print(stderr, "ctxscope-cli: wrote the trace to {}{}\n", o.traceOut,
                    complete ? "" : fmt::format(" (its first {} MiB only)", kWatchTraceBytes >> 20));
        };
    }
    InterruptScope interrupt;
    bool announced = false;
    const auto summary = runWatch(
        o.pid, o.interval, o.duration, interrupt.token(),
        [&](const WatchSample& s) {
            if (json.wanted())
                json.write(s);
            if (text) {
                if (!announced)
                    fmt::print("watching process {} ({}) every {} s with {}; Ctrl-C stops\n", s.pid, s.name, o.interval,
                        backendText(s.backend));
                announced = true;
                printSample(s, o.rows);
                std::fflush(stdout);
            }
        },
        options);
    if (!summary)
        return badInput(summary.error().message);
    if (!written)
        fmt::print(stderr, "ctxscope-cli: could not write the trace to {}: {}\n", o.traceOut, written.error().message);
    if (json.wanted())
        json.write(*summary);
    if (text) {
        printSummary(*summary);
        if (!summary->ending.empty())
            fmt::print("The watch ended: {}.\n", summary->ending);
    }
    return interrupt.requested() ? kInterrupted : written ? kOk : kMeasurementFailed;
}

} // namespace

Command addWatchCommand(CLI::App& app)
{
    auto c = subcommand<WatchOptions>(app, "watch",
        "Watch a running process: each thread's CPU, affinity, switches/s, CPU share, run-queue wait and "
        "migrations, every interval, then each thread's average");
    c.sub->add_option("PID", c.options->pid, "The process to watch")->required();
    c.sub->add_option("--interval", c.options->interval, "Seconds between samples")->capture_default_str();
    c.sub->add_option("--duration", c.options->duration, "Stop after S seconds (default: until Ctrl-C)");
    c.sub
        ->add_option("--rows", c.options->rows,
            "The threads each interval's table shows, busiest first (0: every thread, in TID order); the "
            "summary shows every thread")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    c.sub->add_option("--json", c.options->json,
        "Write one JSON line per sample (watch_sample) and a last one (watch_summary) to FILE, or - for stdout");
    c.sub->add_flag("--trace", c.options->trace,
        "Follow the threads' scheduler events (the default where allowed): each thread's wake-up latency "
        "(runnable -> running, runqlat's bins), top wakers and preemptors, migrations by relation class; with BPF "
        "where this process may load it, else a private ftrace instance (root or a tracefs your group may write)");
    c.sub->add_option("--backend", c.options->backend,
        "What observes the threads: bpf (counts kept in the kernel, the cheapest; CAP_BPF and CAP_PERFMON), "
        "ftrace (every scheduler event read; --trace-out needs it) or proc (/proc alone, no scheduler events). "
        "Default: the first of these allowed here");
    c.sub->add_option("--trace-out", c.options->traceOut,
        fmt::format("Also write the threads' scheduler events to FILE: .dat is trace-cmd's trace.dat (trace-cmd "
                    "report, KernelShark), .txt the kernel's text format (Perfetto UI); implies --trace; the first {} "
                    "MiB of events",
            kWatchTraceBytes >> 20));
    return c.done(run);
}

} // namespace ctxscope::cli
