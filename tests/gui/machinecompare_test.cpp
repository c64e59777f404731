// SPDX-License-Identifier: MIT
// File → Compare machines… and the Machine toolbar's survey: cards drawn side by side as the
// engine compares them (one series per machine, a verdict per row, the possible causes), and a
// survey through the real worker whose card joins the session document.
#include "compareplot.h"
#include "filemenu.h"
#include "lookcontroller.h"
#include "machinecompare.h"
#include "machinecompareview.h"
#include "machinewsplot.h"
#include "mainwindow.h"
#include "qcp.h"
#include "runbroker.h"
#include "sessionstore.h"
#include "testresults.h"

#include "ctxscope/results_file.h"
#include "ctxscope/sysinfo.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

// A run of the sample's shape with its own benchmark, class and figures: three repetitions
// within 1% of `ns`.
RunResult sampleRun(const std::string& bench, BenchMode mode, Relation relation, double ns)
{
    RunResult r = *ctxscope::testing::futexResult();
    r.bench = bench;
    r.mode = mode;
    r.placement.relation = relation;
    r.warnings.clear();
    r.samples.clear();
    r.histogram.clear();
    r.repetitions = 3;
    r.repetitionMedians = { ns * 0.99, ns, ns * 1.01 };
    r.stats.p50 = ns;
    return r;
}

// A machine card as `ctxscope-cli survey --json` writes one, its futex figures scaled.
QString writeCard(const QTemporaryDir& dir, const std::string& host, const std::string& kernel, double futexScale,
    const nlohmann::json& survey = nlohmann::json::object())
{
    SysInfo sys;
    sys.hostName = host;
    sys.kernel = kernel;
    sys.cpuModel = "Test CPU";
    const auto topology = Topology::loadSynthetic("pack:1 core:2 pu:1");
    EXPECT_TRUE(topology) << topology.error().message;
    std::vector<RunResult> runs { sampleRun("syscall", BenchMode::Thread, Relation::SamePu, 60),
        sampleRun("futex", BenchMode::Thread, Relation::SamePu, 2400 * futexScale),
        sampleRun("futex", BenchMode::Thread, Relation::SharedL3, 5200 * futexScale),
        sampleRun("futex", BenchMode::Process, Relation::Unpinned, 2900 * futexScale),
        sampleRun("pipe", BenchMode::Thread, Relation::SamePu, 4100) };
    // A survey's working set: a round trip and the touch of each size on one PU.
    if (survey.contains("working_set"))
        for (const auto& point : survey["working_set"]["points"]) {
            const auto ws = point["ws_bytes"].get<std::uint64_t>();
            for (const char* bench : { "futex", "touch" }) {
                const double bytes = static_cast<double>(ws);
                runs.push_back(sampleRun(bench, BenchMode::Thread, Relation::SamePu,
                    std::string(bench) == "touch" ? bytes / 64 : 2400 * futexScale + bytes / 16));
                runs.back().spec.wsBytes = ws;
            }
        }
    nlohmann::json card = makeReport(makeContext(sys, *topology, ClockInfo {}), runs, false);
    card["survey"] = survey;
    card["survey"]["suite_version"] = kSurveyVersion;
    const QString path = dir.filePath(QString::fromStdString(host) + QStringLiteral(".json"));
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(card.dump()));
    return path;
}

int barSeries(const ComparePlot& plot)
{
    int n = 0;
    for (int i = 0; i < plot.plot()->plottableCount(); ++i)
        n += qobject_cast<QCPBars*>(plot.plot()->plottable(i)) ? 1 : 0;
    return n;
}

// The verdict column of the second machine, row by row, with the row's benchmark.
std::vector<std::pair<QString, QString>> verdictsOf(const MachineCompareView& view)
{
    std::vector<std::pair<QString, QString>> out;
    const QTableWidget& table = *view.verdicts();
    const int column = view.verdictColumn(1);
    EXPECT_GT(column, 0);
    for (int row = 0; row < table.rowCount(); ++row)
        out.emplace_back(
            table.item(row, 0)->text(), table.item(row, column) ? table.item(row, column)->text() : QString());
    return out;
}

} // namespace

