// SPDX-License-Identifier: MIT
#include "appoptions.h"

#include "mapscrollarea.h"
#include "plotsview.h"

#include "ctxscope/bench.h"
#include "ctxscope/lesson.h"
#include "ctxscope/traced_run.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>

namespace ctxscope::gui {

namespace {

// The i-th value of a repeatable option, the last one for later runs, or an empty string.
QString nth(const QStringList& values, qsizetype i)
{
    return values.isEmpty() ? QString() : values.at(std::min(i, values.size() - 1));
}

std::optional<QString> valueIfSet(const QCommandLineParser& parser, const QCommandLineOption& option)
{
    return parser.isSet(option) ? std::optional(parser.value(option)) : std::nullopt;
}

} // namespace

void chooseHeadlessPlatform(int argc, char** argv)
{
    if (!qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        return;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h" || arg == "--version" || arg == "-v" || arg.starts_with("--screenshot")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return;
        }
    }
}

AppOptions readAppOptions(const QCoreApplication& app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Explore what a context switch costs on this machine."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption xmlOpt(
        QStringLiteral("topology-xml"), QStringLiteral("Show an hwloc XML topology."), QStringLiteral("FILE"));
    const QCommandLineOption synthOpt(QStringLiteral("synthetic"),
        QStringLiteral("Show a synthetic topology, e.g. 'pack:2 l3:2 core:4 pu:2'."), QStringLiteral("DESC"));
    const QCommandLineOption runOpt(QStringLiteral("run"),
        QStringLiteral("Run this benchmark once the window is up (repeat for several runs, one after the other)."),
        QStringLiteral("BENCH"));
    const QCommandLineOption cpusOpt(QStringLiteral("cpus"),
        QStringLiteral("Place tasks A, B, ... on these PUs (OS indices, as taskset takes them), e.g. 0,2; the n-th "
                       "--cpus goes with the n-th --run. Without it a run uses the run panel's placement."),
        QStringLiteral("A,B"));
    const QCommandLineOption modeOpt(QStringLiteral("mode"),
        QStringLiteral("thread or process, for --run (the n-th goes with the n-th --run)."), QStringLiteral("MODE"));
    const QCommandLineOption traceOpt(QStringLiteral("trace"),
        QStringLiteral("Trace the scheduler for each --run: after it, the same run once more with the kernel's "
                       "scheduler events recorded (root, or a tracefs the user may write); its breakdown and "
                       "timeline are in the Timeline view (--view timeline). With --watch, the watch follows the "
                       "scheduler's events too and Programs shows the threads' wake-ups, and with --view timeline "
                       "their timeline."));
    const QCommandLineOption traceBackendOpt(QStringLiteral("trace-backend"),
        QStringLiteral("How --trace cuts each --run's hand-overs (the run panel's \"Traced:\"): ftrace (the default: "
                       "from its events, which the timeline shows) or bpf (in the kernel: the steps only, each task "
                       "pinned, a fraction of the cost)."),
        QStringLiteral("BACKEND"));
    const QCommandLineOption keepAwakeOpt(QStringLiteral("keep-awake"),
        QStringLiteral("Measure each --run as an A/B, as is and then with its CPUs kept awake (the run panel's \"Keep "
                       "the other CPU awake\"): the pair's A/B sentence under the figures, both sides in the "
                       "breakdown when traced."));
    const QCommandLineOption lessonOpt(QStringLiteral("lesson"),
        QStringLiteral("Run this lesson (see ctxscope-cli lesson --list) and show its conclusion; "
                       "several run one after the other, as in a lecture."),
        QStringLiteral("NAME"));
    const QCommandLineOption plotOpt(QStringList { QStringLiteral("view"), QStringLiteral("plot") },
        QStringLiteral("Show this view once the work is done: ")
            + ctxscope::gui::PlotsView::viewNames().join(QStringLiteral(", "))
            + QStringLiteral("; with --compare-machines, working-set and survey-figures pick that window's tabs."),
        QStringLiteral("NAME"));
    const QCommandLineOption openOpt(QStringLiteral("open"),
        QStringLiteral("Open a results file of ctxscope-cli (run, sweep, matrix --json) or a saved session "
                       "(repeatable)."),
        QStringLiteral("FILE"));
    const QCommandLineOption compareOpt(QStringLiteral("compare"),
        QStringLiteral("Compare with a results file from another machine or session (repeatable)."),
        QStringLiteral("FILE"));
    const QCommandLineOption machinesOpt(QStringLiteral("compare-machines"),
        QStringLiteral("Open a machine card (ctxscope-cli survey --json) or results file in Compare machines (repeat "
                       "for more); with --screenshot, the picture is of that window."),
        QStringLiteral("file"));
    const QCommandLineOption articlesOpt(QStringLiteral("with-articles"),
        QStringLiteral("With --compare-machines: check With the articles' figures (the published figures of the "
                       "articles ctxscope grew from, as read-only cards)."));
    const QCommandLineOption zoomOpt(QStringLiteral("map-zoom"),
        QStringLiteral("Zoom the map this many times (1 to 8; Ctrl+wheel or + and - in the window), showing its "
                       "top-left corner."),
        QStringLiteral("FACTOR"));
    const QCommandLineOption darkOpt(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    const QCommandLineOption presentOpt(QStringLiteral("presentation"),
        QStringLiteral("Start in presentation mode (F11): full screen, high contrast, large type, the run panel "
                       "and results table hidden."));
    const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window once the requested runs have finished and are drawn."),
        QStringLiteral("FILE"));
    const QCommandLineOption quitOpt(QStringLiteral("quit"), QStringLiteral("Quit once the requested work is done."));
    const QCommandLineOption saveOpt(QStringLiteral("save-results"),
        QStringLiteral(
            "Save the results as JSON (with samples) or CSV, by the suffix, once the requested runs are done."),
        QStringLiteral("FILE"));
    const QCommandLineOption remoteOpt(QStringLiteral("remote"),
        QStringLiteral("Measure HOST over ssh instead of this machine: an alias of ~/.ssh/config, user@host or "
                       "ssh://user@host:port. Runs ssh in batch mode ($CTXSCOPE_SSH_COMMAND when set) and "
                       "`ctxscope-cli worker` there; --run, --lesson, --cpus, --screenshot and --save-results act on "
                       "the last --remote given."),
        QStringLiteral("HOST"));
    const QCommandLineOption remoteCliOpt(QStringLiteral("remote-cli"),
        QStringLiteral("The ctxscope-cli to run on the --remote machine, for one outside its PATH (default: "
                       "ctxscope-cli)."),
        QStringLiteral("PATH"));
    const QCommandLineOption watchOpt(QStringLiteral("watch"),
        QStringLiteral("Open Programs and watch this running process's threads on the map (after any runs and "
                       "lesson); with --screenshot, the picture is taken after 8 s of watching."),
        QStringLiteral("PID"));
    parser.addOptions({ xmlOpt, synthOpt, runOpt, cpusOpt, modeOpt, traceOpt, traceBackendOpt, keepAwakeOpt, lessonOpt,
        plotOpt, openOpt, compareOpt, machinesOpt, articlesOpt, zoomOpt, darkOpt, presentOpt, shotOpt, quitOpt, saveOpt,
        remoteOpt, remoteCliOpt, watchOpt });
    parser.process(app);

    AppOptions options;
    options.topologyXml = valueIfSet(parser, xmlOpt);
    options.synthetic = valueIfSet(parser, synthOpt);
    options.remotes = parser.values(remoteOpt);
    if (parser.isSet(remoteCliOpt))
        options.remoteCli = parser.value(remoteCliOpt);
    options.cpuLists = parser.values(cpusOpt);
    options.benches = parser.values(runOpt);
    options.modes = parser.values(modeOpt);
    options.trace = parser.isSet(traceOpt);
    options.traceBackend = parser.value(traceBackendOpt);
    options.keepAwake = parser.isSet(keepAwakeOpt);
    options.lessons = parser.values(lessonOpt);
    options.view = parser.value(plotOpt);
    options.opens = parser.values(openOpt);
    options.compares = parser.values(compareOpt);
    options.machineCards = parser.values(machinesOpt);
    options.withArticles = parser.isSet(articlesOpt);
    options.mapZoom = valueIfSet(parser, zoomOpt);
    options.dark = parser.isSet(darkOpt);
    options.presentation = parser.isSet(presentOpt);
    options.screenshot = valueIfSet(parser, shotOpt);
    options.quit = parser.isSet(quitOpt);
    options.saveResults = valueIfSet(parser, saveOpt);
    options.watch = valueIfSet(parser, watchOpt);
    return options;
}

