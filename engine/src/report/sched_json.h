// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/sched_watch.h"
#include "report/json_fields.h"

namespace ctxscope::report {

// The "sched" block of a watched thread (watch --trace, docs/protocol.md): written by
// threadSchedToJson (ctxscope/sched_watch.h, public: the watch's JSON writes it), read back
// checked here.
ThreadSched threadSchedFromJson(FieldReader& in);

} // namespace ctxscope::report
