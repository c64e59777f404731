// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include <QApplication>
#include <QLabel>

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

int main(int argc, char** argv)
{
    // GUI tests never need a display (test discovery runs them too).
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
