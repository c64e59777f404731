// SPDX-License-Identifier: MIT
// The `ctxscope` executable: the command line (appoptions.h), the window set up as it says
// and its scripted work (scriptedsetup.h), then Qt's event loop.
#include "appoptions.h"
#include "mainwindow.h"
#include "scriptedsetup.h"

#include "ctxscope/version.h"

#include <QApplication>

#include <cstdio>
#include <string>
#include <utility>

namespace {

// An option that cannot be followed: one line on stderr, status 2.
int fail(const std::string& message)
{
    std::fprintf(stderr, "ctxscope: %s\n", message.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    using namespace ctxscope::gui;
    chooseHeadlessPlatform(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ctxscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(ctxscope::kVersion));
    QApplication::setOrganizationName(QStringLiteral("ctxscope"));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.ctxscope.ctxscope"));

    const AppOptions options = readAppOptions(app); // --help, --version: it exits
    if (const ctxscope::Status machine = checkMachineOptions(options); !machine)
        return fail(machine.error().message);
    MainWindow window;
    ctxscope::Expected<ScriptPlan> plan = setUpWindow(options, window);
    if (!plan)
        return fail(plan.error().message);
    ScriptedSession* session = createScriptedSession(options, std::move(*plan), window);
    // --open and --compare are read first; the session starts once they are all in.
    if (!openCommandLineFiles(options, window, session) && session)
        session->start();
    return QApplication::exec();
}
