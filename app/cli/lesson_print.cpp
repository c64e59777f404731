// SPDX-License-Identifier: MIT
#include "lesson_print.h"

#include "commands.h"
#include "interrupt.h"
#include "progress_line.h"

#include "ctxscope/units.h"

#include <fmt/core.h>

namespace ctxscope::cli {

int runAndPrintLesson(const std::string& id, const RunBudget& options)
{
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    const LessonInfo* info = findLesson(id);
    fmt::print("Lesson {}: {}\n", id, info ? info->question : "");
    ProgressLine progress;
    InterruptScope interrupt;
    auto result = runLesson(
        id, *topology, options,
        [&](const LessonProgress& p) {
            progress.update(fmt::format("[{}/{}] {}", p.step + 1, p.steps, p.label), p.fraction);
        },
        interrupt.token());
    progress.clear();
    if (!result) {
        fmt::print(stderr, "ctxscope-cli: {}\n", result.error().message);
        return interrupt.requested() ? kInterrupted : kMeasurementFailed;
    }
    for (const RunResult& r : result->results)
        fmt::print("  measured  {:<34} {:>10} per op\n",
            fmt::format("{} {} {}{}", r.bench, toString(r.mode), toString(r.placement.relation),
                r.bench == "ring" ? fmt::format(" N={}", r.placement.tasks) : std::string()),
            formatDuration(r.stats.p50));
    for (const std::string& f : result->failures)
        fmt::print("  could not run: {}\n", f);
    fmt::print("\n");
    for (const std::string& sentence : result->conclusion)
        fmt::print("  * {}\n", sentence);
    fmt::print("\n");
    return result->results.empty() ? kMeasurementFailed : kOk;
}

} // namespace ctxscope::cli
