// SPDX-License-Identifier: MIT
#include "lesson_print.h"

#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress_line.h"

#include "ctxscope/stats.h"
#include "ctxscope/units.h"
#include "ctxscope/value_json.h"

#include <algorithm>

#include <fmt/core.h>

namespace ctxscope::cli {

namespace {

// "runs 5.30 µs – 5.41 µs" from the repetition medians, the spread the conclusions quote.
std::string repetitionRange(const RunResult& r)
{
    if (r.repetitionMedians.size() < 2)
        return {};
    const auto [lo, hi] = std::minmax_element(r.repetitionMedians.begin(), r.repetitionMedians.end());
    return fmt::format("runs {} – {}", formatDuration(*lo), formatDuration(*hi));
}

double middle(const std::vector<double>& values) { return values.empty() ? 0 : summarize(values).p50; }

} // namespace

int runAndPrintLesson(const std::string& id, const RunBudget& options, const std::string& json)
{
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    const LessonInfo* info = findLesson(id);
    const bool text = json != "-";
    if (text)
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
    const int status = result->results.empty() && result->phases.empty() ? kMeasurementFailed : kOk;
    if (!json.empty())
        if (const int s = writeText(json, lessonToJson(*result).dump(2) + "\n"); s != kOk)
            return s;
    if (!text)
        return status;
    for (const RunResult& r : result->results)
        fmt::print("  measured  {:<34} {:>10} per op  {}\n",
            fmt::format("{} {} {}{}{}", r.bench, toString(r.mode), toString(r.placement.relation),
                r.bench == "ring" ? fmt::format(" N={}", r.placement.tasks) : std::string(),
                r.spec.wsBytes > 0 ? " W=" + formatBytes(r.spec.wsBytes) : std::string()),
            formatDuration(r.stats.p50), repetitionRange(r));
    for (const LessonPhase& p : result->phases)
        fmt::print("  watched   {:<44} {:>9} {}/s {:>9} switches/s{}\n", p.label, formatCount(middle(p.workPerS)),
            p.unit, formatCount(middle(p.switchesPerS)),
            p.runqueueWaitPerS.empty() ? std::string()
                                       : "  run-queue wait " + formatDuration(middle(p.runqueueWaitPerS) * 1e9) + "/s");
    for (const std::string& f : result->failures)
        fmt::print("  could not run: {}\n", f);
    for (const std::string& n : result->notes)
        fmt::print("  note: {}\n", n);
    fmt::print("\n");
    for (const std::string& sentence : result->conclusion)
        fmt::print("  * {}\n", sentence);
    fmt::print("\n");
    return status;
}

} // namespace ctxscope::cli
