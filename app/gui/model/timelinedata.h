// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"
#include "ctxscope/trace.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope::gui {

// A Switch whose pid and other are both this marks, on its PU, that events before it were left
// out (a busy watch's interval keeps only its latest events): what ran there from the PU's last
// switch until then is unknown and drawn as nothing, and the next switch's prev ran from it.
inline constexpr std::int32_t kUnrecordedPid = -2;

// A traced run's events as the worker sent them (its last `window` of `recorded` events), with
// the names of the tasks they mention: what the session keeps to draw the run's timeline.
struct TraceWindow {
    std::vector<TraceEvent> events; // in time order
    std::map<int, std::string> comms;
    std::uint64_t recorded = 0; // events the traced run recorded (more than the window: its beginning is left out)
};

// One lane of the scheduler's timeline: a PU, in the map's order (the topology tree depth
// first: package, L3, core, PU), with the boxes it sits in, so that lanes group and fold as
// the map's boxes do.
struct TimelineLane {
    int pu = -1; // OS index (P#), as the events' CPU numbers
    int package = -1; // logical indices of the boxes around it; -1 where the machine has none
    int l3 = -1;
    int core = -1;
    friend bool operator==(const TimelineLane&, const TimelineLane&) = default;
};

// The lanes of a machine, one per PU, in the order the map draws them.
std::vector<TimelineLane> timelineLanes(const Topology& topology);

// What ran on a PU from beginNs to endNs: a task (pid), or the idle task (pid 0).
struct TimelineSlice {
    std::uint64_t beginNs = 0;
    std::uint64_t endNs = 0;
    std::int32_t pid = 0;
    // Level of detail: a piece standing for several slices too short to draw one by one; `pid`
    // is the one running at its middle.
    bool merged = false;
    friend bool operator==(const TimelineSlice&, const TimelineSlice&) = default;
};

// A short mark on a lane: an interrupt or softirq handled there (begin to end), or a task
// arriving from another PU (a migration, at the switch-in).
struct TimelineMark {
    enum class Kind { Irq, Softirq, Migration };
    Kind kind = Kind::Irq;
    std::uint64_t beginNs = 0;
    std::uint64_t endNs = 0;
    std::int32_t pid = 0; // Migration: the task; otherwise the task interrupted
    int fromPu = -1; // Migration: the PU it last ran on
};

// A wake-up drawn as an arrow: from the waker's PU at sched_waking to the wakee's switch-in.
struct TimelineWake {
    std::uint64_t wakingNs = 0;
    int fromPu = -1; // where sched_waking fired (the waker's PU, or the one an interrupt hit)
    std::int32_t waker = 0; // 0 when woken from an interrupt
    std::uint64_t runNs = 0; // the wakee's switch-in
    int toPu = -1;
    std::int32_t wakee = 0;
};

// A traced run's or watch's events laid out for the timeline: per PU the slices of what ran,
// the idle states, interrupts and migrations, and the wake-ups between PUs. Built once from the
// events (in time order, as the decoder gives them); every query afterwards is a binary search,
// so zooming and panning over 10^6 events stays within a frame.
class TimelineData {
public:
    TimelineData() = default;
    static TimelineData build(const std::vector<TraceEvent>& events, const std::map<int, std::string>& comms);

    bool empty() const { return m_lanes.empty(); }
    std::uint64_t beginNs() const { return m_beginNs; }
    std::uint64_t endNs() const { return m_endNs; }
    // The PUs that have events, ascending.
    std::vector<int> pus() const;
    std::string name(std::int32_t pid) const; // "swapper" for 0, "" when unknown

    // The slices of `pu` that meet [fromNs, toNs), at most one piece per `minNs`: a slice
    // shorter than that is not drawn alone, the piece stands for what ran there (the task at its
    // middle, `merged` set). minNs = 0 gives every slice. Bounded by the span over minNs pieces
    // however many events the span holds.
    std::vector<TimelineSlice> visible(int pu, std::uint64_t fromNs, std::uint64_t toNs, std::uint64_t minNs) const;
    // What ran on `pu` at `ns` (a click on the lane); nullopt outside the recorded span.
    std::optional<TimelineSlice> sliceAt(int pu, std::uint64_t ns) const;
    // The idle state the PU was in at `ns` (power:cpu_idle), when the kernel said.
    std::optional<int> idleStateAt(int pu, std::uint64_t ns) const;
    // The marks of `pu` that meet [fromNs, toNs), at most one per `minNs` (the first of each
    // stretch: a zoomed-out lane shows where interrupts were, not each one).
    std::vector<TimelineMark> marks(int pu, std::uint64_t fromNs, std::uint64_t toNs, std::uint64_t minNs = 0) const;
    // The wake-ups whose arrow begins or ends in [fromNs, toNs), at most `most` of them (a frame
    // with more is a smear: the caller asks for one more than it draws to know).
    std::vector<TimelineWake> wakes(std::uint64_t fromNs, std::uint64_t toNs, std::size_t most = SIZE_MAX) const;

private:
    struct Lane {
        std::vector<TimelineSlice> slices; // in time order, end to end
        std::vector<std::pair<std::uint64_t, int>> idle; // (ns, state): entered; -1: left
        std::vector<TimelineMark> marks; // by beginNs
        std::uint64_t longestMarkNs = 0;
    };
    const Lane* lane(int pu) const;

    std::map<int, Lane> m_lanes;
    std::vector<TimelineWake> m_wakes; // by wakingNs
    std::vector<std::size_t> m_byRun; // m_wakes' indices by runNs
    std::map<int, std::string> m_comms;
    std::uint64_t m_beginNs = 0;
    std::uint64_t m_endNs = 0;
};

// `lanes` with a lane added for each PU that has events but none there (a server's, a session's
// recording of PUs the map does not show), after the others.
std::vector<TimelineLane> withLanesOfEvents(std::vector<TimelineLane> lanes, const TimelineData& data);

} // namespace ctxscope::gui
