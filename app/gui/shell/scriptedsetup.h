// SPDX-License-Identifier: MIT
#pragma once

#include "appoptions.h"
#include "scriptedsession.h"

#include "ctxscope/expected.h"

#include <QString>

#include <vector>

namespace ctxscope::gui {

class MainWindow;

// What the command line asks the window to do once it is up (ScriptedSession's work).
struct ScriptPlan {
    std::vector<ScriptedRun> runs;
    long watchPid = 0; // 0: no --watch
    QString view; // the main window's view to show at the end; empty: none
};

// Shows in `window` the machine the options name (--remote connects to it), checks the other
// options against it in the order they are answered, and sets the window up as they say: the
// placement of --cpus, the palette, the map's zoom, Compare machines' cards and tabs,
// presentation mode; shows the window. An error is what main() prints after "ctxscope: "
// before it exits with status 2.
Expected<ScriptPlan> setUpWindow(const AppOptions& options, MainWindow& window);

// The ScriptedSession that does what `plan` and the options ask for (runs, lessons, a watch,
// a screenshot, saving results, quitting), not yet started; nullptr when they ask for none.
// A failed --save-results ends the app with status 1.
ScriptedSession* createScriptedSession(const AppOptions& options, ScriptPlan plan, MainWindow& window);

// Starts reading --open's and --compare's files off the GUI thread, like File → Open, behind
// the same progress and Cancel; `session` starts once they are all in. A file that cannot be
// read ends the app with status 2. False when there are none (nothing started).
bool openCommandLineFiles(const AppOptions& options, MainWindow& window, ScriptedSession* session);

} // namespace ctxscope::gui
