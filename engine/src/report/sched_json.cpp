// SPDX-License-Identifier: MIT
#include "report/sched_json.h"

#include <nlohmann/json.hpp>

namespace ctxscope {

nlohmann::json threadSchedToJson(const ThreadSched& s)
{
    auto peers = [](const std::vector<SchedPeer>& v) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& p : v)
            a.push_back({ { "tid", p.tid }, { "name", p.name }, { "count", p.count } });
        return a;
    };
    nlohmann::json moves = nlohmann::json::array();
    for (const auto& m : s.migrations)
        moves.push_back({ { "from", m.from }, { "to", m.to }, { "relation", m.relation }, { "count", m.count } });
    nlohmann::json out = {
        { "switch_ins", s.switchIns },
        { "unrecorded_switch_ins", s.unrecordedSwitchIns },
        { "wake_latency",
            { { "count", s.wake.count }, { "mean_ns", s.wake.meanNs }, { "p50_ns", s.wake.p50Ns },
                { "p99_ns", s.wake.p99Ns }, { "max_ns", s.wake.maxNs }, { "log2_hist", s.wake.log2Hist },
                { "from_bins", s.wake.fromBins } } },
        { "wakers", peers(s.wakers) },
        { "preemptors", peers(s.preemptors) },
        { "migrations", moves },
        { "lost_events", s.lostEvents },
    };
    if (s.fromEnqueue.known)
        out["wait_from_enqueue"] = { { "count", s.fromEnqueue.count }, { "mean_ns", s.fromEnqueue.meanNs },
            { "p50_ns", s.fromEnqueue.p50Ns }, { "p99_ns", s.fromEnqueue.p99Ns },
            { "log2_us_hist", s.fromEnqueue.log2UsHist } };
    return out;
}

namespace report {

using nlohmann::json;

namespace {

std::vector<std::uint64_t> log2Bins(FieldReader& in, const char* key)
{
    std::vector<std::uint64_t> out;
    for (const json& n : in.array(key)) {
        if (!n.is_number_unsigned()) {
            in.fail("field '" + in.where(key) + "' should hold counts");
            break;
        }
        out.push_back(n.get<std::uint64_t>());
    }
    return out;
}

std::vector<SchedPeer> schedPeers(FieldReader& in, const char* key, bool optional)
{
    std::vector<SchedPeer> out;
    if (optional && !in.optArray(key))
        return out;
    eachObject(in, key, [&](FieldReader& p) {
        out.push_back(SchedPeer { taskId(p, "tid"), p.string("name"), p.count("count") });
    });
    return out;
}

// A lean block's bins: [[bin, count], ...] that grew, within "log2_size" bins.
std::vector<std::uint64_t> grownBins(FieldReader& wake)
{
    constexpr std::uint64_t kMostBins = 64; // 2^64 ns: no wait is longer
    const std::uint64_t size = wake.optCount("log2_size").value_or(0);
    if (size > kMostBins) {
        wake.fail("field '" + wake.where("log2_size") + "' should be at most 64");
        return {};
    }
    std::vector<std::uint64_t> bins(size, 0);
    const json* grew = wake.optArray("log2_grew");
    if (!grew)
        return bins;
    for (const json& pair : *grew) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() || !pair[1].is_number_unsigned()
            || pair[0].get<std::uint64_t>() >= size) {
            wake.fail("field '" + wake.where("log2_grew") + "' should hold [bin, count] pairs within log2_size");
            return {};
        }
        bins[pair[0].get<std::size_t>()] += pair[1].get<std::uint64_t>();
    }
    return bins;
}

} // namespace

ThreadSched threadSchedFromJson(FieldReader& in, bool lean)
{
    ThreadSched s;
    s.switchIns = in.count("switch_ins");
    s.unrecordedSwitchIns = in.optCount("unrecorded_switch_ins").value_or(0);
    FieldReader wake = in.child("wake_latency");
    s.wake.count = wake.count("count");
    s.wake.meanNs = nonNegative(wake, "mean_ns");
    s.wake.p50Ns = nonNegative(wake, "p50_ns");
    s.wake.p99Ns = nonNegative(wake, "p99_ns");
    s.wake.maxNs = nonNegative(wake, "max_ns");
    s.wake.log2Hist = lean ? grownBins(wake) : log2Bins(wake, "log2_hist");
    s.wake.fromBins = wake.optBoolean("from_bins").value_or(false);
    in.absorb(wake);
    // Whole in a lean block too: a few counts and about 20 bins.
    if (in.optObject("wait_from_enqueue")) {
        FieldReader queued = in.child("wait_from_enqueue");
        s.fromEnqueue.known = true;
        s.fromEnqueue.count = queued.count("count");
        s.fromEnqueue.meanNs = nonNegative(queued, "mean_ns");
        s.fromEnqueue.p50Ns = nonNegative(queued, "p50_ns");
        s.fromEnqueue.p99Ns = nonNegative(queued, "p99_ns");
        s.fromEnqueue.log2UsHist = log2Bins(queued, "log2_us_hist");
        in.absorb(queued);
    }
    s.wakers = schedPeers(in, "wakers", lean);
    s.preemptors = schedPeers(in, "preemptors", lean);
    if (!lean || in.optArray("migrations"))
        eachObject(in, "migrations", [&](FieldReader& m) {
            s.migrations.push_back(SchedMigration { static_cast<int>(m.countUpTo("from", 65535)),
                static_cast<int>(m.countUpTo("to", 65535)), m.optString("relation").value_or(""), m.count("count") });
        });
    s.lostEvents = in.optCount("lost_events").value_or(0);
    return s;
}

} // namespace report

} // namespace ctxscope
