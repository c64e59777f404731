// SPDX-License-Identifier: MIT
// The Programs dock and a kernel thread (issue 33), with the real worker watching kthreadd (TID
// 2): Apply asks first, naming the thread and what the move does, and "No" sends no pin; "Yes"
// moves it (with the worker's opt-in) and Restore gives it back. The move needs CAP_SYS_NICE
// (the CI runs as root); kthreadd gets its CPUs back whatever fails.
#include "../engine/privilege.h"
#include "mainwindow.h"
#include "programscontroller.h"
#include "programspanel.h"
#include "programwatch.h"
#include "topologymappanel.h"
#include "topologymapwidget.h"

#include "ctxscope/thread_affinity.h"

#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr int kWatchWaitMs = 30'000;
constexpr long kKthreadd = 2;

bool kthreaddIsTwo()
{
    QFile comm(QStringLiteral("/proc/2/comm"));
    return comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "kthreadd";
}

class ProgramsKthread : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!kthreaddIsTwo())
            GTEST_SKIP() << "TID 2 is not kthreadd here (a container?)";
        auto live = Topology::loadLive();
        ASSERT_TRUE(live.ok());
        m_allowed = live->allowedPus();
        m_window.setTopology(*live);
        m_panel = m_window.programs();
        m_original = threadAffinity(kKthreadd);
        ASSERT_FALSE(m_original.empty());
    }
    void TearDown() override
    {
        if (!m_original.empty() && threadAffinity(kKthreadd) != m_original) {
            EXPECT_TRUE(setThreadAffinity(kKthreadd, m_original).ok()) << "kthreadd was not given its CPUs back";
        }
    }

    // Watches kthreadd, selects its thread and the first allowed PU, and clicks Apply.
    void applyToKthreadd()
    {
        m_panel->pidField()->setText(QString::number(kKthreadd));
        m_panel->watchButton()->click();
        ProgramWatch* watch = m_panel->controller()->watchData();
        ASSERT_TRUE(QTest::qWaitFor(
            [&] { return watch->threads()->rowOfThread(kKthreadd) >= 0 && watch->samples() > 0; }, kWatchWaitMs))
            << m_panel->statusText().toStdString();
        EXPECT_EQ(watch->guard(), PinGuard::Kthreadd) << "the worker's sample did not say kernel thread";
        m_panel->threadTable()->selectRow(watch->threads()->rowOfThread(kKthreadd));
        ASSERT_TRUE(m_window.mapPanel()->map()->setPinTargets({ m_allowed.front() }).ok());
        ASSERT_TRUE(m_panel->applyButton()->isEnabled());
        m_panel->applyButton()->click();
    }

    std::vector<int> m_allowed;
    std::vector<int> m_original;
    MainWindow m_window;
    ProgramsPanel* m_panel = nullptr;
};

} // namespace

TEST_F(ProgramsKthread, ApplyAsksFirstNamingTheThreadAndNoSendsNoPin)
{
    QSignalSpy done(m_panel->controller(), &ProgramsController::pinDone);
    QSignalSpy refused(m_panel->controller(), &ProgramsController::pinRefused);
    applyToKthreadd();
    QMessageBox* question = m_panel->moveQuestion();
    ASSERT_NE(question, nullptr) << "Apply on kthreadd did not ask";
    EXPECT_NE(question->text().indexOf(QStringLiteral("thread 2 (kthreadd) creates every kernel thread")), -1)
        << question->text().toStdString();
    EXPECT_EQ(question->defaultButton(), question->button(QMessageBox::No));
    EXPECT_EQ(m_panel->controller()->pinsInFlight(), 0) << "a pin went out before the answer";
    question->button(QMessageBox::No)->click();
    // Said at once (the next sample's line replaces it, as it does a pin's).
    EXPECT_NE(m_panel->statusText().indexOf(QStringLiteral("Nothing was pinned")), -1)
        << m_panel->statusText().toStdString();
    EXPECT_EQ(m_panel->controller()->pinsInFlight(), 0);
    // A pin sent would be answered (pinned or refused) well within this.
    QTest::qWait(1500);
    EXPECT_EQ(done.count(), 0);
    EXPECT_EQ(refused.count(), 0);
    EXPECT_EQ(threadAffinity(kKthreadd), m_original);
}

TEST_F(ProgramsKthread, YesMovesItAndRestoreGivesItBack)
{
    if (!test::hasSysNice())
        GTEST_SKIP() << "moving kthreadd needs CAP_SYS_NICE";
    if (!std::all_of(m_original.begin(), m_original.end(),
            [&](int cpu) { return std::find(m_allowed.begin(), m_allowed.end(), cpu) != m_allowed.end(); }))
        GTEST_SKIP() << "kthreadd may run on CPUs the app may not pin to (a cpuset)";
    if (m_original == std::vector<int> { m_allowed.front() })
        GTEST_SKIP() << "kthreadd runs on that one CPU already: nothing would move";
    QSignalSpy done(m_panel->controller(), &ProgramsController::pinDone);
    QSignalSpy refused(m_panel->controller(), &ProgramsController::pinRefused);
    applyToKthreadd();
    ASSERT_NE(m_panel->moveQuestion(), nullptr);
    m_panel->moveQuestion()->button(QMessageBox::Yes)->click();
    ASSERT_TRUE(done.wait(kWatchWaitMs)) << m_panel->statusText().toStdString();
    EXPECT_EQ(refused.count(), 0);
    EXPECT_EQ(threadAffinity(kKthreadd), std::vector<int> { m_allowed.front() });
    ASSERT_TRUE(m_panel->restoreButton()->isEnabled());
    m_panel->restoreButton()->click(); // no second question: giving back is what was agreed to
    ASSERT_TRUE(done.wait(kWatchWaitMs)) << m_panel->statusText().toStdString();
    EXPECT_EQ(refused.count(), 0) << refused.at(0).at(0).toString().toStdString();
    EXPECT_EQ(threadAffinity(kKthreadd), m_original);
}
