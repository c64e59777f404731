// SPDX-License-Identifier: MIT
// The command line's checks (AppOptions): each error names its option in the sentence the app
// prints after "ctxscope: " (the gui.* tests of tests/gui/CMakeLists.txt run the binary itself).
#include "appoptions.h"

#include <QCoreApplication>

#include <gtest/gtest.h>

namespace ctxscope::gui {
namespace {

const ShownMachine kLive { true, "this machine" };
const ShownMachine kSynthetic { false, "synthetic 'pack:1 core:2 pu:2'" };

TEST(AppOptions, RemoteLeavesOutTheTopologyOptions)
{
    AppOptions options;
    options.remotes = QStringList { QStringLiteral("lab") };
    EXPECT_TRUE(checkMachineOptions(options).ok());
    options.synthetic = QStringLiteral("pack:1 core:2 pu:2");
    ASSERT_FALSE(checkMachineOptions(options).ok());
    EXPECT_EQ(checkMachineOptions(options).error().message,
        "--remote: shows the server's own topology; leave out --topology-xml and --synthetic");
}

TEST(AppOptions, RunsTakeTheirModeAndPlacementInOrder)
{
    AppOptions options;
    options.benches = QStringList { QStringLiteral("futex"), QStringLiteral("futex") };
    options.modes = QStringList { QStringLiteral("process") };
    const auto runs = checkRuns(options, { { 0, 1 }, { 2, 3 } }, kLive);
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    ASSERT_EQ(runs->size(), 2U);
    EXPECT_EQ((*runs)[1].mode, BenchMode::Process); // the last --mode for later runs
    EXPECT_EQ((*runs)[1].cpus, (std::vector<int> { 2, 3 }));

    options.modes = QStringList { QStringLiteral("fiber") };
    EXPECT_EQ(checkRuns(options, {}, kLive).error().message, "--mode: should be thread or process, not 'fiber'");
    options.modes.clear();
    EXPECT_EQ(checkRuns(options, {}, kSynthetic).error().message,
        "--run: runs need this machine's topology, not synthetic 'pack:1 core:2 pu:2'");
    options.benches = QStringList { QStringLiteral("nosuch") };
    EXPECT_EQ(checkRuns(options, {}, kLive).error().message.rfind("--run: unknown benchmark 'nosuch' (one of ", 0), 0U);
}

TEST(AppOptions, TraceNeedsARunOrAWatch)
{
    AppOptions options;
    options.trace = true;
    EXPECT_EQ(checkRuns(options, {}, kLive).error().message,
        "--trace: traces the runs --run asks for, or the --watch; give one");
    options.watch = QStringLiteral("42");
    EXPECT_TRUE(checkRuns(options, {}, kLive).ok());
}

TEST(AppOptions, TheTraceBackendGoesWithTracedRuns)
{
    AppOptions options;
    options.benches = QStringList { QStringLiteral("futex") };
    options.trace = true;
    options.traceBackend = QStringLiteral("bpf");
    const auto runs = checkRuns(options, { { 0, 0 } }, kLive);
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    EXPECT_EQ(runs->front().traceBackend, TraceBackend::Bpf);
    options.traceBackend.clear();
    EXPECT_EQ(checkRuns(options, { { 0, 0 } }, kLive)->front().traceBackend, TraceBackend::Ftrace);
    options.traceBackend = QStringLiteral("auto");
    EXPECT_EQ(checkRuns(options, {}, kLive).error().message, "--trace-backend: should be ftrace or bpf, not 'auto'");
    options.traceBackend = QStringLiteral("bpf");
    options.trace = false;
    EXPECT_EQ(checkRuns(options, {}, kLive).error().message,
        "--trace-backend: says how --trace cuts the runs --run asks for; give both");
}

TEST(AppOptions, ViewWatchAndZoomSayWhatTheyWant)
{
    AppOptions options;
    options.view = QStringLiteral("survey-figures");
    EXPECT_EQ(checkView(options).error().message,
        "--view: survey-figures is a tab of Compare machines: give the cards with --compare-machines");
    options.withArticles = true;
    options.view.clear();
    EXPECT_EQ(checkView(options).error().message,
        "--with-articles: the articles' figures are cards of Compare "
        "machines: give at least one card with --compare-machines");
    options.view = QStringLiteral("survey-figures");
    options.machineCards = QStringList { QStringLiteral("card.json") };
    EXPECT_TRUE(checkView(options).ok());

    EXPECT_EQ(*checkWatch(options, kSynthetic), 0); // no --watch
    options.watch = QStringLiteral("x");
    EXPECT_EQ(checkWatch(options, kLive).error().message, "--watch: should be a process ID, not 'x'");
    // Issue 44: a process this machine does not run is a bad input, like the others; a
    // server's are not known before its worker answers.
    const long self = QCoreApplication::applicationPid();
    options.watch = QString::number(self);
    EXPECT_EQ(*checkWatch(options, kLive), self);
    options.watch = QStringLiteral("2147483647"); // beyond any pid_max
    EXPECT_EQ(checkWatch(options, kLive).error().message, "--watch: no process 2147483647 runs on this machine");
    options.remotes = QStringList { QStringLiteral("server") };
    EXPECT_EQ(*checkWatch(options, kLive), 2147483647L);
    options.remotes.clear();
    options.watch = QStringLiteral("42");
    EXPECT_EQ(checkWatch(options, kSynthetic).error().message,
        "--watch: watching needs a machine's own topology, not synthetic 'pack:1 core:2 pu:2'");

    EXPECT_EQ(*checkMapZoom(options), 1.0); // no --map-zoom
    options.mapZoom = QStringLiteral("2.5");
    EXPECT_EQ(*checkMapZoom(options), 2.5);
    options.mapZoom = QStringLiteral("20");
    EXPECT_EQ(checkMapZoom(options).error().message, "--map-zoom: should be a number from 1 to 8, not '20'");
}

} // namespace
} // namespace ctxscope::gui
