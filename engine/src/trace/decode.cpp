// SPDX-License-Identifier: MIT
// Raw pages to events: libtraceevent reads the layouts from the format files the recording
// carries (no field offset is assumed: prev_state and others move between kernels), and the
// pages are walked as the recording's header_page and header_event describe them
// (page_walk.h).
#include "ctxscope/trace.h"
#include "ctxscope/trace_decoder.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "os/huge_pages.h"
#include "trace/tep.h"

namespace ctxscope {

namespace {

// T read from unaligned bytes.
template <typename T> std::uint64_t load(const std::uint8_t* at)
{
    T v;
    std::memcpy(&v, at, sizeof v);
    return v;
}

// Where one field lies in an event's record, from its format (tep_format_field): read with a
// copy of its bytes, not through libtraceevent's reader, which costs more than the rest of a
// watch's work per event.
struct FieldAt {
    int offset = -1; // -1: the event has no such field
    int size = 0;
    bool isSigned = false;
    unsigned shift = 0; // 64 - its bits

    static FieldAt of(const tep_format_field* f)
    {
        if (f == nullptr || f->size < 1 || f->size > 8 || (f->flags & TEP_FIELD_IS_ARRAY) != 0)
            return {};
        return { f->offset, f->size, (f->flags & TEP_FIELD_IS_SIGNED) != 0, 64U - 8U * static_cast<unsigned>(f->size) };
    }

    std::int64_t read(const std::uint8_t* data, int recordSize, std::int64_t fallback) const
    {
        if constexpr (std::endian::native == std::endian::little) {
            // Eight bytes from the field's start, whose own bytes are the low ones: shifted up and
            // back down, which sign-extends a signed field, without a branch on its width.
            if (offset >= 0 && offset + 8 <= recordSize) {
                const std::uint64_t bits = load<std::uint64_t>(data + offset) << shift;
                return isSigned ? static_cast<std::int64_t>(bits) >> shift : static_cast<std::int64_t>(bits >> shift);
            }
        }
        if (offset < 0 || offset + size > recordSize)
            return fallback;
        // The host's own byte order; the usual widths copied at a fixed size (inlined: a watch
        // reads five fields of every event).
        const std::uint8_t* at = data + offset;
        std::uint64_t v = 0;
        switch (size) {
        case 1:
            v = *at;
            break;
        case 2:
            v = load<std::uint16_t>(at);
            break;
        case 4:
            v = load<std::uint32_t>(at);
            break;
        case 8:
            v = load<std::uint64_t>(at);
            break;
        default:
            std::memcpy(&v, at, static_cast<std::size_t>(size));
            if constexpr (std::endian::native == std::endian::big)
                v >>= (8 - size) * 8;
        }
        // Signed fields (pid, cpu, state) are sign-extended from their width.
        if (isSigned && size < 8) {
            const unsigned bits = static_cast<unsigned>(size) * 8;
            const std::uint64_t sign = std::uint64_t { 1 } << (bits - 1);
            if ((v & sign) != 0)
                v |= ~((std::uint64_t { 1 } << bits) - 1);
        }
        return static_cast<std::int64_t>(v);
    }
};

struct Decoder {
    bool known = false;
    TraceEventKind kind = TraceEventKind::Switch;
    bool idle = false; // power:cpu_idle, which is IdleEnter or IdleExit by its state
    FieldAt pid; // common_pid
    FieldAt other;
    FieldAt aux;
    FieldAt value;
    tep_format_field* comm = nullptr; // sched_switch: prev_comm
    tep_format_field* otherComm = nullptr; // sched_switch: next_comm
};

struct Layout {
    const char* name;
    TraceEventKind kind;
    const char* other;
    const char* aux;
    const char* value;
};

constexpr std::array kLayouts = {
    Layout { "sched_waking", TraceEventKind::Waking, "pid", "target_cpu", "common_flags" },
    Layout { "sched_wakeup", TraceEventKind::Wakeup, "pid", "target_cpu", nullptr },
    Layout { "sched_wakeup_new", TraceEventKind::WakeupNew, "pid", "target_cpu", nullptr },
    Layout { "sched_switch", TraceEventKind::Switch, "next_pid", nullptr, "prev_state" },
    Layout { "sched_migrate_task", TraceEventKind::Migrate, "pid", "orig_cpu", "dest_cpu" },
    Layout { "sched_wake_idle_without_ipi", TraceEventKind::WakeIdleNoIpi, nullptr, "cpu", nullptr },
    Layout { "ipi_send_cpu", TraceEventKind::IpiSend, nullptr, "cpu", "callsite" },
    Layout { "cpu_idle", TraceEventKind::IdleEnter, nullptr, "cpu_id", "state" },
    Layout { "irq_handler_entry", TraceEventKind::IrqEntry, nullptr, nullptr, "irq" },
    Layout { "irq_handler_exit", TraceEventKind::IrqExit, nullptr, nullptr, "irq" },
    Layout { "softirq_entry", TraceEventKind::SoftirqEntry, nullptr, nullptr, "vec" },
    Layout { "softirq_exit", TraceEventKind::SoftirqExit, nullptr, nullptr, "vec" },
    Layout { "sys_enter", TraceEventKind::SysEnter, nullptr, nullptr, "id" },
    Layout { "sys_exit", TraceEventKind::SysExit, nullptr, nullptr, "id" },
};

tep_format_field* field(tep_event* event, const char* name)
{
    return name != nullptr ? tep_find_any_field(event, name) : nullptr;
}

std::string text(const tep_format_field* f, const void* data)
{
    const char* at = static_cast<const char*>(data) + f->offset;
    return std::string(at, strnlen(at, static_cast<std::size_t>(f->size)));
}

// Merges the runs of events[runs[i]..runs[i+1]) (the last to the end), each in time order,
// into one, stably, pair by pair through `spare`, which keeps its memory for the next call.
void mergeRuns(
    std::vector<TraceEvent>& events, std::size_t first, std::vector<std::size_t> runs, std::vector<TraceEvent>& spare)
{
    const auto earlier = [](const TraceEvent& a, const TraceEvent& b) { return a.ns < b.ns; };
    runs.push_back(events.size());
    if (runs.size() > 2 && spare.capacity() < events.size()) { // as much room as the events have
        spare.reserve(events.capacity());
        os::adviseHugePages(spare);
    }
    while (runs.size() > 2) {
        spare.assign(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(first));
        std::vector<std::size_t> next { first };
        for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
            const auto a = events.begin() + static_cast<std::ptrdiff_t>(runs[i]);
            const auto b = events.begin() + static_cast<std::ptrdiff_t>(runs[i + 1]);
            const auto c = i + 2 < runs.size() ? events.begin() + static_cast<std::ptrdiff_t>(runs[i + 2]) : b;
            std::merge(a, b, b, c, std::back_inserter(spare), earlier);
            next.push_back(spare.size());
        }
        events.swap(spare);
        runs = std::move(next);
    }
}

} // namespace

