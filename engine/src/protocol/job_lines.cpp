// SPDX-License-Identifier: MIT
// Worker -> controller lines for sweeps, matrices and lessons (protocol.h has their shapes).
#include "ctxscope/protocol.h"

namespace ctxscope::protocol {

using nlohmann::json;

namespace {

json message(std::string_view type, std::uint64_t id) { return { { "type", type }, { "id", id } }; }

} // namespace

std::string sweepProgressLine(std::uint64_t id, const SweepProgress& p)
{
    json j = message("progress", id);
    j.update({ { "stage", p.stage }, { "point", p.point }, { "points", p.points }, { "ws_bytes", p.wsBytes },
        { "fraction", p.fraction } });
    return j.dump();
}

std::string sweepPointLine(std::uint64_t id, int index, int points, const WorkingSetPoint& point)
{
    json j = message("sweep_point", id);
    j.update({ { "index", index }, { "points", points }, { "point", workingSetPointToJson(point, false) } });
    return j.dump();
}

std::string sweepResultLine(std::uint64_t id, const SweepResult& sweep)
{
    // Each point's summary is a few hundred bytes: even 16 points an octave up to 1 GiB fit.
    json j = message("sweep_result", id);
    j["sweep"] = sweepToJson(sweep, true);
    return j.dump();
}

std::string matrixProgressLine(std::uint64_t id, const MatrixProgress& p)
{
    json j = message("progress", id);
    j.update({ { "stage", "measuring" }, { "pair", p.run }, { "pairs", p.runs }, { "cpus", { p.a, p.b } },
        { "fraction", p.fraction } });
    if (p.estimateSeconds > 0)
        j["estimate_seconds"] = p.estimateSeconds;
    return j.dump();
}

std::string matrixCellLine(std::uint64_t id, const MatrixProgress& p)
{
    json j = message("matrix_cell", id);
    j.update({ { "index", p.run }, { "pairs", p.runs } });
    if (p.finished) {
        const RunResult& r = *p.finished;
        j["cell"] = matrixCellToJson(matrixCellOf(p.a, p.b, r, true));
        j["result"] = resultToJson(r, false);
    } else {
        j["cell"] = nullptr;
        j["error"] = p.failure;
    }
    return j.dump();
}

std::string matrixResultLine(std::uint64_t id, const MatrixResult& matrix, const std::vector<std::string>& warnings)
{
    json j = message("matrix_result", id);
    j["matrix"] = matrixToJson(matrix);
    j["warnings"] = warnings;
    std::string line = j.dump();
    if (line.size() <= kMaxLineBytes)
        return line;
    // Hundreds of PUs filled by class make more cells than a line may hold; the measured
    // cells carry every class's value, so a reader with the topology can fill the rest.
    json measured = json::array();
    std::size_t omitted = 0;
    for (const MatrixCell& c : matrix.cells) {
        if (c.measured)
            measured.push_back(matrixCellToJson(c));
        else
            ++omitted;
    }
    j["matrix"]["cells"] = std::move(measured);
    j["matrix"]["filled_omitted"] = omitted;
    return j.dump();
}

std::string lessonProgressLine(std::uint64_t id, const LessonProgress& p)
{
    json j = message("progress", id);
    j.update({ { "stage", p.label }, { "step", p.step }, { "steps", p.steps }, { "fraction", p.fraction } });
    return j.dump();
}

std::string lessonStepLine(std::uint64_t id, const LessonProgress& p)
{
    json j = message("lesson_step", id);
    j.update({ { "step", p.step }, { "steps", p.steps }, { "label", p.label } });
    if (p.finished)
        j["result"] = resultToJson(*p.finished, false);
    else
        j["error"] = p.failure;
    return j.dump();
}

std::string lessonResultLine(std::uint64_t id, const LessonResult& lesson, const std::vector<std::string>& warnings)
{
    json j = message("lesson_result", id);
    j["lesson"] = lessonToJson(lesson);
    j["warnings"] = warnings;
    return j.dump();
}

} // namespace ctxscope::protocol
