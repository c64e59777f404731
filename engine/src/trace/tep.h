// SPDX-License-Identifier: MIT
// libtraceevent set up from a recording's own headers and formats, and a walk over its pages:
// what decoding and the text export share.
#pragma once

#include "ctxscope/trace.h"

#include <functional>
#include <memory>

extern "C" {
#include <event-parse.h>
}

namespace ctxscope::trace {

struct TepDeleter {
    void operator()(tep_handle* tep) const { tep_free(tep); }
};
using TepPtr = std::unique_ptr<tep_handle, TepDeleter>;

// A handle that knows every format the recording carries, and its tasks' names.
Expected<TepPtr> makeTep(const RawTrace& raw);

// Calls `record` for each event of each buffer, in each CPU's order, and `missed` with the
// lost events a page flags.
Status forEachRecord(const RawTrace& raw, tep_handle* tep, const std::function<void(tep_record&)>& record,
    const std::function<void(int cpu, std::uint64_t missed)>& missed = {});

} // namespace ctxscope::trace