const char* traceEventName(TraceEventKind kind)
{
    if (kind == TraceEventKind::IdleExit)
        return "cpu_idle";
    for (const auto& l : kLayouts)
        if (l.kind == kind)
            return l.name;
    return "?";
}

struct TraceDecoder::Impl {
    trace::TepPtr tep;
    std::optional<trace::PageLayout> layout; // from the recording's headers (page_walk.h)
    FieldAt type; // common_type: which event a record is
    std::vector<Decoder> decoders; // by event id
    std::vector<bool> named; // by pid: a switch named the task already
    std::vector<TraceEvent> merged; // kept from decode to decode: merging needs no new memory

    // Whether this is the first switch that names `pid`: a bit, where a search of the names
    // for each switch showed in a watch's cost.
    bool firstMention(std::int32_t pid)
    {
        if (pid < 0)
            return false;
        const auto at = static_cast<std::size_t>(pid);
        if (at >= named.size())
            named.resize(std::max<std::size_t>(at + 1, named.size() * 2), false);
        if (named[at])
            return false;
        named[at] = true;
        return true;
    }
};

TraceDecoder::TraceDecoder(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}
TraceDecoder::TraceDecoder(TraceDecoder&&) noexcept = default;
TraceDecoder& TraceDecoder::operator=(TraceDecoder&&) noexcept = default;
TraceDecoder::~TraceDecoder() = default;

Expected<TraceDecoder> TraceDecoder::make(const RawTrace& raw)
{
    auto tep = trace::makeTep(raw);
    if (!tep)
        return tep.error();
    auto impl = std::make_unique<Impl>();
    impl->tep = std::move(*tep);
    impl->layout = trace::PageLayout::parse(raw.headerPage, raw.headerEvent);
    for (const auto& f : raw.formats) {
        tep_event* event = tep_find_event_by_name(impl->tep.get(), f.system.c_str(), f.name.c_str());
        const auto layout
            = std::find_if(kLayouts.begin(), kLayouts.end(), [&](const Layout& l) { return f.name == l.name; });
        if (event == nullptr || layout == kLayouts.end())
            continue;
        Decoder d;
        d.known = true;
        d.kind = layout->kind;
        d.idle = f.name == "cpu_idle";
        d.pid = FieldAt::of(field(event, "common_pid"));
        d.other = FieldAt::of(field(event, layout->other));
        d.aux = FieldAt::of(field(event, layout->aux));
        d.value = FieldAt::of(field(event, layout->value));
        if (d.kind == TraceEventKind::Switch) {
            d.pid = FieldAt::of(field(event, "prev_pid"));
            d.comm = field(event, "prev_comm");
            d.otherComm = field(event, "next_comm");
        }
        if (impl->type.offset < 0)
            impl->type = FieldAt::of(field(event, "common_type"));
        if (event->id < 0 || event->id > 1 << 16)
            continue;
        const auto id = static_cast<std::size_t>(event->id);
        if (impl->decoders.size() <= id)
            impl->decoders.resize(id + 1);
        impl->decoders[id] = d;
    }
    if (tep_is_file_bigendian(impl->tep.get()) != tep_is_local_bigendian(impl->tep.get()))
        return makeError("the trace was recorded on a machine of the other byte order");
    return TraceDecoder(std::move(impl));
}

