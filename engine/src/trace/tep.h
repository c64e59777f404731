// SPDX-License-Identifier: MIT
// libtraceevent set up from a recording's own headers and formats, and a walk over its pages:
// what decoding and the text export share.
#pragma once

#include "ctxscope/trace.h"
#include "trace/page_walk.h"

#include <functional>
#include <memory>
#include <optional>

#include <cstdint>
#include <cstring>
#include <vector>

extern "C" {
#include <event-parse.h>
#include <kbuffer.h>
}

namespace ctxscope::trace {

struct TepDeleter {
    void operator()(tep_handle* tep) const { tep_free(tep); }
};
using TepPtr = std::unique_ptr<tep_handle, TepDeleter>;

// A handle that knows every format the recording carries, and its tasks' names.
Expected<TepPtr> makeTep(const RawTrace& raw);

// Calls `event(ts, cpu, data, size)` for each event of each buffer, in each CPU's order, and
// `missed(cpu, n)` with the lost events a page flags. The pages are walked with `layout`
// (page_walk.h) when the recording's headers give one, else by libtraceevent's kbuffer. A
// template: the decoder calls it for every event of a watch (tens of thousands a second),
// where a std::function call shows.
template <typename OnEvent, typename OnMissed>
Status forEachEvent(
    const RawTrace& raw, const std::optional<PageLayout>& layout, tep_handle* tep, OnEvent&& event, OnMissed&& missed)
{
    if (layout) {
        for (const auto& buffer : raw.buffers) {
            const int cpu = buffer.cpu;
            for (std::size_t at = 0; at + raw.pageSize <= buffer.pages.size(); at += raw.pageSize) {
                const std::int64_t lost = walkPage(*layout, buffer.pages.data() + at, raw.pageSize,
                    [&](std::uint64_t ts, const std::uint8_t* data, int size) { event(ts, cpu, data, size); });
                if (lost > 0)
                    missed(cpu, static_cast<std::uint64_t>(lost));
            }
        }
        return {};
    }
    kbuffer* kbuf = tep_kbuffer(tep);
    if (kbuf == nullptr)
        return makeError("the trace's page layout is not one libtraceevent reads");
    std::vector<std::uint8_t> page(raw.pageSize);
    for (const auto& buffer : raw.buffers) {
        for (std::size_t at = 0; at + raw.pageSize <= buffer.pages.size(); at += raw.pageSize) {
            // kbuffer reads a page it may write to: a copy, so the recording stays as read.
            std::memcpy(page.data(), buffer.pages.data() + at, raw.pageSize);
            if (kbuffer_load_subbuffer(kbuf, page.data()) != 0)
                continue;
            if (const int lost = kbuffer_missed_events(kbuf); lost > 0)
                missed(buffer.cpu, static_cast<std::uint64_t>(lost));
            unsigned long long ts = 0;
            for (void* data = kbuffer_read_event(kbuf, &ts); data != nullptr; data = kbuffer_next_event(kbuf, &ts))
                event(static_cast<std::uint64_t>(ts), buffer.cpu, static_cast<const std::uint8_t*>(data),
                    static_cast<int>(kbuffer_event_size(kbuf)));
        }
    }
    kbuffer_free(kbuf);
    return {};
}

// forEachEvent with the events as libtraceevent's records (for its printers).
Status forEachRecord(const RawTrace& raw, tep_handle* tep, const std::function<void(tep_record&)>& record);

} // namespace ctxscope::trace
