// SPDX-License-Identifier: MIT
// Opening a big session in the app: a 200 MB session of runs with 2^19 samples each
// (tests/gui/bigsession.h) is opened through File → Open's path (FileOpener: parsed on a
// worker thread, its runs added one per turn of the event loop) while a 10 ms timer on the
// GUI thread records the longest wait between its ticks. Goal: no gap over 100 ms.
// Prints the figures (and writes them to FILE with --json FILE); exit status 0 when the goal
// holds, 1 when not, 2 when it could not run.
#include "bigsession.h"
#include "fileopener.h"
#include "mainwindow.h"
#include "sessionstore.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <fstream>

namespace {

constexpr std::size_t kSessionBytes = 200'000'000;
constexpr qint64 kGoalMs = 100;

double loadAverage()
{
    std::ifstream in("/proc/loadavg");
    double one = -1;
    in >> one;
    return one;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = QApplication::arguments();
    const qsizetype jsonAt = args.indexOf(QStringLiteral("--json"));
    const std::string json = jsonAt > 0 && jsonAt + 1 < args.size() ? args[jsonAt + 1].toStdString() : std::string();
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big-session.json"));
    const std::size_t runs = ctxscope::testing::writeBigSession(path, kSessionBytes);
    if (!dir.isValid() || runs == 0) {
        fmt::print(stderr, "perf_open: could not write the session in {}\n", dir.path().toStdString());
        return 2;
    }
    auto topology = ctxscope::Topology::loadSynthetic("pack:1 core:2 pu:1");
    if (!topology) {
        fmt::print(stderr, "perf_open: {}\n", topology.error().message);
        return 2;
    }
    ctxscope::gui::MainWindow window;
    window.setTopology(*topology);
    window.show();
    qint64 worst = 0;
    int ticks = 0;
    QElapsedTimer sinceTick;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        worst = std::max(worst, sinceTick.restart());
        ++ticks;
    });
    bool ok = false;
    QString message;
    QObject::connect(
        window.opener(), &ctxscope::gui::FileOpener::finished, &app, [&](bool succeeded, const QString& why) {
            ok = succeeded;
            message = why;
            QApplication::quit();
        });
    QElapsedTimer opening;
    opening.start();
    sinceTick.start();
    timer.start();
    window.opener()->open({ path }, ctxscope::gui::DocumentKind::Session);
    QApplication::exec();
    const qint64 ms = opening.elapsed();
    if (!ok || window.store()->runs().size() != runs) {
        fmt::print(stderr, "perf_open: the session did not open: {}\n", message.toStdString());
        return 2;
    }
    fmt::print("opening a {} MB session of {} runs (2^19 samples each): {} ms; the GUI thread's longest "
               "wait between 10 ms ticks {} ms ({} ticks), goal <= {} ms; load average {:.2f}\n",
        QFileInfo(path).size() >> 20, runs, ms, worst, ticks, kGoalMs, loadAverage());
    if (!json.empty())
        std::ofstream(json) << nlohmann::json {
            { "megabytes", QFileInfo(path).size() >> 20 }, { "runs", runs }, { "open_ms", ms },
            { "longest_wait_ms", worst }, { "ticks", ticks }, { "goal_ms", kGoalMs }, { "load", loadAverage() }
        }.dump(2) << '\n';
    return worst <= kGoalMs ? 0 : 1;
}
