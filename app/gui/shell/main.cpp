// SPDX-License-Identifier: MIT
#include "filemenu.h"
#include "fileopener.h"
#include "lessoncontroller.h"
#include "lookcontroller.h"
#include "machinecompare.h"
#include "machinecompareview.h"
#include "machinecontroller.h"
#include "mainwindow.h"
#include "mapscrollarea.h"
#include "plotsview.h"
#include "programspanel.h"
#include "runlauncher.h"
#include "scriptedsession.h"
#include "topologymappanel.h"

#include "ctxscope/lesson.h"
#include "ctxscope/traced_run.h"
#include "ctxscope/version.h"
#include "runcontroller.h"

#include <QApplication>
#include <QCheckBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QStringList>
#include <QTabWidget>

#include <cstdio>
#include <memory>
#include <string_view>
#include <utility>

using ctxscope::Topology;
using ctxscope::gui::ScriptedRun;
using ctxscope::gui::ScriptedSession;

namespace {

// --watch with --screenshot: enough samples (at 0.5 s) for the plot to show a trend.
constexpr double kWatchScreenshotS = 8.0;

// --help, --version and --screenshot must work on a machine without a display (man page
// generation, CI screenshots): use Qt's offscreen platform for them when there is none.
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

int fail(const char* what, const std::string& message)
{
    std::fprintf(stderr, "ctxscope: %s%s\n", what, message.c_str());
    return 2;
}

// The i-th value of a repeatable option, the last one for later runs, or an empty string.
QString nth(const QStringList& values, qsizetype i)
{
    return values.isEmpty() ? QString() : values.at(std::min(i, values.size() - 1));
}

} // namespace

