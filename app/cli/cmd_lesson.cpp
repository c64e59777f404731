// SPDX-License-Identifier: MIT
#include "commands.h"
#include "lesson_print.h"
#include "trace_options.h"

#include "ctxscope/lesson.h"

#include <fmt/core.h>

namespace ctxscope::cli {

namespace {

struct LessonOptionsCli {
    std::string id;
    bool list = false;
    double minTime = 0.1;
    int repetitions = 3;
    double phase = RunBudget {}.phaseSeconds;
    std::string json;
    TraceCliOptions trace;
};

int listLessons()
{
    for (const LessonInfo& l : lessons())
        fmt::print("{:<22}{}\n{:<22}runs: {}\n", l.id, l.question, "", l.experiments);
    return kOk;
}

} // namespace

Command addLessonCommand(CLI::App& app)
{
    auto o = std::make_shared<LessonOptionsCli>();
    CLI::App* sub = app.add_subcommand(
        "lesson", "Run a teaching preset and print its conclusion, computed from what it measured");
    sub->add_option("name", o->id, "The lesson's id (see --list)");
    sub->add_flag("--list", o->list, "List the lessons and what each runs");
    sub->add_option("--min-time", o->minTime, "Seconds per repetition of each experiment")->capture_default_str();
    sub->add_option("--repetitions", o->repetitions, "Repetitions of each experiment")->capture_default_str();
    sub->add_option(
           "--phase", o->phase, "Seconds each phase of a watching lesson (live-placement) is watched, 1 to 600")
        ->check(CLI::Range(kMinPhaseSeconds, kMaxPhaseSeconds))
        ->capture_default_str();
    sub->add_option("--json", o->json,
        "Write the lesson (steps, failures, notes, conclusion, a watching lesson's phases) as JSON to FILE, or - "
        "for stdout instead of the text");
    o->trace.addTo(sub);
    sub->get_option("--trace")->description(
        "Trace a lesson's cross-CPU futex step once more inside a private ftrace instance (pinning, spin-or-sleep), "
        "so its VM sentence quotes the measured hand-over; inside-a-switch always traces: needs root or a tracefs "
        "your group may write");
    sub->get_option("--trace-out")
        ->description("Also write a traced step's events to FILE, the cross-CPU placement's where the lesson traces "
                      "two: .dat is trace-cmd's trace.dat (trace-cmd report, KernelShark), .txt the kernel's text "
                      "format (Perfetto UI); implies --trace");
    return { sub, [o] {
                if (o->list)
                    return listLessons();
                if (o->id.empty())
                    return badInput("name a lesson, or use --list");
                if (!findLesson(o->id))
                    return badInput("unknown lesson '" + o->id + "' (see ctxscope-cli lesson --list)");
                return runAndPrintLesson(o->id, RunBudget { o->minTime, o->repetitions, o->phase }, o->json, o->trace);
            } };
}

} // namespace ctxscope::cli
