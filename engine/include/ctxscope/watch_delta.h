// SPDX-License-Identifier: MIT
// The lean watch stream (a `watch` with "lean": true, protocol 8): instead of every thread's
// whole line each interval, the worker sends the threads that changed since its previous
// sample, the threads gone once, each histogram as the bins that grew, and a thread's wakers,
// preemptors, migrations and bins only for the threads the controller shows (its focus). The
// encoder (the worker) and the decoder (the app) keep the same per-thread state, so the
// decoder gives back, sample by sample, the sample the full stream would have given for every
// thread in focus; a thread out of focus has its counts and no peers or bins, and what was held
// back for it comes, summed, with its first sample in focus. A thread's rates, shares and
// latencies travel with six significant digits (sixDigits), the precision a table or a plot
// shows, as about a quarter fewer bytes for the app to read.
#pragma once

#include "ctxscope/watch.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ctxscope::protocol {

// One interval of a lean watch: `sample` holds the process's fields, `appeared`, `ended` and
// the system's as a watch_sample does, but `threads` only the threads that are new or changed
// (whole, with the sched blocks as WatchDeltaEncoder describes). `gone`: threads of the
// previous sample that are not in this one, each reported once.
struct WatchDeltaEvent {
    std::uint64_t id = 0;
    WatchSample sample;
    std::vector<long> gone;
    // Every thread is in `threads` (WatchFocus::everything): the decoder forgets the others, so
    // it comes back in step after a line it could not read.
    bool whole = false;
    // Changed threads out of focus whose name and affinity are as last sent: on the wire as
    // `rows`, one array of values each with no keys (protocol.md), without their name and
    // affinity, which the decoder keeps. Read back, their name and affinity are empty.
    std::vector<ThreadRates> brief = {};
};

// `v` rounded to six significant digits: the lean stream's precision for a thread's figures.
// 0, infinities and NaN stay as they are.
double sixDigits(double v);

// Which threads get their details (wakers, preemptors, migrations, wake-up bins): the table's
// visible and selected rows in the app. `everything`: once, every thread, changed or not.
struct WatchFocus {
    std::set<long> tids;
    bool everything = false;
};

// The worker's side: full samples in, lean events out. A thread is sent when it is new, when
// its figures (as the decoder would hold them, to six digits) differ from those it was last sent
// with, or on `everything`. Its sched block's log2 bins are the bins that grew since it was last sent in
// focus; out of focus it carries its counts (switch-ins, wake-ups, their mean and quantiles,
// lost events) and no peers, migrations or bins, which are summed here until it is in focus,
// nor its wait from the enqueue (an interval's own figures, which the app does not show).
class WatchDeltaEncoder {
public:
    WatchDeltaEvent encode(std::uint64_t id, const WatchSample& full, const WatchFocus& focus);
    // The same into `event`, whose threads' strings and vectors are assigned into where it has
    // them from the last call: the worker keeps one event from sample to sample.
    void encode(std::uint64_t id, const WatchSample& full, const WatchFocus& focus, WatchDeltaEvent& event);

private:
    // What a thread's peers and bins summed to while it was out of focus.
    struct Withheld {
        std::vector<std::uint64_t> log2Hist;
        std::map<std::pair<long, std::string>, std::uint64_t> wakers;
        std::map<std::pair<long, std::string>, std::uint64_t> preemptors;
    };
    std::map<long, ThreadRates> m_sent; // each thread as the decoder holds it
    std::map<long, Withheld> m_withheld;
    // A thread in its lean form, before it is known to have changed: assigned into, so that its
    // strings' and vectors' memory serves thread after thread.
    ThreadRates m_lean;
    std::vector<long> m_present; // the sample's TIDs, in order
};

// The app's side: lean events in, the whole sample out (every thread, by TID).
class WatchDeltaDecoder {
public:
    WatchSample apply(const WatchDeltaEvent& event);
    void clear() { m_threads.clear(); }

private:
    std::map<long, ThreadRates> m_threads;
};

} // namespace ctxscope::protocol