TEST(CompareMachines, TwoCardsShowOneSeriesPerMachineAndAVerdictPerRow)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString a = writeCard(dir, "lab-a", "6.1.0", 1);
    const QString b = writeCard(dir, "lab-b", "6.12.0", 1);
    MainWindow window;
    const Status opened = window.machineCompare()->openCards({ a, b });
    ASSERT_TRUE(opened) << opened.error().message;
    const MachineCompareView& view = *window.machineCompare()->view();
    ASSERT_NE(view.comparison(), nullptr);
    const MachineComparison& c = *view.comparison();
    EXPECT_EQ(c.labels, (std::vector<std::string> { "lab-a", "lab-b" }));
    ASSERT_EQ(c.rows.size(), 5U);

    const ComparePlot& plot = *view.plot();
    EXPECT_EQ(barSeries(plot), 2);
    ASSERT_NE(plot.bars(0), nullptr);
    ASSERT_NE(plot.bars(1), nullptr);
    EXPECT_EQ(plot.bars(0)->data()->size(), 5);
    EXPECT_EQ(plot.rows().size(), c.rows.size());
    // The second machine's bars carry the 95% interval of their ratio; the baseline's none.
    EXPECT_EQ(plot.intervals(0), nullptr);
    ASSERT_NE(plot.intervals(1), nullptr);
    EXPECT_EQ(plot.intervals(1)->dataCount(), 5);

    ASSERT_EQ(view.verdicts()->rowCount(), 5);
    for (const auto& [bench, verdict] : verdictsOf(view))
        EXPECT_EQ(verdict, QStringLiteral("the same")) << bench.toStdString();
    // Each verdict says why in its tooltip.
    EXPECT_EQ(view.verdicts()->item(0, view.verdictColumn(1))->toolTip(),
        QString::fromStdString(machineVerdictWhy(c.rows[0].cells[1])));
    EXPECT_TRUE(view.verdicts()->item(0, view.verdictColumn(1))->toolTip().startsWith(QStringLiteral("The same: ")));
    // The kernels differ: a possible cause, with each machine's value.
    const QTableWidget& causes = *window.machineCompare()->view()->causes();
    bool kernel = false;
    for (int row = 0; row < causes.rowCount(); ++row)
        if (causes.item(row, 0)->text() == QStringLiteral("kernel")) {
            kernel = true;
            EXPECT_EQ(causes.item(row, 1)->text(), QStringLiteral("6.1.0"));
            EXPECT_EQ(causes.item(row, 2)->text(), QStringLiteral("6.12.0"));
        }
    EXPECT_TRUE(kernel) << "the kernel is not among the possible causes";

    // The articles' figures join as read-only cards, and leave again.
    window.machineCompare()->view()->articlesCheck()->setChecked(true);
    ASSERT_NE(view.comparison(), nullptr);
    EXPECT_EQ(view.comparison()->labels.size(), 2 + articleCards().size());
    EXPECT_EQ(barSeries(*view.plot()), static_cast<int>(2 + articleCards().size()));
    window.machineCompare()->view()->articlesCheck()->setChecked(false);
    EXPECT_EQ(view.comparison()->labels.size(), 2U);

    // The document owns the cards: a saved session keeps them, and opening it brings them back.
    const QString saved = dir.filePath(QStringLiteral("session.json"));
    ASSERT_TRUE(window.fileMenu()->saveSession(saved));
    MainWindow reopened;
    const Status loaded = reopened.fileMenu()->loadSession(saved);
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_EQ(reopened.store()->machineCards().size(), 2U);
    EXPECT_EQ(reopened.store()->machineCards()[1].card->label, "lab-b");
    ASSERT_NE(reopened.machineCompare()->view()->comparison(), nullptr);
    EXPECT_EQ(reopened.machineCompare()->view()->comparison()->rows.size(), 5U);
}

