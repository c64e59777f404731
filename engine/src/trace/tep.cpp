// SPDX-License-Identifier: MIT
#include "trace/tep.h"

#include <fmt/core.h>

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

Status forEachRecord(const RawTrace& raw, tep_handle* tep, const std::function<void(tep_record&)>& record)
{
    return forEachEvent(
        raw, PageLayout::parse(raw.headerPage, raw.headerEvent), tep,
        [&](std::uint64_t ts, int cpu, const std::uint8_t* data, int size) {
            tep_record r {};
            r.ts = ts;
            r.data = const_cast<std::uint8_t*>(data);
            r.size = size;
            r.cpu = cpu;
            record(r);
        },
        [](int, std::uint64_t) {});
}

} // namespace ctxscope::trace
