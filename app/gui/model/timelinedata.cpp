// SPDX-License-Identifier: MIT
#include "timelinedata.h"

#include <algorithm>
#include <unordered_map>

namespace ctxscope::gui {

namespace {

void collectLanes(const TopoNode& node, TimelineLane around, std::vector<TimelineLane>& out)
{
    if (node.kind == NodeKind::Package)
        around.package = node.logicalIndex;
    else if (node.kind == NodeKind::Cache && node.cacheLevel == 3)
        around.l3 = node.logicalIndex;
    else if (node.kind == NodeKind::Core)
        around.core = node.logicalIndex;
    if (node.kind == NodeKind::Pu) {
        around.pu = node.osIndex;
        out.push_back(around);
        return;
    }
    for (const TopoNode& child : node.children)
        collectLanes(child, around, out);
}

} // namespace

std::vector<TimelineLane> timelineLanes(const Topology& topology)
{
    std::vector<TimelineLane> lanes;
    collectLanes(topology.root(), {}, lanes);
    return lanes;
}

TimelineData TimelineData::build(const std::vector<TraceEvent>& events, const std::map<int, std::string>& comms)
{
    TimelineData d;
    d.m_comms = comms;
    if (events.empty())
        return d;
    d.m_beginNs = events.front().ns;
    d.m_endNs = events.back().ns;
    struct Running {
        std::int32_t pid = 0;
        std::uint64_t sinceNs = 0;
        bool known = false; // a switch said who runs; before the first one, nothing is drawn
    };
    std::map<int, Running> running; // by PU
    std::unordered_map<std::int32_t, int> lastPu; // task -> the PU it last ran on
    struct Pending {
        std::uint64_t wakingNs = 0;
        int fromPu = -1;
        std::int32_t waker = 0;
    };
    std::unordered_map<std::int32_t, Pending> woken; // task -> its first wake-up not yet run
    std::map<int, std::vector<std::size_t>> openIrq; // PU -> marks begun, not ended (nested)
    for (const TraceEvent& e : events) {
        d.m_beginNs = std::min(d.m_beginNs, e.ns);
        d.m_endNs = std::max(d.m_endNs, e.ns);
        Lane& lane = d.m_lanes[e.cpu];
        switch (e.kind) {
        case TraceEventKind::Switch: {
            Running& r = running[e.cpu];
            if (e.pid == kUnrecordedPid && e.other == kUnrecordedPid) {
                if (r.known && e.ns > r.sinceNs)
                    lane.slices.push_back({ r.sinceNs, e.ns, kUnrecordedPid, false });
                r = { kUnrecordedPid, e.ns, true };
                // A wake-up before the gap ran during it, unseen: no arrow across it.
                std::erase_if(woken, [&](const auto& w) { return w.second.wakingNs < e.ns; });
                break;
            }
            // What ran before the lane's first switch is known from it: prev ran since the start.
            std::uint64_t since = r.known ? r.sinceNs : d.m_beginNs;
            // A task leaving a PU it was never switched onto: the kernel did not record its
            // switch-in (some kernels skip the switch out of an idle task; perf misses it too).
            // Woken on that PU since, it ran from its wake-up at the latest: what was there
            // keeps the lane until then, and no arrow is drawn to a switch-in nobody saw.
            if (r.known && r.pid != e.pid && r.pid != kUnrecordedPid) {
                if (auto it = woken.find(e.pid);
                    it != woken.end() && it->second.wakingNs >= since && it->second.wakingNs <= e.ns) {
                    if (it->second.wakingNs > since)
                        lane.slices.push_back({ since, it->second.wakingNs, r.pid, false });
                    since = it->second.wakingNs;
                    woken.erase(it);
                }
            }
            if (e.ns > since)
                lane.slices.push_back({ since, e.ns, e.pid, false });
            r = { e.other, e.ns, true };
            if (e.other != 0) {
                if (auto it = woken.find(e.other); it != woken.end()) {
                    d.m_wakes.push_back(
                        { it->second.wakingNs, it->second.fromPu, it->second.waker, e.ns, e.cpu, e.other });
                    woken.erase(it);
                }
                auto [last, fresh] = lastPu.try_emplace(e.other, e.cpu);
                if (!fresh && last->second != e.cpu) {
                    lane.marks.push_back({ TimelineMark::Kind::Migration, e.ns, e.ns, e.other, last->second });
                    last->second = e.cpu;
                }
            }
            break;
        }
        case TraceEventKind::Waking:
        case TraceEventKind::WakeupNew: {
            const bool irq = (e.value & (kTraceFlagHardirq | kTraceFlagSoftirq)) != 0;
            woken.try_emplace(e.other, Pending { e.ns, e.cpu, irq ? 0 : e.pid });
            break;
        }
        case TraceEventKind::IdleEnter:
            lane.idle.emplace_back(e.ns, static_cast<int>(e.value));
            break;
        case TraceEventKind::IdleExit:
            lane.idle.emplace_back(e.ns, -1);
            break;
        case TraceEventKind::IrqEntry:
        case TraceEventKind::SoftirqEntry:
            openIrq[e.cpu].push_back(lane.marks.size());
            lane.marks.push_back(
                { e.kind == TraceEventKind::IrqEntry ? TimelineMark::Kind::Irq : TimelineMark::Kind::Softirq, e.ns,
                    e.ns, e.pid, -1 });
            break;
        case TraceEventKind::IrqExit:
        case TraceEventKind::SoftirqExit: {
            auto& open = openIrq[e.cpu];
            if (!open.empty()) {
                lane.marks[open.back()].endNs = e.ns;
                open.pop_back();
            }
            break;
        }
        default:
            break;
        }
    }
    // What runs at the end runs to the end of the recording.
    for (auto& [pu, r] : running)
        if (r.known && d.m_endNs > r.sinceNs)
            d.m_lanes[pu].slices.push_back({ r.sinceNs, d.m_endNs, r.pid, false });
    for (auto& [pu, lane] : d.m_lanes) {
        std::stable_sort(lane.marks.begin(), lane.marks.end(),
            [](const TimelineMark& a, const TimelineMark& b) { return a.beginNs < b.beginNs; });
        for (const TimelineMark& m : lane.marks)
            lane.longestMarkNs = std::max(lane.longestMarkNs, m.endNs - m.beginNs);
    }
    std::stable_sort(d.m_wakes.begin(), d.m_wakes.end(),
        [](const TimelineWake& a, const TimelineWake& b) { return a.wakingNs < b.wakingNs; });
    d.m_byRun.resize(d.m_wakes.size());
    for (std::size_t i = 0; i < d.m_byRun.size(); ++i)
        d.m_byRun[i] = i;
    std::stable_sort(d.m_byRun.begin(), d.m_byRun.end(),
        [&](std::size_t a, std::size_t b) { return d.m_wakes[a].runNs < d.m_wakes[b].runNs; });
    return d;
}

std::vector<int> TimelineData::pus() const
{
    std::vector<int> out;
    for (const auto& [pu, lane] : m_lanes)
        out.push_back(pu);
    return out;
}

std::string TimelineData::name(std::int32_t pid) const
{
    if (pid == 0)
        return "swapper";
    const auto it = m_comms.find(pid);
    return it != m_comms.end() ? it->second : std::string();
}

const TimelineData::Lane* TimelineData::lane(int pu) const
{
    const auto it = m_lanes.find(pu);
    return it != m_lanes.end() ? &it->second : nullptr;
}

namespace {

// The first element of [from, end) that is not `before` (a partition point), searched from
// `from` in doubling steps: a frame walks a lane from left to right, and the next piece is
// usually a few slices on, where a binary search of the whole lane cost most of a frame.
template <typename It, typename Before> It gallop(It from, It end, Before before)
{
    std::ptrdiff_t step = 1;
    for (It low = from;;) {
        const std::ptrdiff_t left = std::distance(low, end);
        if (left == 0)
            return end;
        const It probe = low + (std::min(step, left) - 1);
        if (!before(*probe))
            return std::partition_point(low, std::next(probe), before);
        low = std::next(probe);
        step *= 2;
    }
}

// The first slice that ends after `ns`.
std::vector<TimelineSlice>::const_iterator firstEndingAfter(const std::vector<TimelineSlice>& slices, std::uint64_t ns)
{
    return std::upper_bound(
        slices.begin(), slices.end(), ns, [](std::uint64_t at, const TimelineSlice& s) { return at < s.endNs; });
}

} // namespace

std::vector<TimelineSlice> TimelineData::visible(
    int pu, std::uint64_t fromNs, std::uint64_t toNs, std::uint64_t minNs) const
{
    std::vector<TimelineSlice> out;
    const Lane* l = lane(pu);
    if (l == nullptr || toNs <= fromNs || l->slices.empty())
        return out;
    const auto& slices = l->slices;
    const std::uint64_t last = slices.back().endNs;
    std::uint64_t at = 0; // drawn up to here
    for (auto it = firstEndingAfter(slices, fromNs); it != slices.end() && it->beginNs < toNs;) {
        const std::uint64_t begin = std::max(it->beginNs, at);
        if (it->endNs - begin >= std::max<std::uint64_t>(minNs, 1)) {
            out.push_back({ begin, it->endNs, it->pid, false });
            at = it->endNs;
            ++it;
            continue;
        }
        // Too short to draw alone: one piece of minNs from here, named by what ran at its middle;
        // the search jumps to the slice running at the piece's end.
        const std::uint64_t end = std::min(begin + minNs, last);
        const std::uint64_t middle = begin + (end - begin) / 2;
        const auto endsBy = [](std::uint64_t ns) { return [ns](const TimelineSlice& x) { return x.endNs <= ns; }; };
        const auto atMiddle = gallop(it, slices.end(), endsBy(middle));
        const std::int32_t pid = atMiddle != slices.end() && atMiddle->beginNs <= middle ? atMiddle->pid : it->pid;
        if (!out.empty() && out.back().merged && out.back().pid == pid && out.back().endNs == begin)
            out.back().endNs = end; // a run of pieces of one task is one piece
        else
            out.push_back({ begin, end, pid, true });
        at = end;
        it = gallop(atMiddle, slices.end(), endsBy(end));
    }
    return out;
}

std::optional<TimelineSlice> TimelineData::sliceAt(int pu, std::uint64_t ns) const
{
    const Lane* l = lane(pu);
    if (l == nullptr)
        return std::nullopt;
    const auto it = firstEndingAfter(l->slices, ns);
    if (it == l->slices.end() || it->beginNs > ns)
        return std::nullopt;
    return *it;
}

std::optional<int> TimelineData::idleStateAt(int pu, std::uint64_t ns) const
{
    const Lane* l = lane(pu);
    if (l == nullptr)
        return std::nullopt;
    const auto it = std::upper_bound(l->idle.begin(), l->idle.end(), ns,
        [](std::uint64_t at, const std::pair<std::uint64_t, int>& e) { return at < e.first; });
    if (it == l->idle.begin() || std::prev(it)->second < 0)
        return std::nullopt;
    return std::prev(it)->second;
}

std::vector<TimelineMark> TimelineData::marks(
    int pu, std::uint64_t fromNs, std::uint64_t toNs, std::uint64_t minNs) const
{
    std::vector<TimelineMark> out;
    const Lane* l = lane(pu);
    if (l == nullptr)
        return out;
    const auto byBegin = [](const TimelineMark& m, std::uint64_t ns) { return m.beginNs < ns; };
    // A mark meeting the span began at most the lane's longest mark before it.
    const std::uint64_t earliest = fromNs - std::min(fromNs, l->longestMarkNs);
    auto it = std::lower_bound(l->marks.begin(), l->marks.end(), earliest, byBegin);
    while (it != l->marks.end() && it->beginNs < toNs) {
        if (it->endNs < fromNs) {
            ++it;
            continue;
        }
        out.push_back(*it);
        const std::uint64_t next = it->beginNs + std::max<std::uint64_t>(minNs, 1);
        it = minNs > 1
            ? gallop(std::next(it), l->marks.end(), [next](const TimelineMark& x) { return x.beginNs < next; })
            : std::next(it);
    }
    return out;
}

std::vector<TimelineWake> TimelineData::wakes(std::uint64_t fromNs, std::uint64_t toNs, std::size_t most) const
{
    std::vector<TimelineWake> out;
    // Those that begin in the span, then those that end in it having begun before.
    auto it = std::lower_bound(m_wakes.begin(), m_wakes.end(), fromNs,
        [](const TimelineWake& w, std::uint64_t at) { return w.wakingNs < at; });
    for (; it != m_wakes.end() && it->wakingNs < toNs && out.size() < most; ++it)
        out.push_back(*it);
    auto byRun = std::lower_bound(
        m_byRun.begin(), m_byRun.end(), fromNs, [&](std::size_t i, std::uint64_t at) { return m_wakes[i].runNs < at; });
    for (; byRun != m_byRun.end() && m_wakes[*byRun].runNs < toNs && out.size() < most; ++byRun)
        if (m_wakes[*byRun].wakingNs < fromNs)
            out.push_back(m_wakes[*byRun]);
    std::stable_sort(
        out.begin(), out.end(), [](const TimelineWake& a, const TimelineWake& b) { return a.wakingNs < b.wakingNs; });
    return out;
}

std::vector<TimelineLane> withLanesOfEvents(std::vector<TimelineLane> lanes, const TimelineData& data)
{
    for (int pu : data.pus())
        if (std::none_of(lanes.begin(), lanes.end(), [pu](const TimelineLane& l) { return l.pu == pu; }))
            lanes.push_back({ pu, -1, -1, -1 });
    return lanes;
}

} // namespace ctxscope::gui
