// SPDX-License-Identifier: MIT
// The worker's commands about running programs: the process list, a watch, a re-pin.
#include "protocol/worker_jobs.h"

#include "ctxscope/events.h"
#include "ctxscope/pin.h"
#include "ctxscope/process_list.h"
#include "ctxscope/watch.h"

#include <fmt/core.h>

namespace ctxscope::worker {

using namespace protocol;

std::string processesJob(const ProcessesCommand& command, const JobContext& c)
{
    auto list = sampleProcesses(command.seconds, c.stop);
    if (!list)
        return c.stop.stop_requested() ? cancelledLine(command.id) : errorLine(command.id, list.error().message);
    return eventLine(ProcessesEvent { command.id, command.seconds, std::move(*list) });
}

void WatchFocusBox::set(const WatchFocusCommand& command)
{
    std::lock_guard lock(m_mutex);
    m_focus.tids = std::set<long>(command.tids.begin(), command.tids.end());
    m_focus.everything = m_focus.everything || command.everything;
}

WatchFocus WatchFocusBox::take()
{
    std::lock_guard lock(m_mutex);
    WatchFocus focus = m_focus;
    m_focus.everything = false;
    return focus;
}

std::string watchJob(const WatchCommand& command, const JobContext& c, WatchFocusBox& focus)
{
    // A cancel is how a watch without a duration ends: it gives the summary like any other end.
    WatchOptions options;
    options.trace = command.trace;
    if (command.trace) {
        auto choice = chooseWatchBackend(command.backend, true, command.events > 0);
        if (!choice)
            return errorLine(command.id,
                command.backend ? fmt::format("backend {}: {}", toString(*command.backend), choice.error().message)
                                : choice.error().message);
        options.backend = choice->backend;
        options.backendFallback = choice->fallback;
        // The default, refused by the kernel at load: ftrace, as the CLI falls back; each sample
        // names the backend that ran and why it is not BPF, which the app shows.
        if (!command.backend && choice->backend == SchedBackend::Bpf)
            options.onBpfFallback = [](const std::string&) {};
    }
    options.eventsPerSample = command.events;
    options.onEvents = [&](const Trace& events, std::uint64_t leftOut) {
        for (const std::string& line : traceEventsLines(command.id, events, events.events.size(), leftOut))
            c.write(line);
    };
    WatchDeltaEncoder lean;
    WatchDeltaEvent delta; // kept from sample to sample: its threads' memory is reused
    auto summary = runWatch(
        command.pid, command.interval, command.duration, c.stop,
        [&](const WatchSample& s) {
            if (command.lean)
                lean.encode(command.id, s, focus.take(), delta);
            c.write(command.lean ? eventLine(delta) : eventLine(WatchSampleEvent { command.id, s }));
        },
        options);
    if (!summary)
        return errorLine(command.id, summary.error().message);
    return eventLine(WatchSummaryEvent { command.id, std::move(*summary) });
}

std::string pinLine(const PinCommand& command, const Topology& topology)
{
    Expected<std::vector<PinChange>> changes = std::vector<PinChange> {};
    if (command.process) {
        changes = pinProcess(topology, command.target, command.cpus, command.kernelThreads);
    } else if (auto one = pinThread(topology, command.target, command.cpus, command.kernelThreads)) {
        changes = std::vector<PinChange> { std::move(*one) };
    } else {
        changes = one.error();
    }
    if (!changes)
        return errorLine(command.id, changes.error().message);
    return eventLine(PinnedEvent { command.id, std::move(*changes) });
}

} // namespace ctxscope::worker
