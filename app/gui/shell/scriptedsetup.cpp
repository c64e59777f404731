// SPDX-License-Identifier: MIT
#include "scriptedsetup.h"

#include "filemenu.h"
#include "fileopener.h"
#include "lookcontroller.h"
#include "machinecompare.h"
#include "machinecompareview.h"
#include "machinecontroller.h"
#include "machinelink.h"
#include "mainwindow.h"
#include "mapscrollarea.h"
#include "plotsview.h"
#include "programsdock.h"
#include "programspanel.h"
#include "runmenu.h"
#include "topologymappanel.h"

#include "ctxscope/topology.h"

#include <QApplication>
#include <QCheckBox>
#include <QTabWidget>

#include <cstdio>
#include <memory>
#include <utility>

namespace ctxscope::gui {

namespace {

// --watch with --screenshot: enough samples (at 0.5 s) for the plot to show a trend.
constexpr double kWatchScreenshotS = 8.0;

// The topology the options name: a server's (connected to now, as File → Connect does: the
// map shows the server, runs go there), a file's, a synthetic one or this machine's.
Expected<Topology> showMachine(const AppOptions& options, MainWindow& window)
{
    if (options.remote()) {
        const MachineLink link { options.remotes.constLast(), options.remoteCli };
        std::fprintf(stderr, "ctxscope: connecting to %s...\n", link.destination.toLocal8Bit().constData());
        Expected<Topology> server = window.machines()->connectNow(link, 60'000);
        if (!server)
            return optionError("--remote: ", server.error().message);
        return server;
    }
    return options.topologyXml ? Topology::loadXmlFile(options.topologyXml->toStdString())
        : options.synthetic    ? Topology::loadSynthetic(options.synthetic->toStdString())
                               : Topology::loadLive();
}

// Every --cpus, checked against the topology shown before anything runs; the first is shown
// on the map.
Expected<std::vector<std::vector<int>>> placeCpus(const AppOptions& options, MainWindow& window)
{
    std::vector<std::vector<int>> placements;
    for (const QString& text : options.cpuLists) {
        const auto cpus = parseCpuList(text.toStdString());
        const Status placed = cpus ? window.mapPanel()->map()->setSelection(*cpus) : Status(cpus.error());
        if (!placed)
            return optionError("--cpus: ", placed.error().message);
        placements.push_back(*cpus);
    }
    if (!placements.empty())
        (void)window.mapPanel()->map()->setSelection(placements.front());
    return placements;
}

// Compare machines' window with --compare-machines' cards, the tabs --view picks in it.
Status showCards(const AppOptions& options, MainWindow& window)
{
    if (const Status opened = window.machineCompare()->openCards(options.machineCards); !opened)
        return optionError("--compare-machines: ", opened.error().message);
    // A window of its own: the screen's size, as a user would make it to read the table.
    window.machineCompare()->window()->resize(window.size());
    // The window photographed is Compare machines: --view picks its tabs.
    MachineCompareView& machines = *window.machineCompare()->view();
    machines.articlesCheck()->setChecked(options.withArticles);
    if (options.surveyFigures()) {
        if (!machines.tables()->isTabEnabled(1))
            return optionError("--view: ", "these cards have no survey figures (surveys of version 2 or later have)");
        machines.tables()->setCurrentIndex(1);
    } else if (options.view == QStringLiteral("working-set")) {
        if (!machines.plots()->isTabEnabled(1))
            return optionError(
                "--view: ", "these cards have no working-set points (surveys of version 2 or later have)");
        machines.plots()->setCurrentIndex(1);
    }
    return {};
}

} // namespace

Expected<ScriptPlan> setUpWindow(const AppOptions& options, MainWindow& window)
{
    Expected<Topology> topology = showMachine(options, window);
    if (!topology)
        return topology.error();
    if (options.dark)
        window.look()->setDarkPalette(true);
    if (!options.remote())
        window.setTopology(*topology);

    const auto placements = placeCpus(options, window);
    if (!placements)
        return placements.error();
    const ShownMachine machine { window.launcher()->isLive(), topology->origin() };
    auto runs = checkRuns(options, *placements, machine);
    if (!runs)
        return runs.error();
    if (const Status lessons = checkLessons(options, machine); !lessons)
        return lessons.error();
    if (const Status view = checkView(options); !view)
        return view.error();
    const auto watchPid = checkWatch(options, machine);
    if (!watchPid)
        return watchPid.error();
    if (*watchPid > 0)
        window.programsDock()->show();
    const auto zoom = checkMapZoom(options);
    if (!zoom)
        return zoom.error();

    window.show();
    window.mapPanel()->mapView()->setZoom(*zoom, QPointF(0, 0)); // the top-left corner stays in view
    ScriptPlan plan { std::move(*runs), *watchPid, options.view };
    if (!options.machineCards.isEmpty()) {
        if (const Status shown = showCards(options, window); !shown)
            return shown.error();
        if (options.surveyFigures())
            plan.view.clear(); // not a view of the main window
    }
    if (options.presentation)
        window.look()->setPresentationMode(true);
    return plan;
}

ScriptedSession* createScriptedSession(const AppOptions& options, ScriptPlan plan, MainWindow& window)
{
    if (plan.runs.empty() && options.lessons.isEmpty() && !options.screenshot && !options.quit && plan.view.isEmpty()
        && !options.saveResults && plan.watchPid <= 0)
        return nullptr;
    QWidget& photographed
        = options.machineCards.isEmpty() ? static_cast<QWidget&>(window) : *window.machineCompare()->window();
    auto* session = new ScriptedSession(
        *window.launcher(), *window.lessons(), *window.plots(), photographed, std::move(plan.runs), &window);
    session->setScreenshot(options.screenshot.value_or(QString()));
    session->setQuit(options.quit);
    session->setView(plan.view);
    session->setLessons(options.lessons);
    if (plan.watchPid > 0) {
        if (options.trace) // a traced watch: its wake-ups under the rates
            window.programs()->traceSwitch()->setChecked(true);
        session->setWatch(window.programs()->controller(), plan.watchPid, kWatchScreenshotS);
        // --view timeline with a watch: the watched threads' timeline beside their wake-ups.
        if (plan.view == QStringLiteral("timeline") && options.trace) {
            window.programs()->timelineSwitch()->setChecked(true); // the events, to draw them
            window.programs()->setTracedTab(ProgramsPanel::TimelineTab);
            session->setView({});
        }
    }
    const bool quit = options.quit;
    const QString savePath = options.saveResults.value_or(QString());
    QObject::connect(session, &ScriptedSession::finished, qApp, [quit, savePath, &window](int code) {
        if (code != 2 && !savePath.isEmpty())
            if (const Status saved = window.fileMenu()->saveResults(savePath); !saved) {
                std::fprintf(stderr, "ctxscope: --save-results: %s\n", saved.error().message.c_str());
                code = 1;
            }
        if (quit || code == 2)
            QApplication::exit(code);
    });
    return session;
}

bool openCommandLineFiles(const AppOptions& options, MainWindow& window, ScriptedSession* session)
{
    if (options.opens.isEmpty() && options.compares.isEmpty())
        return false;
    FileOpener* opener = window.opener();
    opener->setReportErrors(false); // printed here, with the option that named the file
    auto started = std::make_shared<bool>(false);
    QObject::connect(opener, &FileOpener::finished, qApp, [started](bool, const QString& message, DocumentKind kind) {
        // Only the files of the command line end the app; File → Open later says it in a box.
        if (message.isEmpty() || *started)
            return;
        std::fprintf(stderr, "ctxscope: %s%s\n",
            kind == DocumentKind::Compared ? "--compare: " : "--open: ", qPrintable(message));
        QApplication::exit(2);
    });
    QObject::connect(opener, &FileOpener::idle, qApp, [opener, session, started] {
        if (std::exchange(*started, true))
            return;
        opener->setReportErrors(true); // from here on, File → Open says it in a box
        if (session)
            session->start();
    });
    if (!options.opens.isEmpty())
        opener->open(options.opens, DocumentKind::Results);
    if (!options.compares.isEmpty())
        opener->open(options.compares, DocumentKind::Compared);
    return true;
}

} // namespace ctxscope::gui