TEST(CompareMachines, DoubledFutexFiguresMatterAndNoOtherRowDoes)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString a = writeCard(dir, "card", "6.1.0", 1);
    const QString doubled = writeCard(dir, "card-futex-doubled", "6.1.0", 2);
    MainWindow window;
    ASSERT_TRUE(window.machineCompare()->openCards({ a, doubled }));
    const MachineCompareView& view = *window.machineCompare()->view();
    int matters = 0;
    for (const auto& [bench, verdict] : verdictsOf(view)) {
        if (bench.startsWith(QStringLiteral("futex"))) {
            EXPECT_EQ(verdict, QStringLiteral("matters")) << bench.toStdString();
            ++matters;
        } else {
            EXPECT_EQ(verdict, QStringLiteral("the same")) << bench.toStdString();
        }
    }
    EXPECT_EQ(matters, 3);
    EXPECT_EQ(view.causes()->rowCount(), 0) << "the same context: nothing to explain a difference";
}

TEST(CompareMachines, SurveyFiguresAreATabBesideTheVerdictsOneColumnPerMachine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString plain = writeCard(dir, "lab-a", "6.1.0", 1);
    MainWindow window;
    ASSERT_TRUE(window.machineCompare()->openCards({ plain, writeCard(dir, "lab-b", "6.1.0", 1) }));
    const MachineCompareView& view = *window.machineCompare()->view();
    // Cards without figures: the tab is there, disabled, and the verdicts are shown.
    EXPECT_FALSE(view.tables()->isTabEnabled(1));
    EXPECT_EQ(view.tables()->currentWidget(), view.verdicts());

    // One machine measured its knee at 256 KiB, the other found none up to 16 MiB.
    const auto knee = [](std::int64_t last, std::optional<std::int64_t> at) {
        return nlohmann::json { { "working_set",
            { { "points", { { { "ws_bytes", 4096 } }, { { "ws_bytes", last } } } },
                { "knee_bytes", at ? nlohmann::json(*at) : nlohmann::json(nullptr) } } } };
    };
    MainWindow second;
    ASSERT_TRUE(second.machineCompare()->openCards({ writeCard(dir, "knee-a", "6.1.0", 1, knee(262144, 262144)),
        writeCard(dir, "knee-b", "6.1.0", 1, knee(16777216, std::nullopt)) }));
    const MachineCompareView& withFigures = *second.machineCompare()->view();
    ASSERT_TRUE(withFigures.tables()->isTabEnabled(1));
    EXPECT_EQ(withFigures.tables()->tabText(1), QStringLiteral("Survey figures (1)"));
    const QTableWidget& figures = *withFigures.figures();
    ASSERT_EQ(figures.rowCount(), 1);
    ASSERT_EQ(figures.columnCount(), 4); // what, class, then one column per machine
    EXPECT_EQ(figures.horizontalHeaderItem(2)->text(), QStringLiteral("knee-a"));
    EXPECT_EQ(figures.horizontalHeaderItem(3)->text(), QStringLiteral("knee-b"));
    EXPECT_EQ(figures.item(0, 0)->text(), QStringLiteral("working-set knee (futex, one PU)"));
    EXPECT_EQ(figures.item(0, 2)->text(), QStringLiteral("256 KiB"));
    EXPECT_EQ(figures.item(0, 3)->text(), QStringLiteral("none up to 16 MiB"));

    // The working-set points are a curve per machine, with its knee, not bars.
    ASSERT_EQ(withFigures.comparison()->rows.size(), 5U + 6U); // futex and touch at 4 KiB, 256 KiB and 16 MiB
    EXPECT_EQ(withFigures.plot()->rows().size(), 5U);
    ASSERT_TRUE(withFigures.plots()->isTabEnabled(1));
    const MachineWsPlot& ws = *withFigures.wsPlot();
    for (std::size_t m = 0; m < 2; ++m) {
        ASSERT_NE(ws.curve(m), nullptr) << m;
        EXPECT_EQ(ws.curve(m)->data()->size(), 2) << m;
    }
    EXPECT_EQ(ws.curve(0)->data()->at(1)->key, 262144.0);
    EXPECT_EQ(ws.kneeDrawn(0), std::optional<std::uint64_t>(262144));
    EXPECT_EQ(ws.kneeDrawn(1), std::nullopt);
    // Cards without working-set points leave that tab disabled.
    EXPECT_FALSE(view.plots()->isTabEnabled(1));
}