int main(int argc, char** argv)
{
    chooseHeadlessPlatform(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ctxscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(ctxscope::kVersion));
    QApplication::setOrganizationName(QStringLiteral("ctxscope"));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.ctxscope.ctxscope"));

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
    parser.addOptions({ xmlOpt, synthOpt, runOpt, cpusOpt, modeOpt, traceOpt, lessonOpt, plotOpt, openOpt, compareOpt,
        machinesOpt, zoomOpt, darkOpt, presentOpt, shotOpt, quitOpt, saveOpt, remoteOpt, remoteCliOpt, watchOpt });
    parser.process(app);

    const bool remote = parser.isSet(remoteOpt);
    if (remote && (parser.isSet(xmlOpt) || parser.isSet(synthOpt)))
        return fail("--remote: ", "shows the server's own topology; leave out --topology-xml and --synthetic");
    ctxscope::gui::MainWindow window;
    ctxscope::Expected<Topology> topology = parser.isSet(xmlOpt)
        ? Topology::loadXmlFile(parser.value(xmlOpt).toStdString())
        : parser.isSet(synthOpt) ? Topology::loadSynthetic(parser.value(synthOpt).toStdString())
                                 : Topology::loadLive();
    if (remote) {
        const ctxscope::gui::MachineLink link { parser.values(remoteOpt).constLast(),
            parser.isSet(remoteCliOpt) ? parser.value(remoteCliOpt) : QStringLiteral("ctxscope-cli") };
        std::fprintf(stderr, "ctxscope: connecting to %s...\n", link.destination.toLocal8Bit().constData());
        // As File → Connect does once connected: the map shows the server, runs go there.
        topology = window.machines()->connectNow(link, 60'000);
    }
    if (!topology)
        return fail(remote ? "--remote: " : "", topology.error().message);

    if (parser.isSet(darkOpt))
        window.look()->setDarkPalette(true);
    if (!remote)
        window.setTopology(*topology);

    // Every --cpus is checked against the topology before anything runs.
    const QStringList cpuLists = parser.values(cpusOpt);
    std::vector<std::vector<int>> placements;
    for (const QString& text : cpuLists) {
        const auto cpus = ctxscope::parseCpuList(text.toStdString());
        const ctxscope::Status placed
            = cpus ? window.mapPanel()->map()->setSelection(*cpus) : ctxscope::Status(cpus.error());
        if (!placed)
            return fail("--cpus: ", placed.error().message);
        placements.push_back(*cpus);
    }
    if (!placements.empty())
        (void)window.mapPanel()->map()->setSelection(placements.front());

    std::vector<ScriptedRun> runs;
    const QStringList benches = parser.values(runOpt);
    for (qsizetype i = 0; i < benches.size(); ++i) {
        if (!ctxscope::findBenchmark(benches[i].toStdString())) {
            QStringList names;
            for (const auto& b : ctxscope::benchmarks())
                names << QString::fromUtf8(b.name.data(), static_cast<qsizetype>(b.name.size()));
            return fail("--run: ",
                "unknown benchmark '" + benches[i].toStdString() + "' (one of "
                    + names.join(QStringLiteral(", ")).toStdString() + ")");
        }
        ScriptedRun run { benches[i], std::nullopt, {}, parser.isSet(traceOpt) };
        if (run.traced) {
            ctxscope::BenchSpec probe;
            probe.bench = benches[i].toStdString();
            if (const std::string refusal = ctxscope::traceRefusal(probe, {}); !refusal.empty())
                return fail("--trace: ", refusal);
        }
        if (const QString mode = nth(parser.values(modeOpt), i); !mode.isEmpty()) {
            run.mode = ctxscope::benchModeFromString(mode.toStdString());
            if (!run.mode)
                return fail("--mode: ", "should be thread or process, not '" + mode.toStdString() + "'");
        }
        if (!placements.empty())
            run.cpus = placements[static_cast<std::size_t>(
                std::min<qsizetype>(i, static_cast<qsizetype>(placements.size()) - 1))];
        runs.push_back(std::move(run));
    }
    if (parser.isSet(traceOpt) && runs.empty() && !parser.isSet(watchOpt))
        return fail("--trace: ", "traces the runs --run asks for, or the --watch; give one");
    if (!runs.empty() && !window.launcher()->isLive())
        return fail("--run: ", "runs need this machine's topology, not " + topology->origin());
    const QStringList lessons = parser.values(lessonOpt);
    for (const QString& lesson : lessons) {
        if (!ctxscope::findLesson(lesson.toStdString())) {
            QStringList names;
            for (const auto& l : ctxscope::lessons())
                names << QString::fromUtf8(l.id.data(), static_cast<qsizetype>(l.id.size()));
            return fail("--lesson: ",
                "unknown lesson '" + lesson.toStdString() + "' (one of "
                    + names.join(QStringLiteral(", ")).toStdString() + ")");
        }
        if (!window.launcher()->isLive())
            return fail("--lesson: ", "a lesson needs this machine's topology, not " + topology->origin());
    }
    QString view = parser.value(plotOpt);
    const bool surveyFigures = view == QStringLiteral("survey-figures");
    if (!view.isEmpty() && !surveyFigures && !ctxscope::gui::PlotsView::viewNames().contains(view))
        return fail("--view: ",
            "should be one of " + ctxscope::gui::PlotsView::viewNames().join(QStringLiteral(", ")).toStdString()
                + " (or survey-figures with --compare-machines), not '" + view.toStdString() + "'");
    if (surveyFigures && !parser.isSet(machinesOpt))
        return fail("--view: ", "survey-figures is a tab of Compare machines: give the cards with --compare-machines");
    long watchPid = 0;
    if (parser.isSet(watchOpt)) {
        bool ok = false;
        watchPid = parser.value(watchOpt).toLong(&ok);
        if (!ok || watchPid <= 0)
            return fail("--watch: ", "should be a process ID, not '" + parser.value(watchOpt).toStdString() + "'");
        if (!window.launcher()->isLive())
            return fail("--watch: ", "watching needs a machine's own topology, not " + topology->origin());
        window.findChild<QDockWidget*>(QStringLiteral("programsDock"))->show();
    }
    double zoom = 1.0;
    if (parser.isSet(zoomOpt)) {
        bool ok = false;
        zoom = parser.value(zoomOpt).toDouble(&ok);
        if (!ok || zoom < 1.0 || zoom > ctxscope::gui::MapScrollArea::kMaxZoom)
            return fail(
                "--map-zoom: ", "should be a number from 1 to 8, not '" + parser.value(zoomOpt).toStdString() + "'");
    }
    window.show();
    window.mapPanel()->mapView()->setZoom(zoom, QPointF(0, 0)); // the top-left corner stays in view
    const QStringList cards = parser.values(machinesOpt);
    if (!cards.isEmpty()) {
        if (const ctxscope::Status opened = window.machineCompare()->openCards(cards); !opened)
            return fail("--compare-machines: ", opened.error().message);
        // A window of its own: the screen's size, as a user would make it to read the table.
        window.machineCompare()->window()->resize(window.size());
        // The window photographed is Compare machines: --view picks its tabs.
        ctxscope::gui::MachineCompareView& machines = *window.machineCompare()->view();
        if (surveyFigures) {
            if (!machines.tables()->isTabEnabled(1))
                return fail("--view: ", "these cards have no survey figures (surveys of version 2 or later have)");
            machines.tables()->setCurrentIndex(1);
        } else if (view == QStringLiteral("working-set")) {
            if (!machines.plots()->isTabEnabled(1))
                return fail("--view: ", "these cards have no working-set points (surveys of version 2 or later have)");
            machines.plots()->setCurrentIndex(1);
        }
        if (surveyFigures)
            view.clear(); // not a view of the main window
    }
    if (parser.isSet(presentOpt))
        window.look()->setPresentationMode(true);

    // --open and --compare are read off the GUI thread like File → Open, behind the same
    // progress and Cancel; what was asked for next starts once they are all in.
    ScriptedSession* session = nullptr;
    if (!runs.empty() || !lessons.isEmpty() || parser.isSet(shotOpt) || parser.isSet(quitOpt) || !view.isEmpty()
        || parser.isSet(saveOpt) || watchPid > 0) {
        QWidget& photographed = cards.isEmpty() ? static_cast<QWidget&>(window) : *window.machineCompare()->window();
        session = new ScriptedSession(
            *window.launcher(), *window.lessons(), *window.plots(), photographed, std::move(runs), &window);
        session->setScreenshot(parser.value(shotOpt));
        session->setQuit(parser.isSet(quitOpt));
        session->setView(view);
        session->setLessons(lessons);
        if (watchPid > 0) {
            if (parser.isSet(traceOpt)) // a traced watch: its wake-ups under the rates
                window.programs()->traceSwitch()->setChecked(true);
            session->setWatch(window.programs()->controller(), watchPid, kWatchScreenshotS);
            // --view timeline with a watch: the watched threads' timeline beside their wake-ups.
            if (view == QStringLiteral("timeline") && parser.isSet(traceOpt)) {
                window.programs()->setTracedTab(ctxscope::gui::ProgramsPanel::TimelineTab);
                session->setView({});
            }
        }
        const bool quit = parser.isSet(quitOpt);
        const QString savePath = parser.value(saveOpt);
        QObject::connect(session, &ScriptedSession::finished, &app, [quit, savePath, &window](int code) {
            if (code != 2 && !savePath.isEmpty())
                if (const ctxscope::Status saved = window.fileMenu()->saveResults(savePath); !saved) {
                    std::fprintf(stderr, "ctxscope: --save-results: %s\n", saved.error().message.c_str());
                    code = 1;
                }
            if (quit || code == 2)
                QApplication::exit(code);
        });
    }
    const QStringList opens = parser.values(openOpt);
    const QStringList compares = parser.values(compareOpt);
    if (opens.isEmpty() && compares.isEmpty()) {
        if (session)
            session->start();
        return QApplication::exec();
    }
    ctxscope::gui::FileOpener* opener = window.opener();
    opener->setReportErrors(false); // printed here, with the option that named the file
    auto started = std::make_shared<bool>(false);
    QObject::connect(opener, &ctxscope::gui::FileOpener::finished, &app,
        [started](bool, const QString& message, ctxscope::gui::DocumentKind kind) {
            // Only the files of the command line end the app; File → Open later says it in a box.
            if (message.isEmpty() || *started)
                return;
            std::fprintf(stderr, "ctxscope: %s%s\n",
                kind == ctxscope::gui::DocumentKind::Compared ? "--compare: " : "--open: ", qPrintable(message));
            QApplication::exit(2);
        });
    QObject::connect(opener, &ctxscope::gui::FileOpener::idle, &app, [opener, session, started] {
        if (std::exchange(*started, true))
            return;
        opener->setReportErrors(true); // from here on, File → Open says it in a box
        if (session)
            session->start();
    });
    if (!opens.isEmpty())
        opener->open(opens, ctxscope::gui::DocumentKind::Results);
    if (!compares.isEmpty())
        opener->open(compares, ctxscope::gui::DocumentKind::Compared);
    return QApplication::exec();
}
