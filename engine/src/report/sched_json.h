// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/sched_watch.h"
#include "report/json_fields.h"

namespace ctxscope::report {

// The "sched" block of a watched thread (watch --trace, docs/protocol.md): written by
// threadSchedToJson (ctxscope/sched_watch.h, public: the watch's JSON writes it), read back
// checked here. `lean`: a lean watch's block (watch_delta, docs/protocol.md): the bins as
// "log2_size" and the pairs of "log2_grew", the peers and migrations absent when none were sent.
ThreadSched threadSchedFromJson(FieldReader& in, bool lean = false);

} // namespace ctxscope::report