TEST(CompareMachines, ItsPlotsTakeTheDarkPalette)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    MainWindow window;
    const nlohmann::json ws { { "working_set",
        { { "points", { { { "ws_bytes", 4096 } }, { { "ws_bytes", 65536 } } } }, { "knee_bytes", nullptr } } } };
    ASSERT_TRUE(window.machineCompare()->openCards(
        { writeCard(dir, "lab-a", "6.1.0", 1, ws), writeCard(dir, "lab-b", "6.1.0", 1, ws) }));
    const MachineCompareView& view = *window.machineCompare()->view();
    ASSERT_TRUE(view.plots()->isTabEnabled(1));
    window.look()->setDarkPalette(true);
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    const QColor text = QApplication::palette().color(QPalette::Text);
    EXPECT_EQ(view.plot()->plot()->xAxis->tickLabelColor(), text) << "the bars restyled";
    view.plots()->setCurrentWidget(view.wsPlot()); // a hidden tab takes the palette once shown
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    EXPECT_EQ(view.wsPlot()->plot()->xAxis->tickLabelColor(), text) << "the working-set curves restyled";
    window.look()->setDarkPalette(false);
}

TEST(CompareMachines, ACardThatIsNoResultsFileIsRefusedAndNoneJoins)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString good = writeCard(dir, "lab-a", "6.1.0", 1);
    const QString bad = dir.filePath(QStringLiteral("notes.json"));
    QFile file(bad);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(R"({"hello": "world"})");
    file.close();
    MainWindow window;
    const Status opened = window.machineCompare()->openCards({ good, bad });
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().message.find("not a ctxscope results file or machine card"), std::string::npos)
        << opened.error().message;
    EXPECT_TRUE(window.store()->machineCards().empty());
}

TEST(CompareMachines, TheSurveyActionsCardJoinsTheDocument)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    MainWindow window;
    window.setTopology(*live);
    MachineCompare& machines = *window.machineCompare();
    machines.setSurveyBudget(2); // the shortest useful: a few runs, the rest skipped with the reason
    QAction* action = machines.surveyAction();
    ASSERT_NE(action, nullptr);
    EXPECT_EQ(action->text(), QStringLiteral("Survey this machine"));
    QSignalSpy finished(window.runs(), &RunBroker::runFinished);
    action->trigger();
    ASSERT_TRUE(finished.wait(120'000));
    ASSERT_EQ(finished.at(0).at(1).value<RunOutcome>(), RunOutcome::Succeeded)
        << finished.at(0).at(2).toString().toStdString();
    ASSERT_EQ(window.store()->machineCards().size(), 1U);
    const MachineCardEntry& entry = window.store()->machineCards().front();
    EXPECT_EQ(entry.card->kind, "survey");
    EXPECT_TRUE(entry.card->hasContext);
    EXPECT_EQ(entry.card->context.hostName, readSysInfo().hostName);
    ASSERT_FALSE(entry.card->results.empty());
    EXPECT_EQ(entry.json.at("survey").at("budget_seconds"), 2);
    EXPECT_EQ(entry.json.at("benchmarks").size(), entry.card->results.size());
    // It is in Compare machines, beside the articles' figures.
    MachineCompareView& view = *machines.view();
    EXPECT_TRUE(machines.window()->isVisible());
    view.articlesCheck()->setChecked(true);
    ASSERT_NE(view.comparison(), nullptr);
    EXPECT_EQ(view.comparison()->labels.front(), entry.card->label);
    // And the session keeps it.
    const Session session = window.fileMenu()->session();
    ASSERT_EQ(session.machineCards.size(), 1U);
    EXPECT_EQ(session.machineCards.front().json, entry.json);
}