Error optionError(std::string_view option, std::string_view message)
{
    return makeError(std::string(option) + std::string(message));
}

Status checkMachineOptions(const AppOptions& options)
{
    if (options.remote() && (options.topologyXml || options.synthetic))
        return optionError("--remote: ", "shows the server's own topology; leave out --topology-xml and --synthetic");
    return {};
}

Expected<std::vector<ScriptedRun>> checkRuns(
    const AppOptions& options, const std::vector<std::vector<int>>& placements, const ShownMachine& machine)
{
    std::vector<ScriptedRun> runs;
    const QStringList& benches = options.benches;
    for (qsizetype i = 0; i < benches.size(); ++i) {
        if (!findBenchmark(benches[i].toStdString())) {
            QStringList names;
            for (const auto& b : benchmarks())
                names << QString::fromUtf8(b.name.data(), static_cast<qsizetype>(b.name.size()));
            return optionError("--run: ",
                "unknown benchmark '" + benches[i].toStdString() + "' (one of "
                    + names.join(QStringLiteral(", ")).toStdString() + ")");
        }
        ScriptedRun run { benches[i], std::nullopt, {}, options.trace, options.keepAwake };
        if (!options.traceBackend.isEmpty())
            run.traceBackend = traceBackendFrom(options.traceBackend.toStdString()).value_or(TraceBackend::Ftrace);
        if (run.traced) {
            BenchSpec probe;
            probe.bench = benches[i].toStdString();
            if (const std::string refusal = traceRefusal(probe, {}); !refusal.empty())
                return optionError("--trace: ", refusal);
        }
        if (const QString mode = nth(options.modes, i); !mode.isEmpty()) {
            run.mode = benchModeFromString(mode.toStdString());
            if (!run.mode)
                return optionError("--mode: ", "should be thread or process, not '" + mode.toStdString() + "'");
        }
        if (!placements.empty())
            run.cpus = placements[static_cast<std::size_t>(
                std::min<qsizetype>(i, static_cast<qsizetype>(placements.size()) - 1))];
        runs.push_back(std::move(run));
    }
    if (!options.traceBackend.isEmpty()) {
        const auto backend = traceBackendFrom(options.traceBackend.toStdString());
        if (!backend || *backend == TraceBackend::Auto)
            return optionError(
                "--trace-backend: ", "should be ftrace or bpf, not '" + options.traceBackend.toStdString() + "'");
        if (!options.trace || runs.empty())
            return optionError("--trace-backend: ", "says how --trace cuts the runs --run asks for; give both");
    }
    if (options.keepAwake && runs.empty())
        return optionError("--keep-awake: ", "measures the runs --run asks for as an A/B; give one");
    if (options.trace && runs.empty() && !options.watch)
        return optionError("--trace: ", "traces the runs --run asks for, or the --watch; give one");
    if (!runs.empty() && !machine.live)
        return optionError("--run: ", "runs need this machine's topology, not " + machine.origin);
    return runs;
}

