// SPDX-License-Identifier: MIT
#include "mainwindow.h"
#include "topologymappanel.h"

#include "ctxscope/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QScreen>
#include <QTimer>

#include <cstdio>
#include <string_view>

using ctxscope::Topology;

namespace {

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
    const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window once the requested work is done."), QStringLiteral("FILE"));
    const QCommandLineOption quitOpt(QStringLiteral("quit"), QStringLiteral("Quit once the requested work is done."));
    const QCommandLineOption cpusOpt(QStringLiteral("cpus"),
        QStringLiteral("Place tasks A, B, ... on these PUs (OS indices, as taskset takes them), e.g. 0,2."),
        QStringLiteral("A,B"));
    parser.addOptions({ xmlOpt, synthOpt, shotOpt, quitOpt, cpusOpt });
    parser.process(app);

    ctxscope::Expected<Topology> topology = parser.isSet(xmlOpt)
        ? Topology::loadXmlFile(parser.value(xmlOpt).toStdString())
        : parser.isSet(synthOpt) ? Topology::loadSynthetic(parser.value(synthOpt).toStdString())
                                 : Topology::loadLive();
    if (!topology) {
        std::fprintf(stderr, "ctxscope: %s\n", topology.error().message.c_str());
        return 2;
    }

    ctxscope::gui::MainWindow window;
    window.setTopology(*topology);
    if (parser.isSet(cpusOpt)) {
        const auto cpus = ctxscope::parseCpuList(parser.value(cpusOpt).toStdString());
        const ctxscope::Status placed
            = cpus ? window.mapPanel()->map()->setSelection(*cpus) : ctxscope::Status(cpus.error());
        if (!placed) {
            std::fprintf(stderr, "ctxscope: --cpus: %s\n", placed.error().message.c_str());
            return 2;
        }
    }
    window.show();

    if (parser.isSet(shotOpt) || parser.isSet(quitOpt)) {
        const QString shot = parser.value(shotOpt);
        const bool quit = parser.isSet(quitOpt);
        QTimer::singleShot(300, &window, [&window, shot, quit] {
            if (!shot.isEmpty() && !window.grab().save(shot)) {
                std::fprintf(stderr, "ctxscope: could not save the screenshot to %s\n", qPrintable(shot));
                QApplication::exit(1);
                return;
            }
            if (quit)
                QApplication::quit();
        });
    }
    return QApplication::exec();
}
