// SPDX-License-Identifier: MIT
// Decoding a recording with libtraceevent and the event formats it carries.
#pragma once

#include "ctxscope/trace.h"

#include <memory>

namespace ctxscope {

// Decodes the events of a recording with libtraceevent and the formats it carries.
Expected<Trace> decodeTrace(const RawTrace& raw);

// The same, made once and used for many recordings of one session (a watch decodes what it
// reads every 100 ms without parsing the formats again).
class TraceDecoder {
public:
    static Expected<TraceDecoder> make(const RawTrace& raw);
    TraceDecoder(TraceDecoder&&) noexcept;
    TraceDecoder& operator=(TraceDecoder&&) noexcept;
    ~TraceDecoder();
    // Appends the recording's events to `trace` (sorted among themselves) and takes its
    // losses and task names. A task's name is taken from the first switch that names it; a
    // decoder fed one recording after another (a watch's) names each task once, so those
    // calls should share one `trace.comms`.
    Status decode(const RawTrace& raw, Trace& trace);

private:
    struct Impl;
    explicit TraceDecoder(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace ctxscope
