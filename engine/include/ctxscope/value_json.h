// SPDX-License-Identifier: MIT
// The JSON of each value ctxscope writes: a run result (one "benchmarks" entry), a
// working-set point, a sweep, a lesson, a matrix, and the readers that take them back.
// The results file (results_file.h), the worker stream (protocol.h) and the app's sessions
// are made of these.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/lesson.h"
#include "ctxscope/matrix.h"
#include "ctxscope/result.h"
#include "ctxscope/sweep.h"
#include "ctxscope/topology.h"
#include "ctxscope/working_set.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ctxscope {

// The name a result has in Google Benchmark's "benchmarks" array: bench/mode/relation, plus
// tasks for a ring and ws:BYTES for a working set. CPU numbers are left out so files from two machines match by class.
std::string benchmarkName(const RunResult& result);

// One "benchmarks" entry: Google Benchmark's fields (real_time is the median ns per op) and
// ours (bench, op, mode, cpus, relation, switches, stats, observed, warnings, ...).
nlohmann::json resultToJson(const RunResult& result, bool withSamples = false);
// Reads a result back from its "benchmarks" entry. Unknown fields are ignored; a missing or
// mistyped required field is an error naming it.
Expected<RunResult> resultFromJson(const nlohmann::json& entry);
// A working-set point: its round-trip entry plus ws_bytes, touch_ns, switch_ns (null and
// "cost_not_positive": true when the cost is at or below 0) and the cost's spread.
nlohmann::json workingSetPointToJson(const WorkingSetPoint& point, bool withSamples = false);
// The same point's own fields only (no round-trip entry): ws_bytes, tasks, switches_per_op,
// touch_ns, switch_ns, switch_ns_low, switch_ns_high, cost_not_positive,
// round_trip_quartiles, touch_quartiles, warnings.
nlohmann::json workingSetPointSummaryToJson(const WorkingSetPoint& point);
// A sweep's data cache instances: [{"level", "size", "line_size", "pus": [...]}].
nlohmann::json sweepCachesToJson(const SweepResult& sweep);
// A sweep as a whole: bench, mode, cpus, relation, tasks, points_per_octave, requested_to,
// last_level_cache, capped, stopped_for_time, caches, warnings and, with points, each point's summary.
nlohmann::json sweepToJson(const SweepResult& sweep, bool withPoints = true);
// A lesson's outcome: id, question, steps (labels), failures, conclusion (sentences), and
// when it has any, notes (sentences) and phases (lessonPhaseToJson each).
nlohmann::json lessonToJson(const LessonResult& lesson);
// A watching lesson's phase: label, cpus, relation (absent when unpinned), seconds, unit,
// work_per_s, switches_per_s, runqueue_wait_per_s (one value per reading), involuntary_per_s,
// migrations_per_s, migrations_lower_bound, cpus_seen.
nlohmann::json lessonPhaseToJson(const LessonPhase& phase);

// One "benchmarks" entry written by workingSetPointToJson (it has "ws_bytes"). The touch
// run itself is not in the file, only its quartiles; the point's warnings stay with its
// round-trip run.
Expected<WorkingSetPoint> workingSetPointFromJson(const nlohmann::json& entry);

// The "sweep" object's "caches" (sweepCachesToJson writes them) read back.
Expected<std::vector<CacheInfo>> sweepCachesFromJson(const nlohmann::json& sweep);

// A sweep as sweepToJson writes it, back: its spec's bench and mode, the placement, the
// plan's ends, caches, warnings and (when written) each point's summary, whose runs are
// not in it.
Expected<SweepResult> sweepFromJson(const nlohmann::json& sweep);
// A lesson's outcome as lessonToJson writes it; its steps get their labels only.
Expected<LessonResult> lessonFromJson(const nlohmann::json& lesson);
// A phase as lessonPhaseToJson writes it; `path` names it in errors.
Expected<LessonPhase> lessonPhaseFromJson(const nlohmann::json& phase, const std::string& path = "phase");
// One cell as matrixCellToJson writes it; `path` names it in errors.
Expected<MatrixCell> matrixCellFromJson(const nlohmann::json& cell, const std::string& path = "cell");

// The "matrix" object written by matrixToJson (matrix.h; without its runs, which are in
// "benchmarks").
Expected<MatrixResult> matrixFromJson(const nlohmann::json& matrix);

} // namespace ctxscope