Status checkLessons(const AppOptions& options, const ShownMachine& machine)
{
    for (const QString& lesson : options.lessons) {
        if (!findLesson(lesson.toStdString())) {
            QStringList names;
            for (const auto& l : ctxscope::lessons())
                names << QString::fromUtf8(l.id.data(), static_cast<qsizetype>(l.id.size()));
            return optionError("--lesson: ",
                "unknown lesson '" + lesson.toStdString() + "' (one of "
                    + names.join(QStringLiteral(", ")).toStdString() + ")");
        }
        if (!machine.live)
            return optionError("--lesson: ", "a lesson needs this machine's topology, not " + machine.origin);
    }
    return {};
}

Status checkView(const AppOptions& options)
{
    const QString& view = options.view;
    if (!view.isEmpty() && !options.surveyFigures() && !PlotsView::viewNames().contains(view))
        return optionError("--view: ",
            "should be one of " + PlotsView::viewNames().join(QStringLiteral(", ")).toStdString()
                + " (or survey-figures with --compare-machines), not '" + view.toStdString() + "'");
    if (options.surveyFigures() && options.machineCards.isEmpty())
        return optionError(
            "--view: ", "survey-figures is a tab of Compare machines: give the cards with --compare-machines");
    if (options.withArticles && options.machineCards.isEmpty())
        return optionError("--with-articles: ",
            "the articles' figures are cards of Compare machines: give at least one card with --compare-machines");
    return {};
}

Expected<long> checkWatch(const AppOptions& options, const ShownMachine& machine)
{
    if (!options.watch)
        return 0L;
    bool ok = false;
    const long pid = options.watch->toLong(&ok);
    if (!ok || pid <= 0)
        return optionError("--watch: ", "should be a process ID, not '" + options.watch->toStdString() + "'");
    if (!machine.live)
        return optionError("--watch: ", "watching needs a machine's own topology, not " + machine.origin);
    // This machine's processes are known now; a server's only once its worker answers.
    if (!options.remote() && !QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)))
        return optionError("--watch: ", "no process " + std::to_string(pid) + " runs on this machine");
    return pid;
}

Expected<double> checkMapZoom(const AppOptions& options)
{
    if (!options.mapZoom)
        return 1.0;
    bool ok = false;
    const double zoom = options.mapZoom->toDouble(&ok);
    if (!ok || zoom < 1.0 || zoom > MapScrollArea::kMaxZoom)
        return optionError(
            "--map-zoom: ", "should be a number from 1 to 8, not '" + options.mapZoom->toStdString() + "'");
    return zoom;
}

} // namespace ctxscope::gui
