// SPDX-License-Identifier: MIT
#include "mainwindow.h"
#include "topologymappanel.h"

#include <QApplication>
#include <QLabel>
#include <QStandardPaths>
#include <QTabWidget>

#include <gtest/gtest.h>

using namespace ctxscope;

TEST(MainWindow, NonLiveTopologyDisablesRunsWithABanner)
{
    gui::MainWindow window;
    auto synth = Topology::loadSynthetic("pack:1 core:2 pu:2");
    ASSERT_TRUE(synth.ok());
    window.setTopology(*synth);
    EXPECT_FALSE(window.runAction()->isEnabled());
    const auto labels = window.findChildren<QLabel*>();
    bool bannerShown = false;
    for (const QLabel* label : labels)
        bannerShown = bannerShown
            || (label->isVisibleTo(&window) && label->text().contains(QStringLiteral("not this machine")));
    EXPECT_TRUE(bannerShown);
}

TEST(MainWindow, ShowsTheTopologyAsAMapWithTheTextViewBeside)
{
    gui::MainWindow window;
    auto synth = Topology::loadSynthetic("pack:2 l3:2 core:4 pu:2");
    ASSERT_TRUE(synth.ok());
    window.setTopology(*synth);
    const auto* tabs = window.findChild<QTabWidget*>();
    ASSERT_NE(tabs, nullptr);
    EXPECT_EQ(tabs->currentWidget(), window.mapPanel());
    EXPECT_EQ(tabs->count(), 2);
    const auto& layout = window.mapPanel()->map()->mapLayout();
    for (const PuInfo& pu : synth->pus())
        EXPECT_GE(layout.puBox(pu.osIndex), 0);
}

int main(int argc, char** argv)
{
    // GUI tests never need a display (test discovery runs them too).
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ctxscope-tests"));
    QApplication::setApplicationName(QStringLiteral("gui_tests"));
    QStandardPaths::setTestModeEnabled(true); // settings go to a test location, not the user's
    // Runs go through the worker built with these tests.
    if (qEnvironmentVariableIsEmpty("CTXSCOPE_CLI"))
        qputenv("CTXSCOPE_CLI", CTXSCOPE_CLI_PATH);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