Status TraceDecoder::decode(const RawTrace& raw, Trace& trace)
{
    tep_handle* tep = m_impl->tep.get();
    const auto& decoders = m_impl->decoders;
    const FieldAt type = m_impl->type;
    const std::size_t first = trace.events.size();
    for (const auto& [pid, comm] : raw.comms)
        trace.comms.try_emplace(pid, comm);
    trace.losses = raw.losses;
    trace.missingEvents = raw.missingEvents;
    // Room for the events the pages can hold (a recording of a hundred MB holds millions of
    // them) before any is decoded, on huge pages where the kernel gives them (the merge's copy
    // takes as much): growing by doubling copied them and faulted in each new 4 KiB page.
    // An event takes at least kMinEventBytes of a page; room never touched costs no memory.
    // Only a recording of 8 MiB or more: a watch's reads, a few pages each, grow as they did.
    constexpr std::size_t kMinEventBytes = 48;
    constexpr std::size_t kBigRecording = std::size_t { 8 } << 20;
    const std::size_t room = first + raw.pageBytes() / kMinEventBytes;
    if (trace.events.capacity() < room && raw.pageBytes() >= kBigRecording) {
        trace.events.reserve(std::max(room, 2 * trace.events.capacity()));
        os::adviseHugePages(trace.events);
    }
    // Each CPU's events come in time order, one CPU after another: runs to merge.
    std::vector<std::size_t> runs { first };
    int runCpu = -1;
    auto onEvent = [&](std::uint64_t ts, int cpu, const std::uint8_t* data, int size) {
        if (cpu != runCpu && trace.events.size() > runs.back())
            runs.push_back(trace.events.size());
        runCpu = cpu;
        const auto id = static_cast<std::size_t>(type.read(data, size, -1));
        if (id >= decoders.size() || !decoders[id].known)
            return;
        const Decoder& dec = decoders[id];
        TraceEvent e;
        e.ns = ts;
        e.cpu = cpu;
        e.kind = dec.kind;
        e.pid = static_cast<std::int32_t>(dec.pid.read(data, size, 0));
        e.other = static_cast<std::int32_t>(dec.other.read(data, size, -1));
        e.aux = static_cast<std::int32_t>(dec.aux.read(data, size, -1));
        e.value = dec.value.read(data, size, 0);
        if (dec.idle) {
            // PWR_EVENT_EXIT is (u32)-1; the state field is unsigned on some kernels.
            const bool exit = static_cast<std::uint32_t>(e.value) == 0xffffffffU;
            e.kind = exit ? TraceEventKind::IdleExit : TraceEventKind::IdleEnter;
            if (exit)
                e.value = -1;
        }
        if (dec.comm != nullptr) { // the first name seen stays: made only for a new task
            if (m_impl->firstMention(e.pid))
                trace.comms.try_emplace(e.pid, text(dec.comm, data));
            if (m_impl->firstMention(e.other))
                trace.comms.try_emplace(e.other, text(dec.otherComm, data));
        }
        trace.events.push_back(e);
    };
    auto onMissed = [&](int cpu, std::uint64_t missed) {
        for (auto& l : trace.losses)
            if (l.cpu == cpu)
                l.missedInPages += missed;
    };
    if (Status s = trace::forEachEvent(raw, m_impl->layout, tep, onEvent, onMissed); !s)
        return s;
    mergeRuns(trace.events, first, runs, m_impl->merged);
    return {};
}

Expected<Trace> decodeTrace(const RawTrace& raw)
{
    auto decoder = TraceDecoder::make(raw);
    if (!decoder)
        return decoder.error();
    Trace trace;
    if (Status s = decoder->decode(raw, trace); !s)
        return s.error();
    return trace;
}

} // namespace ctxscope
