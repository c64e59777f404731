// SPDX-License-Identifier: MIT
#pragma once

#include "scriptedsession.h"

#include "ctxscope/expected.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

class QCoreApplication;

namespace ctxscope::gui {

// The app's command line as given (`ctxscope --help` lists it). readAppOptions fills it; the
// check functions below say what is wrong with it, one option at a time, in the order main()
// answers the options (scriptedsetup.h): a check that needs the machine shown comes after it
// is shown.
struct AppOptions {
    std::optional<QString> topologyXml; // --topology-xml FILE
    std::optional<QString> synthetic; // --synthetic DESC
    QStringList remotes; // --remote HOST: the last one is measured
    QString remoteCli = QStringLiteral("ctxscope-cli"); // --remote-cli PATH
    QStringList cpuLists; // --cpus A,B: the n-th goes with the n-th --run
    QStringList benches; // --run BENCH
    QStringList modes; // --mode MODE: the n-th goes with the n-th --run
    bool trace = false; // --trace
    QString traceBackend; // --trace-backend: ftrace or bpf; empty: ftrace
    bool keepAwake = false; // --keep-awake
    QStringList lessons; // --lesson NAME
    QString view; // --view (or --plot) NAME, the last one given
    QStringList opens; // --open FILE
    QStringList compares; // --compare FILE
    QStringList machineCards; // --compare-machines FILE
    bool withArticles = false; // --with-articles
    std::optional<QString> mapZoom; // --map-zoom FACTOR
    bool dark = false; // --dark
    bool presentation = false; // --presentation
    std::optional<QString> screenshot; // --screenshot FILE
    bool quit = false; // --quit
    std::optional<QString> saveResults; // --save-results FILE
    std::optional<QString> watch; // --watch PID

    bool remote() const { return !remotes.isEmpty(); }
    bool surveyFigures() const { return view == QStringLiteral("survey-figures"); }
};

// What the machine shown is, for the checks of what needs this machine's own topology.
struct ShownMachine {
    bool live = false; // runs may go to it (RunMenu::isLive)
    std::string origin; // where its topology came from (Topology::origin)
};

// --help, --version and --screenshot must work on a machine without a display (man page
// generation, CI screenshots): use Qt's offscreen platform for them when there is none.
// Before the QApplication exists.
void chooseHeadlessPlatform(int argc, char** argv);

// Sets up the command line's options and reads them; --help, --version and an unknown option
// end the app there (QCommandLineParser::process).
AppOptions readAppOptions(const QCoreApplication& app);

// An error of one option: "--run: unknown benchmark …", as main() prints it after "ctxscope: ".
Error optionError(std::string_view option, std::string_view message);

// --remote with a topology of the command line.
Status checkMachineOptions(const AppOptions& options);
// The runs --run asks for, each with its --mode, its placement (the n-th of `placements`, the
// last for later runs) and --trace; --trace with nothing to trace; runs on a machine not live.
Expected<std::vector<ScriptedRun>> checkRuns(
    const AppOptions& options, const std::vector<std::vector<int>>& placements, const ShownMachine& machine);
// Every --lesson is one, and the machine is live.
Status checkLessons(const AppOptions& options, const ShownMachine& machine);
// --view names a view (survey-figures only with --compare-machines).
Status checkView(const AppOptions& options);
// --watch's process ID (0 without --watch), on a live machine.
Expected<long> checkWatch(const AppOptions& options, const ShownMachine& machine);
// --map-zoom's factor (1 without it).
Expected<double> checkMapZoom(const AppOptions& options);

} // namespace ctxscope::gui
