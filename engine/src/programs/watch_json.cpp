// SPDX-License-Identifier: MIT
// The watch's JSON lines: what `watch --json` writes and the worker streams.
#include "ctxscope/topology.h"
#include "ctxscope/watch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ctxscope {

namespace {

using nlohmann::json;

// A line written as nlohmann's dump() writes it: keys in its order (std::map's: byte order),
// no spaces, numbers through its own float formatter. Each member writes its key and a comma
// before any but the first.
class LineWriter {
public:
    explicit LineWriter(std::string& out)
        : m_out(out)
    {
    }

    void open(char c)
    {
        m_out += c;
        m_first = true;
    }
    void close(char c)
    {
        m_out += c;
        m_first = false;
    }
    void key(std::string_view k)
    {
        comma();
        m_out += '"';
        m_out += k; // the writer's own keys: nothing to escape
        m_out += "\":";
        m_first = true; // the value that follows takes no comma
    }
    // An element of an array (or a key's value): a comma before it unless it comes first.
    void comma()
    {
        if (!m_first)
            m_out += ',';
        m_first = false;
    }

    void string(std::string_view v)
    {
        comma();
        const bool plain
            = std::all_of(v.begin(), v.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
        if (plain) {
            m_out += '"';
            m_out += v;
            m_out += '"';
        } else { // escapes and UTF-8 as dump() writes them (and refuses)
            m_out += json(std::string(v)).dump();
        }
    }
    void boolean(bool v)
    {
        comma();
        m_out += v ? "true" : "false";
    }
    void null()
    {
        comma();
        m_out += "null";
    }
    template <typename T>
    requires std::is_integral_v<T>
    void integer(T v)
    {
        comma();
        char buf[24];
        const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
        m_out.append(buf, end);
    }
    void number(double v)
    {
        comma();
        if (!std::isfinite(v)) {
            m_out += "null"; // as dump()
            return;
        }
        char buf[64];
        // A whole number below 10^15 (counts, bins' edges, zero rates: about 4 in 10 of a
        // watch's numbers) is written as dump() writes it, its digits and ".0", without the
        // float formatter's search for the shortest digits. -0.0 takes the formatter.
        constexpr double kWholeBelow = 1e15;
        if (v != 0 && std::abs(v) < kWholeBelow && std::trunc(v) == v) {
            char* end = std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(v)).ptr;
            *end++ = '.';
            *end++ = '0';
            m_out.append(buf, static_cast<std::size_t>(end - buf));
            return;
        }
        if (v == 0 && !std::signbit(v)) {
            m_out += "0.0";
            return;
        }
        const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
        m_out.append(buf, static_cast<std::size_t>(end - buf));
    }
    void number(const std::optional<double>& v) { v ? number(*v) : null(); }

