// SPDX-License-Identifier: MIT
#include "trace/tep.h"

#include <fmt/core.h>

#include <cstring>
#include <vector>

extern "C" {
#include <kbuffer.h>
}

namespace ctxscope::trace {

Expected<TepPtr> makeTep(const RawTrace& raw)
{
    TepPtr tep(tep_alloc());
    if (!tep)
        return makeError("out of memory decoding a trace");
    const auto endian = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
    tep_set_long_size(tep.get(), static_cast<int>(sizeof(long)));
    tep_set_page_size(tep.get(), static_cast<int>(raw.pageSize));
    tep_set_file_bigendian(tep.get(), endian);
    tep_set_local_bigendian(tep.get(), endian);
    std::string headerPage = raw.headerPage;
    if (tep_parse_header_page(tep.get(), headerPage.data(), headerPage.size(), static_cast<int>(sizeof(long))) != 0)
        return makeError("the trace's page layout (header_page) could not be read");
    for (const auto& f : raw.formats)
        if (tep_parse_event(tep.get(), f.text.data(), f.text.size(), f.system.c_str()) != TEP_ERRNO__SUCCESS)
            return makeError(fmt::format("the format of {}:{} could not be read", f.system, f.name));
    for (const auto& [pid, comm] : raw.comms)
        tep_register_comm(tep.get(), comm.c_str(), pid);
    return tep;
}

Status forEachRecord(const RawTrace& raw, tep_handle* tep, const std::function<void(tep_record&)>& record,
    const std::function<void(int cpu, std::uint64_t missed)>& missed)
{
    kbuffer* kbuf = tep_kbuffer(tep);
    if (kbuf == nullptr)
        return makeError("the trace's page layout is not one libtraceevent reads");
    std::vector<std::uint8_t> page(raw.pageSize);
    for (const auto& buffer : raw.buffers) {
        for (std::size_t at = 0; at + raw.pageSize <= buffer.pages.size(); at += raw.pageSize) {
            std::memcpy(page.data(), buffer.pages.data() + at, raw.pageSize);
            if (kbuffer_load_subbuffer(kbuf, page.data()) != 0)
                continue;
            if (const int lost = kbuffer_missed_events(kbuf); lost > 0 && missed)
                missed(buffer.cpu, static_cast<std::uint64_t>(lost));
            unsigned long long ts = 0;
            for (void* data = kbuffer_read_event(kbuf, &ts); data != nullptr; data = kbuffer_next_event(kbuf, &ts)) {
                tep_record r {};
                r.ts = ts;
                r.data = data;
                r.size = kbuffer_event_size(kbuf);
                r.cpu = buffer.cpu;
                record(r);
            }
        }
    }
    kbuffer_free(kbuf);
    return {};
}

} // namespace ctxscope::trace
