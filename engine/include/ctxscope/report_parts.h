// SPDX-License-Identifier: MIT
// Reading back what `sweep` and `matrix` write beside a results file's "benchmarks": the
// working-set points with their cache sizes, and the PU x PU matrix. The desktop app reads
// these to plot files from the CLI, from other machines and from saved sessions.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/matrix.h"
#include "ctxscope/results_file.h"
#include "ctxscope/topology.h"
#include "ctxscope/working_set.h"

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace ctxscope {

// The parts of readResults, for documents that hold results among other things (a saved
// session, a worker message): the machine of a "context" block, and the ctxscope entries of
// a "benchmarks" array (which may be empty here). Errors name the field, as readResults does.
Expected<ReportContext> reportContextFromJson(const nlohmann::json& context);
Expected<std::vector<RunResult>> resultsFromJson(const nlohmann::json& benchmarks);

// One "benchmarks" entry written by workingSetPointToJson (it has "ws_bytes"). The touch
// run itself is not in the file, only its quartiles; the point's warnings stay with its
// round-trip run.
Expected<WorkingSetPoint> workingSetPointFromJson(const nlohmann::json& entry);

// The "sweep" object's "caches" (report.h sweepCachesToJson writes them) read back.
Expected<std::vector<CacheInfo>> sweepCachesFromJson(const nlohmann::json& sweep);

// The "matrix" object written by matrixToJson (without its runs, which are in "benchmarks").
Expected<MatrixResult> matrixFromJson(const nlohmann::json& matrix);

} // namespace ctxscope