    template <typename T> void integers(const std::vector<T>& values)
    {
        comma();
        open('[');
        for (T v : values)
            integer(v);
        close(']');
    }

private:
    std::string& m_out;
    bool m_first = true;
};

void writePeers(LineWriter& w, std::string_view key, const std::vector<SchedPeer>& peers, bool lean)
{
    if (lean && peers.empty())
        return;
    w.key(key);
    w.open('[');
    for (const auto& p : peers) {
        w.comma();
        w.open('{');
        w.key("count");
        w.integer(p.count);
        w.key("name");
        w.string(p.name);
        w.key("tid");
        w.integer(p.tid);
        w.close('}');
    }
    w.close(']');
}

// threadSchedToJson's block; lean: as toJson(WatchDeltaEvent) makes it (protocol.md).
void writeSched(LineWriter& w, const ThreadSched& s, bool lean)
{
    w.open('{');
    w.key("lost_events");
    w.integer(s.lostEvents);
    if (!lean || !s.migrations.empty()) {
        w.key("migrations");
        w.open('[');
        for (const auto& m : s.migrations) {
            w.comma();
            w.open('{');
            w.key("count");
            w.integer(m.count);
            w.key("from");
            w.integer(m.from);
            w.key("relation");
            w.string(m.relation);
            w.key("to");
            w.integer(m.to);
            w.close('}');
        }
        w.close(']');
    }
    writePeers(w, "preemptors", s.preemptors, lean);
    w.key("switch_ins");
    w.integer(s.switchIns);
    w.key("unrecorded_switch_ins");
    w.integer(s.unrecordedSwitchIns);
    if (s.fromEnqueue.known) {
        w.key("wait_from_enqueue");
        w.open('{');
        w.key("count");
        w.integer(s.fromEnqueue.count);
        w.key("log2_us_hist");
        w.integers(s.fromEnqueue.log2UsHist);
        w.key("mean_ns");
        w.number(s.fromEnqueue.meanNs);
        w.key("p50_ns");
        w.number(s.fromEnqueue.p50Ns);
        w.key("p99_ns");
        w.number(s.fromEnqueue.p99Ns);
        w.close('}');
    }
    w.key("wake_latency");
    w.open('{');
    w.key("count");
    w.integer(s.wake.count);
    w.key("from_bins");
    w.boolean(s.wake.fromBins);
    if (!lean) {
        w.key("log2_hist");
        w.integers(s.wake.log2Hist);
    } else {
        const auto& hist = s.wake.log2Hist;
        if (std::any_of(hist.begin(), hist.end(), [](std::uint64_t n) { return n != 0; })) {
            w.key("log2_grew");
            w.open('[');
            for (std::size_t i = 0; i < hist.size(); ++i)
                if (hist[i] != 0) {
                    w.comma();
                    w.open('[');
                    w.integer(i);
                    w.integer(hist[i]);
                    w.close(']');
                }
            w.close(']');
        }
        if (!hist.empty()) {
            w.key("log2_size");
            w.integer(hist.size());
        }
    }
    w.key("max_ns");
    w.number(s.wake.maxNs);
    w.key("mean_ns");
    w.number(s.wake.meanNs);
    w.key("p50_ns");
    w.number(s.wake.p50Ns);
    w.key("p99_ns");
    w.number(s.wake.p99Ns);
    w.close('}');
    writePeers(w, "wakers", s.wakers, lean);
    w.close('}');
}

// The keys a sample's thread (ThreadRates) and a summary's (ThreadSummary) share, in a row of
// their byte order: involuntary_per_s to sched.
template <typename Thread> void writeRatesFromInvoluntaryToSched(LineWriter& w, const Thread& t, bool lean)
{
    w.key("involuntary_per_s");
    w.number(t.involuntaryPerS);
    w.key("migrations_lower_bound");
    w.boolean(t.migrationsLowerBound);
    w.key("migrations_per_s");
    w.number(t.migrationsPerS);
    w.key("name");
    w.string(t.name);
    w.key("runqueue_wait_per_s");
    w.number(t.runqueueWaitPerS);
    if (t.sched) {
        w.key("sched");
        writeSched(w, *t.sched, lean);
    }
}

void writeThread(LineWriter& w, const ThreadRates& t, bool lean)
{
    w.comma();
    w.open('{');
    w.key("affinity");
    w.string(formatCpuList(t.affinity));
    w.key("cpu");
    t.cpu ? w.integer(*t.cpu) : w.null();
    w.key("cpu_share");
    w.number(t.cpuShare);
    writeRatesFromInvoluntaryToSched(w, t, lean);
    w.key("state");
    w.string(std::string_view(&t.state, 1));
    w.key("tid");
    w.integer(t.tid);
    w.key("voluntary_per_s");
    w.number(t.voluntaryPerS);
    w.close('}');
}

// A thread out of focus in a lean watch, as a row of values (docs/protocol.md): [tid, state,
// cpu, cpu_share, voluntary_per_s, involuntary_per_s, runqueue_wait_per_s, migrations_per_s,
// migrations_lower_bound, sched], sched [switch_ins, unrecorded_switch_ins, lost_events, count,
// mean_ns, p50_ns, p99_ns, max_ns, from_bins, wait_from_enqueue] or null, wait_from_enqueue
// [count, mean_ns, p50_ns, p99_ns, log2_us_hist] or null.
void writeRow(LineWriter& w, const ThreadRates& t)
{
    w.comma();
    w.open('[');
    w.integer(t.tid);
    w.string(std::string_view(&t.state, 1));
    t.cpu ? w.integer(*t.cpu) : w.null();
    w.number(t.cpuShare);
    w.number(t.voluntaryPerS);
    w.number(t.involuntaryPerS);
    w.number(t.runqueueWaitPerS);
    w.number(t.migrationsPerS);
    w.boolean(t.migrationsLowerBound);
    if (!t.sched) {
        w.null();
        w.close(']');
        return;
    }
    const ThreadSched& s = *t.sched;
    w.comma();
    w.open('[');
    w.integer(s.switchIns);
    w.integer(s.unrecordedSwitchIns);
    w.integer(s.lostEvents);
    w.integer(s.wake.count);
    w.number(s.wake.meanNs);
    w.number(s.wake.p50Ns);
    w.number(s.wake.p99Ns);
    w.number(s.wake.maxNs);
    w.boolean(s.wake.fromBins);
    if (s.fromEnqueue.known) {
        w.comma();
        w.open('[');
        w.integer(s.fromEnqueue.count);
        w.number(s.fromEnqueue.meanNs);
        w.number(s.fromEnqueue.p50Ns);
        w.number(s.fromEnqueue.p99Ns);
        w.integers(s.fromEnqueue.log2UsHist);
        w.close(']');
    } else {
        w.null();
    }
    w.close(']');
    w.close(']');
}

} // namespace

