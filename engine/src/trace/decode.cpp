// SPDX-License-Identifier: MIT
// Raw pages to events: libtraceevent reads the layouts from the format files the recording
// carries (no field offset is assumed: prev_state and others move between kernels), and
// kbuffer walks the pages.
#include "ctxscope/trace.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "trace/tep.h"

namespace ctxscope {

namespace {

struct Decoder {
    TraceEventKind kind = TraceEventKind::Switch;
    bool idle = false; // power:cpu_idle, which is IdleEnter or IdleExit by its state
    tep_format_field* pid = nullptr; // common_pid
    tep_format_field* other = nullptr;
    tep_format_field* aux = nullptr;
    tep_format_field* value = nullptr;
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

std::int64_t number(const tep_format_field* f, const void* data, std::int64_t fallback)
{
    if (f == nullptr)
        return fallback;
    unsigned long long v = 0;
    if (tep_read_number_field(const_cast<tep_format_field*>(f), data, &v) != 0)
        return fallback;
    // Signed fields (pid, cpu, state) come back zero-extended from their width.
    if ((f->flags & TEP_FIELD_IS_SIGNED) != 0 && f->size < 8) {
        const unsigned bits = static_cast<unsigned>(f->size) * 8;
        const unsigned long long sign = 1ULL << (bits - 1);
        if ((v & sign) != 0)
            v |= ~((1ULL << bits) - 1);
    }
    return static_cast<std::int64_t>(v);
}

std::string text(const tep_format_field* f, const void* data)
{
    const char* at = static_cast<const char*>(data) + f->offset;
    return std::string(at, strnlen(at, static_cast<std::size_t>(f->size)));
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
    std::unordered_map<int, Decoder> decoders;
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
    for (const auto& f : raw.formats) {
        tep_event* event = tep_find_event_by_name(impl->tep.get(), f.system.c_str(), f.name.c_str());
        const auto layout
            = std::find_if(kLayouts.begin(), kLayouts.end(), [&](const Layout& l) { return f.name == l.name; });
        if (event == nullptr || layout == kLayouts.end())
            continue;
        Decoder d;
        d.kind = layout->kind;
        d.idle = f.name == "cpu_idle";
        d.pid = field(event, "common_pid");
        d.other = field(event, layout->other);
        d.aux = field(event, layout->aux);
        d.value = field(event, layout->value);
        if (d.kind == TraceEventKind::Switch) {
            d.pid = field(event, "prev_pid");
            d.comm = field(event, "prev_comm");
            d.otherComm = field(event, "next_comm");
        }
        impl->decoders[event->id] = d;
    }
    return TraceDecoder(std::move(impl));
}

Status TraceDecoder::decode(const RawTrace& raw, Trace& trace)
{
    tep_handle* tep = m_impl->tep.get();
    const auto& decoders = m_impl->decoders;
    const std::size_t first = trace.events.size();
    for (const auto& [pid, comm] : raw.comms)
        trace.comms.try_emplace(pid, comm);
    trace.losses = raw.losses;
    trace.missingEvents = raw.missingEvents;
    auto onRecord = [&](tep_record& record) {
        const auto d = decoders.find(tep_data_type(tep, &record));
        if (d == decoders.end())
            return;
        const Decoder& dec = d->second;
        const void* data = record.data;
        TraceEvent e;
        e.ns = record.ts;
        e.cpu = record.cpu;
        e.kind = dec.kind;
        e.pid = static_cast<std::int32_t>(number(dec.pid, data, 0));
        e.other = static_cast<std::int32_t>(number(dec.other, data, -1));
        e.aux = static_cast<std::int32_t>(number(dec.aux, data, -1));
        e.value = number(dec.value, data, 0);
        if (dec.idle) {
            // PWR_EVENT_EXIT is (u32)-1; the state field is unsigned on some kernels.
            const bool exit = static_cast<std::uint32_t>(e.value) == 0xffffffffU;
            e.kind = exit ? TraceEventKind::IdleExit : TraceEventKind::IdleEnter;
            if (exit)
                e.value = -1;
        }
        if (dec.comm != nullptr) { // the first name seen stays: made only for a new task
            if (!trace.comms.contains(e.pid))
                trace.comms.emplace(e.pid, text(dec.comm, data));
            if (!trace.comms.contains(e.other))
                trace.comms.emplace(e.other, text(dec.otherComm, data));
        }
        trace.events.push_back(e);
    };
    auto onMissed = [&](int cpu, std::uint64_t missed) {
        for (auto& l : trace.losses)
            if (l.cpu == cpu)
                l.missedInPages += missed;
    };
    if (Status s = trace::forEachRecord(raw, tep, onRecord, onMissed); !s)
        return s;
    std::stable_sort(trace.events.begin() + static_cast<std::ptrdiff_t>(first), trace.events.end(),
        [](const TraceEvent& a, const TraceEvent& b) { return a.ns < b.ns; });
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
