// SPDX-License-Identifier: MIT
#include "distributionplot.h"
#include "liveplot.h"
#include "machinecontroller.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "runpanel.h"
#include "testresults.h"
#include "testtopologies.h"
#include "topologymappanel.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>

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

// Issue 33: a file or description shown is named as such, never as "this machine".
TEST(MainWindow, TheTitleAndTheSwitcherNameTheFileOrDescriptionShown)
{
    gui::MainWindow window;
    const QComboBox* switcher = window.machines()->switcher();
    ASSERT_NE(switcher, nullptr);
    auto xml = Topology::loadXmlFile(std::string(CTXSCOPE_FIXTURES_DIR) + "/topology/good/unequal-cores.xml");
    ASSERT_TRUE(xml.ok());
    window.setTopology(*xml);
    EXPECT_EQ(window.windowTitle(), QStringLiteral("ctxscope — XML file unequal-cores.xml"));
    EXPECT_EQ(switcher->currentText(), QStringLiteral("XML file unequal-cores.xml"));
    EXPECT_EQ(switcher->itemText(1), QStringLiteral("this machine")); // still there to go back to

    window.setTopology(ctxscope::testing::synthetic("pack:24 l3:1 core:8 pu:2"));
    EXPECT_EQ(window.windowTitle(), QStringLiteral("ctxscope — synthetic 'pack:24 l3:1 core:8 pu:2'"));
    EXPECT_EQ(switcher->currentText(), QStringLiteral("synthetic 'pack:24 l3:1 core:8 pu:2'"));
    EXPECT_EQ(switcher->currentIndex(), 0);
}

TEST(MainWindow, ShowsTheTopologyAsAMapWithTheTextViewBeside)
{
    gui::MainWindow window;
    auto synth = Topology::loadSynthetic("pack:2 l3:2 core:4 pu:2");
    ASSERT_TRUE(synth.ok());
    window.setTopology(*synth);
    const QTabWidget* tabs = nullptr; // the one holding the map (plots and results have their own)
    for (const QTabWidget* candidate : window.findChildren<QTabWidget*>())
        if (candidate->indexOf(window.mapPanel()) >= 0)
            tabs = candidate;
    ASSERT_NE(tabs, nullptr);
    EXPECT_EQ(tabs->currentWidget(), window.mapPanel());
    EXPECT_EQ(tabs->count(), 2);
    const auto& layout = window.mapPanel()->map()->mapLayout();
    for (const PuInfo& pu : synth->pus())
        EXPECT_GE(layout.puBox(pu.osIndex), 0);
}

TEST(MainWindow, RunAndCancelHaveTheirShortcutsAndThePanelsButtons)
{
    gui::MainWindow window;
    EXPECT_EQ(window.runAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
    EXPECT_EQ(window.cancelAction()->shortcut(), QKeySequence(Qt::Key_Escape));
    bool runButton = false, cancelButton = false;
    for (const QToolButton* button : window.runPanel()->findChildren<QToolButton*>()) {
        runButton = runButton || button->defaultAction() == window.runAction();
        cancelButton = cancelButton || button->defaultAction() == window.cancelAction();
    }
    EXPECT_TRUE(runButton);
    EXPECT_TRUE(cancelButton);
}

TEST(MainWindow, SelectingAResultRowShowsItsPusOnTheMapAndEmphasisesItsCurves)
{
    gui::MainWindow window;
    window.setTopology(ctxscope::testing::synthetic("pack:2 l3:2 core:4 pu:2"));
    const QColor blue(Qt::blue), red(Qt::red);
    window.plots()->livePlot()->beginRun(1, QStringLiteral("same-pu"), blue);
    window.plots()->livePlot()->beginRun(2, QStringLiteral("cross-package"), red);
    window.plots()->distributionPlot()->addResult(
        1, ctxscope::testing::futexResult({ 3, 3 }), QStringLiteral("same-pu"), blue);
    window.plots()->distributionPlot()->addResult(
        2, ctxscope::testing::futexResult({ 0, 17 }), QStringLiteral("x"), red);
    window.resultsModel()->addResult({ 1, ctxscope::testing::futexResult({ 3, 3 }), blue });
    window.resultsModel()->addResult({ 2, ctxscope::testing::futexResult({ 0, 17 }), red });

    window.resultsTable()->selectRow(1);
    EXPECT_EQ(window.mapPanel()->map()->selection(), (std::vector<int> { 0, 17 }));
    EXPECT_EQ(window.plots()->livePlot()->highlightedRun(), 2U);
    EXPECT_EQ(window.plots()->distributionPlot()->highlightedRun(), 2U);
    window.resultsTable()->selectRow(0);
    EXPECT_EQ(window.mapPanel()->map()->selection(), (std::vector<int> { 3, 3 }));
    EXPECT_EQ(window.plots()->livePlot()->highlightedRun(), 1U);
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
