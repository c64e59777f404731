// SPDX-License-Identifier: MIT
// Worker -> controller lines for sweeps, matrices, lessons and surveys, made from their events.
#include "ctxscope/protocol.h"

#include "ctxscope/events.h"

#include <algorithm>

namespace ctxscope::protocol {

std::string sweepProgressLine(std::uint64_t id, const SweepProgress& p)
{
    ProgressEvent e = progressEvent(id, std::string(p.stage), p.fraction);
    e.point = p.point;
    e.points = p.points;
    e.wsBytes = p.wsBytes;
    return eventLine(e);
}

std::string sweepPointLine(std::uint64_t id, int index, int points, const WorkingSetPoint& point)
{
    return eventLine(SweepPointEvent { id, index, points, point });
}

std::string sweepResultLine(std::uint64_t id, const SweepResult& sweep)
{
    return eventLine(SweepResultEvent { id, sweep });
}

std::string matrixProgressLine(std::uint64_t id, const MatrixProgress& p)
{
    ProgressEvent e = progressEvent(id, "measuring", p.fraction);
    e.pair = p.run;
    e.pairs = p.runs;
    e.cpus = std::pair(p.a, p.b);
    return eventLine(e);
}

std::string matrixCellLine(std::uint64_t id, const MatrixProgress& p)
{
    MatrixCellEvent e { id, p.run, p.runs, std::nullopt, std::nullopt, std::string(p.failure) };
    if (p.finished) {
        const RunResult& r = *p.finished;
        e.cell = matrixCellOf(p.a, p.b, r, true);
        e.result = r;
        e.error.clear();
    }
    return eventLine(e);
}

std::string matrixResultLine(std::uint64_t id, const MatrixResult& matrix, const std::vector<std::string>& warnings)
{
    return eventLine(MatrixResultEvent { id, matrix, warnings, 0 });
}

std::string lessonProgressLine(std::uint64_t id, const LessonProgress& p)
{
    ProgressEvent e = progressEvent(id, std::string(p.label), p.fraction);
    e.step = p.step;
    e.steps = p.steps;
    return eventLine(e);
}

std::string lessonStepLine(std::uint64_t id, const LessonProgress& p)
{
    LessonStepEvent e { id, p.step, p.steps, std::string(p.label), std::nullopt, std::string(p.failure), std::nullopt };
    if (p.finished) {
        e.result = *p.finished;
        e.error.clear();
    } else if (p.phase) {
        e.phase = *p.phase;
        e.error.clear();
    }
    return eventLine(e);
}

std::string lessonResultLine(std::uint64_t id, const LessonResult& lesson, const std::vector<std::string>& warnings)
{
    return eventLine(LessonResultEvent { id, lesson, warnings });
}

std::string surveyProgressLine(std::uint64_t id, const SurveyProgress& p)
{
    ProgressEvent e = progressEvent(
        id, std::string(p.label), p.estimateSeconds > 0 ? std::min(1.0, p.elapsedSeconds / p.estimateSeconds) : 0);
    e.step = p.step;
    e.steps = p.steps;
    return eventLine(e);
}

std::string surveyStepLine(std::uint64_t id, const SurveyProgress& p)
{
    return eventLine(
        SurveyStepEvent { id, p.step, p.steps, std::string(p.label), p.finished ? *p.finished : RunResult {} });
}

std::string surveyResultLine(std::uint64_t id, const SurveyResult& survey, const std::vector<std::string>& warnings)
{
    return eventLine(SurveyResultEvent { id, surveyToJson(survey), warnings });
}

} // namespace ctxscope::protocol