void appendWatchSampleLine(std::string& out, const WatchSample& s, const WatchLineForm& form)
{
    LineWriter w(out);
    w.open('{');
    w.key("appeared");
    w.integers(s.appeared);
    w.key("backend");
    w.string(toString(s.backend));
    if (!s.backendFallback.empty()) {
        w.key("backend_fallback");
        w.string(s.backendFallback);
    }
    w.key("ended");
    w.open('[');
    for (const auto& e : s.ended) {
        w.comma();
        w.open('{');
        w.key("name");
        w.string(e.name);
        w.key("tid");
        w.integer(e.tid);
        w.close('}');
    }
    w.close(']');
    if (form.delta) {
        w.key("gone");
        w.open('[');
        for (long tid : form.gone)
            w.integer(tid);
        w.close(']');
    }
    if (form.id) {
        w.key("id");
        w.integer(*form.id);
    }
    w.key("interval_s");
    w.number(s.intervalS);
    w.key("kernel");
    w.boolean(s.kernel);
    w.key("mono_ns");
    w.integer(s.monoNs);
    w.key("name");
    w.string(s.name);
    w.key("pid");
    w.integer(s.pid);
    if (!form.rows.empty()) {
        w.key("rows");
        w.open('[');
        for (const auto& t : form.rows)
            writeRow(w, t);
        w.close(']');
    }
    w.key("seconds");
    w.number(s.seconds);
    w.key("system");
    w.open('{');
    w.key("context_switches_per_s");
    w.number(s.systemSwitchesPerS);
    w.key("cpus");
    w.open('[');
    for (const auto& c : s.cpus) {
        w.comma();
        w.open('{');
        w.key("busy_share");
        w.number(c.busyShare);
        w.key("cpu");
        w.integer(c.cpu);
        w.close('}');
    }
    w.close(']');
    w.close('}');
    w.key("threads");
    w.open('[');
    for (const auto& t : s.threads)
        writeThread(w, t, form.delta);
    w.close(']');
    w.key("type");
    w.string(form.delta ? "watch_delta" : "watch_sample");
    if (form.whole) {
        w.key("whole");
        w.boolean(true);
    }
    w.close('}');
}

void appendWatchSummaryLine(std::string& out, const WatchSummary& s, std::optional<std::uint64_t> id)
{
    LineWriter w(out);
    w.open('{');
    w.key("backend");
    w.string(toString(s.backend));
    w.key("ending");
    s.ending.empty() ? w.null() : w.string(s.ending);
    if (id) {
        w.key("id");
        w.integer(*id);
    }
    w.key("name");
    w.string(s.name);
    w.key("pid");
    w.integer(s.pid);
    w.key("samples");
    w.integer(s.samples);
    w.key("seconds");
    w.number(s.seconds);
    w.key("threads");
    w.open('[');
    for (const auto& t : s.threads) {
        w.comma();
        w.open('{');
        w.key("affinity");
        w.string(formatCpuList(t.affinity));
        w.key("cpu_share");
        w.number(t.cpuShare);
        w.key("cpus_seen");
        w.string(formatCpuList(t.cpusSeen));
        w.key("ended");
        w.boolean(t.ended);
        writeRatesFromInvoluntaryToSched(w, t, false);
        w.key("seconds");
        w.number(t.seconds);
        w.key("tid");
        w.integer(t.tid);
        w.key("voluntary_per_s");
        w.number(t.voluntaryPerS);
        w.close('}');
    }
    w.close(']');
    w.key("type");
    w.string("watch_summary");
    w.close('}');
}

} // namespace ctxscope
