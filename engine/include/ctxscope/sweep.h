// SPDX-License-Identifier: MIT
// A working-set sweep: the three series (round trip, touch, switch cost) at W on a log2
// grid from 0 (or a given start) to at least 4x the last-level cache, with the cache sizes
// of the topology attached so a plot can mark them. A default grid (no end given) also stops
// where its next point would end past kDefaultSweepSeconds.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/topology.h"
#include "ctxscope/working_set.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace ctxscope {

struct SweepSpec {
    // What each point runs: bench (futex, pipe or ring), mode, cpus or relation, tasks,
    // minTimeSeconds and repetitions (per point), policy. Its wsBytes is ignored.
    BenchSpec base;
    std::uint64_t fromBytes = 0; // 0: the grid starts with W = 0, then one page
    std::optional<std::uint64_t> toBytes; // none: 4x the last-level cache, rounded up to a power of two
    int pointsPerOctave = 1;
    // The memory the buffers may draw on; none: MemAvailable. Tests pass a small one.
    std::optional<std::uint64_t> availableBytes;
};

inline constexpr int kMaxPointsPerOctave = 16;
inline constexpr std::uint64_t kFirstNonZeroWs = 4096;
// The grid's end when the topology reports no cache.
inline constexpr std::uint64_t kSweepEndWithoutCaches = std::uint64_t { 64 } << 20;

// How long a default sweep may take: a point starts only while the points before it say it
// will end within this (a VM that reports a 508 MB L3 per vCPU asks for 2 GB working sets).
// Below a minute, with room for the estimate's error and the start-up.
inline constexpr double kDefaultSweepSeconds = 50;

// The grid, before anything runs.
struct SweepPlan {
    std::vector<std::uint64_t> sizes; // ascending, multiples of 64 bytes
    std::uint64_t requestedTo = 0; // the end asked for (or the default)
    std::uint64_t lastLevelCache = 0; // bytes of one instance, 0 when unknown
    std::uint64_t budget = 0; // bytes all tasks' buffers may take together
    bool capped = false; // the grid stops below requestedTo for lack of memory
    std::string note; // a sentence: why the grid ends where it ends, when not as asked
    // The default grid's time limit; none when the end was given (the user's choice).
    std::optional<double> timeLimitSeconds;
    bool stoppedForTime = false; // set by runSweep when the limit ended the grid early
};

// A finished point's wall time, what the next point's estimate is made of.
struct PointTime {
    std::uint64_t wsBytes = 0;
    double seconds = 0;
};

// Seconds a point at wsBytes should take, from the points done (ascending W): the last one's
// time, grown by the seconds per byte between the last two (touching and faulting the
// buffers); 0 with nothing done.
double estimatePointSeconds(std::span<const PointTime> done, std::uint64_t wsBytes);

// Before the next point of a time-limited plan: a sentence saying where and why the sweep
// stops when that point is estimated to end past the limit; empty when it may run (always,
// without a limit). `done` are the points so far, `elapsedSeconds` the sweep's time so far.
std::string timeLimitStop(
    const SweepPlan& plan, std::span<const PointTime> done, double elapsedSeconds, std::uint64_t nextWsBytes);

// Checks the spec (the benchmark must have a round trip that takes a working set) and lays
// out the grid; an Error for bad input or when not even the first point fits in memory.
Expected<SweepPlan> planSweep(const SweepSpec& spec, const Topology& topology);

struct SweepResult {
    SweepSpec spec;
    SweepPlan plan;
    Placement placement;
    std::vector<WorkingSetPoint> points; // one per plan size, in order
    std::vector<CacheInfo> caches; // every data cache instance of the topology, with its PUs
    std::vector<std::string> warnings; // sentences about the whole sweep
};

struct SweepProgress {
    int point = 0; // 0-based
    int points = 0;
    std::uint64_t wsBytes = 0;
    std::string_view stage; // "round trip", "touch", "done"
    double fraction = 0; // of the whole sweep
    const WorkingSetPoint* finished = nullptr; // the point, when stage is "done"
};

// Runs the plan point by point; a stop request ends it between or within points with
// "the sweep was cancelled" (points finished so far are dropped with it).
Expected<SweepResult> runSweep(const SweepSpec& spec, const Topology& topology,
    const std::function<void(const SweepProgress&)>& progress = {}, std::stop_token stop = {});

} // namespace ctxscope
