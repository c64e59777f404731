// SPDX-License-Identifier: MIT
// The one policy for which observer follows a watched program's threads: the CLI's watch
// --backend and the worker's traced watch both ask it.
#include "ctxscope/sched_watch.h"
#include "ctxscope/trace_session.h"
#include "ctxscope/watch.h"

#include <string>

namespace ctxscope {

Expected<WatchBackendChoice> chooseWatchBackend(std::optional<SchedBackend> named, bool trace, bool events)
{
    if (named) {
        if (*named == SchedBackend::Bpf) {
            if (std::string why = bpfUnavailable(); !why.empty())
                return makeError(std::move(why));
        } else if (*named == SchedBackend::Ftrace) {
            if (Status allowed = tracingAllowed(); !allowed)
                return allowed.error();
        }
        return WatchBackendChoice { *named, {} };
    }
    if (events) { // ftrace's own, asked for: not a fallback
        if (Status allowed = tracingAllowed(); !allowed)
            return allowed.error();
        return WatchBackendChoice { SchedBackend::Ftrace, {} };
    }
    std::string noBpf = bpfUnavailable();
    if (noBpf.empty())
        return WatchBackendChoice { SchedBackend::Bpf, {} };
    Status allowed = tracingAllowed();
    if (allowed)
        return WatchBackendChoice { SchedBackend::Ftrace, std::move(noBpf) };
    if (trace)
        return allowed.error();
    return WatchBackendChoice { SchedBackend::Proc, noBpf + "; " + allowed.error().message };
}

} // namespace ctxscope
