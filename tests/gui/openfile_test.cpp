// SPDX-License-Identifier: MIT
// Opening files off the GUI thread: a 200 MB session opens while the window keeps drawing,
// and Cancel leaves the session as it was.
#include "bigsession.h"
#include "fileopener.h"
#include "mainwindow.h"
#include "sessionstore.h"
#include "testresults.h"
#include "testtopologies.h"

#include "ctxscope/results_file.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>

#include <gtest/gtest.h>

#include <cstdio>

#include <algorithm>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr std::size_t kSessionBytes = 200'000'000;

// The session of bigsession.h, about 200 MB, written once for the suite.
class OpenFile : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_dir = new QTemporaryDir;
        ASSERT_TRUE(s_dir->isValid());
        s_path = s_dir->filePath(QStringLiteral("big-session.json"));
        s_runs = ctxscope::testing::writeBigSession(s_path, kSessionBytes);
        ASSERT_GT(s_runs, 0U);
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }

    static inline QTemporaryDir* s_dir = nullptr;
    static inline QString s_path;
    static inline std::size_t s_runs = 0;
};

// The longest wait between two ticks of a 10 ms timer on the GUI thread since it started.
struct GapMeter {
    QTimer timer;
    QElapsedTimer clock;
    qint64 worst = 0;
    GapMeter()
    {
        timer.setInterval(10);
        QObject::connect(&timer, &QTimer::timeout, [this] { worst = std::max(worst, clock.restart()); });
        clock.start();
        timer.start();
    }
};

} // namespace

// The reader's thread parses; the GUI thread adds one run per turn of the event loop, its
// curves prepared on the reader's thread and its samples shared with the plots, never copied.
// What a user relies on is that the window keeps answering while a big file opens: the check
// is relative (the longest stall is a small part of the whole open), not a wall-clock goal,
// which belongs in docs/performance.md (measured there: the worst gap under ASan).
TEST_F(OpenFile, A200MbSessionOpensWhileTheGuiThreadKeepsRunning)
{
    ASSERT_GE(QFileInfo(s_path).size(), static_cast<qint64>(kSessionBytes));
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    window.show();
    QSignalSpy done(window.opener(), &FileOpener::finished);
    GapMeter gaps;
    QElapsedTimer opening;
    opening.start();
    window.opener()->open({ s_path }, DocumentKind::Session);
    ASSERT_TRUE(done.wait(300'000));
    const qint64 openMs = opening.elapsed();
    ASSERT_TRUE(done.at(0).at(0).toBool()) << done.at(0).at(1).toString().toStdString();
    EXPECT_EQ(window.store()->runs().size(), s_runs);
    EXPECT_EQ(window.store()->runs().front().result->samples.size(), std::size_t { 1 } << 19);
    // The event loop went on answering while the file was read and parsed: its longest stall
    // is under a tenth of the open (parsing on the GUI thread would stall for all of it).
    std::printf("a %lld MB session opened in %lld ms; the GUI thread's longest stall %lld ms\n",
        static_cast<long long>(QFileInfo(s_path).size() >> 20), static_cast<long long>(openMs),
        static_cast<long long>(gaps.worst));
    EXPECT_LT(gaps.worst * 10, openMs) << "the GUI thread stalled for " << gaps.worst << " ms of " << openMs;
}

TEST_F(OpenFile, CancelLeavesTheSessionAsItWas)
{
    MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:1 core:2 pu:1"));
    window.store()->addRun({ 1, ctxscope::testing::futexResult(), Qt::blue });
    QSignalSpy done(window.opener(), &FileOpener::finished);
    window.opener()->open({ s_path }, DocumentKind::Session);
    EXPECT_TRUE(window.opener()->isBusy());
    QTimer::singleShot(20, window.opener(), &FileOpener::cancel);
    ASSERT_TRUE(done.wait(300'000));
    EXPECT_FALSE(done.at(0).at(0).toBool());
    EXPECT_TRUE(done.at(0).at(1).toString().isEmpty()) << "a cancel is not an error";
    ASSERT_EQ(window.store()->runs().size(), 1U);
    EXPECT_EQ(window.store()->runs().front().id, 1U);
    EXPECT_FALSE(window.opener()->isBusy());
}
