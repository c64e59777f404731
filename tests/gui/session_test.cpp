// SPDX-License-Identifier: MIT
// A whole session saved as one file and loaded back; malformed files refused by name;
// every view exported as PNG, PDF and SVG, results as JSON and CSV, all read back.
#include "filemenu.h"
#include "heatmapplot.h"
#include "ladderplot.h"
#include "mainwindow.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "sessionstore.h"
#include "testresults.h"
#include "testtopologies.h"
#include "viewsfixtures.h"
#include "workingsetplot.h"

#include "ctxscope/results_file.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSvgRenderer>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;
using ctxscope::testing::resultsFixture;

namespace {

// A window on a synthetic machine holding a run, a sweep, a matrix and a compared file.
void fill(MainWindow& window)
{
    window.setTopology(ctxscope::testing::synthetic("pack:1 l3:1 core:2 pu:1"));
    window.store()->addRun({ 1, ctxscope::testing::futexResult({ 0, 0 }), Qt::blue });
    for (const char* name : { "sweep-futex.json", "matrix-futex.json" }) {
        const Status s = window.fileMenu()->openResults(resultsFixture(name));
        ASSERT_TRUE(s.ok()) << s.error().message;
    }
    const Status s = window.fileMenu()->compareWith(resultsFixture("other-machine.json"));
    ASSERT_TRUE(s.ok()) << s.error().message;
}

void writeFile(const QString& path, const std::string& text)
{
    QFile out(path);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(text.data(), static_cast<qint64>(text.size()));
}

} // namespace

TEST(Session, ASavedSessionLoadsBackEqual)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("session.json"));
    MainWindow first;
    fill(first);
    const Status saved = first.fileMenu()->saveSession(path);
    ASSERT_TRUE(saved.ok()) << saved.error().message;

    MainWindow second;
    second.setTopology(ctxscope::testing::synthetic("pack:4 core:4 pu:2"));
    const Status loaded = second.fileMenu()->openResults(path); // File → Open recognises a session too
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(sessionToJson(second.fileMenu()->session()), sessionToJson(first.fileMenu()->session()));
    ASSERT_TRUE(second.topology().has_value());
    EXPECT_NE(second.fileMenu()->session().topologyXml.find("pack:1 l3:1 core:2 pu:1"), std::string::npos);
    EXPECT_EQ(second.topology()->pus().size(), 2U);
    // The views show the loaded data, not just the model.
    EXPECT_EQ(second.resultsModel()->rowCount(), first.resultsModel()->rowCount());
    EXPECT_EQ(second.plots()->workingSetPlot()->sweeps().size(), 1U);
    EXPECT_EQ(second.plots()->heatmapPlot()->grid().size(), first.plots()->heatmapPlot()->grid().size());
    EXPECT_EQ(second.plots()->ladderPlot()->barLabels(), first.plots()->ladderPlot()->barLabels());
    EXPECT_EQ(second.fileMenu()->session().compared.size(), 1U);
}

TEST(Session, ASessionMeasuredElsewhereKeepsItsRunsAsThatMachinesWhenAnotherIsShown)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("colleague.json"));
    MainWindow first;
    fill(first);
    first.store()->setLocalWorkerContext({ { "host_name", "colleague" } });
    ASSERT_TRUE(first.fileMenu()->saveSession(path).ok());
    const std::size_t theirs = first.store()->runs().size();

    MainWindow second;
    second.setTopology(ctxscope::testing::synthetic("pack:4 core:4 pu:2"));
    second.store()->setLocalWorkerContext({ { "host_name", "laptop" } });
    const Status loaded = second.fileMenu()->loadSession(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    ASSERT_EQ(second.topology()->pus().size(), 2U); // the session's machine is shown
    EXPECT_EQ(second.fileMenu()->session().context["host_name"], "colleague");
    EXPECT_EQ(second.windowTitle(), QStringLiteral("ctxscope — the session's machine (colleague)"));
    bool banner = false;
    for (const QLabel* label : second.findChildren<QLabel*>())
        banner = banner || label->text().startsWith(QStringLiteral("Showing the machine colleague.json was saved on."));
    EXPECT_TRUE(banner);

    // Another machine shown (as Show this machine or a server would): the session's runs stay
    // the colleague's, in the table and in what is saved, beside a run measured now.
    second.setTopology(ctxscope::testing::synthetic("pack:2 core:2 pu:1"));
    ASSERT_EQ(second.resultsModel()->rowCount(), static_cast<int>(theirs));
    EXPECT_FALSE(second.windowTitle().contains(QStringLiteral("colleague")));
    EXPECT_EQ(second.resultsModel()->data(second.resultsModel()->index(0, ResultsModel::Machine)).toString(),
        QStringLiteral("colleague"));
    EXPECT_TRUE(second.store()->machineKeys().contains(QStringLiteral("colleague")));
    const auto* switcher = second.findChild<QComboBox*>(QStringLiteral("machineSwitcher"));
    ASSERT_NE(switcher, nullptr);
    EXPECT_GE(switcher->findData(QStringLiteral("colleague")), 0);
    // A numbered one is no name ssh takes: its rows name it, the switcher does not offer it.
    second.store()->setMachineContext(QStringLiteral("colleague (2)"), { { "host_name", "colleague" } });
    EXPECT_EQ(switcher->findData(QStringLiteral("colleague (2)")), -1);
    EXPECT_GE(switcher->findData(QStringLiteral("colleague")), 0);
    second.store()->addRun({ 99, ctxscope::testing::futexResult({ 1, 1 }), Qt::red });
    EXPECT_TRUE(second.store()->runsSpanMachines());
    const Session saved = second.fileMenu()->session();
    EXPECT_EQ(saved.context["host_name"], "laptop");
    EXPECT_NE(saved.topologyXml.find("pack:2 core:2 pu:1"), std::string::npos);
    ASSERT_EQ(saved.runs.size(), 1U);
    ASSERT_EQ(saved.machines.size(), 1U);
    EXPECT_EQ(saved.machines[0].name, "colleague");
    EXPECT_EQ(saved.machines[0].context["host_name"], "colleague");
    EXPECT_NE(saved.machines[0].topologyXml.find("pack:1 l3:1 core:2 pu:1"), std::string::npos);
    EXPECT_EQ(saved.machines[0].runs.size(), theirs);
}

TEST(Session, MalformedFilesAreRefusedWithAMessageNamingTheProblem)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    MainWindow window;
    fill(window);
    nlohmann::json good = sessionToJson(window.fileMenu()->session());
    const auto refused = [&](nlohmann::json doc, const std::string& expected) {
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        writeFile(path, doc.dump());
        const Status s = window.fileMenu()->loadSession(path);
        ASSERT_FALSE(s.ok()) << expected;
        EXPECT_NE(s.error().message.find(expected), std::string::npos) << s.error().message;
    };
    nlohmann::json doc = good;
    doc.erase("benchmarks");
    refused(doc, "missing field 'benchmarks'");
    doc = good;
    doc["ctxscope_session"] = 9;
    refused(doc, "session format version 9");
    doc = good;
    doc["benchmarks"][0]["stats"]["p50"] = "fast";
    refused(doc, "stats.p50");
    doc = good;
    doc["matrices"][0]["matrix"]["cells"][0]["relation"] = "next-door";
    refused(doc, "unknown relation class 'next-door'");
    doc = good;
    doc["sweeps"][0]["benchmarks"][0]["round_trip_quartiles"] = { 1, 2 };
    refused(doc, "round_trip_quartiles");
    doc = good;
    doc["topology_xml"] = "<topology>";
    refused(doc, "topology_xml");
    const QString truncated = dir.filePath(QStringLiteral("cut.json"));
    writeFile(truncated, good.dump().substr(0, 200));
    const Status cut = window.fileMenu()->openResults(truncated);
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().message.find("not valid JSON"), std::string::npos) << cut.error().message;
    // A directory or a device is not read (a FIFO or /dev/zero would be read for ever).
    for (const QString& notAFile : { dir.path(), QStringLiteral("/dev/zero") }) {
        const Status s = window.fileMenu()->loadSession(notAFile);
        ASSERT_FALSE(s.ok()) << notAFile.toStdString();
        EXPECT_NE(s.error().message.find("not a regular file"), std::string::npos) << s.error().message;
    }
    // Cut short or a bracket bomb: refused before a document is built (10 MB of '[' would
    // become gigabytes of nested arrays), as a session and as a results file.
    const QString bomb = dir.filePath(QStringLiteral("bomb.json"));
    writeFile(bomb, R"({"ctxscope_session": 1, "benchmarks": )" + std::string(10'000'000, '['));
    for (const bool asSession : { true, false }) {
        const Status s = asSession ? window.fileMenu()->loadSession(bomb) : window.fileMenu()->openResults(bomb);
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.error().message.find("without the closing '}'"), std::string::npos) << s.error().message;
    }
    writeFile(bomb, "{\"benchmarks\": " + std::string(10'000'000, '[') + std::string(10'000'000, ']') + "}");
    for (const bool asSession : { true, false }) {
        const Status s = asSession ? window.fileMenu()->loadSession(bomb) : window.fileMenu()->openResults(bomb);
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.error().message.find("nested deeper than 64 levels"), std::string::npos) << s.error().message;
    }
    // A refused file leaves the session as it was.
    EXPECT_EQ(sessionToJson(window.fileMenu()->session()), good);
    // Result files from the CLI are checked the same way.
    nlohmann::json matrix = nlohmann::json::parse(sessionToJson(window.fileMenu()->session())["matrices"][0].dump());
    matrix["context"] = good["context"];
    matrix["matrix"].erase("pus");
    const QString badMatrix = dir.filePath(QStringLiteral("matrix.json"));
    writeFile(badMatrix, matrix.dump());
    const Status m = window.fileMenu()->openResults(badMatrix);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().message.find("matrix.json: missing field 'matrix.pus'"), std::string::npos)
        << m.error().message;
}

TEST(Session, EveryViewExportsAsPngPdfAndSvgAndResultsAsJsonAndCsv)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    MainWindow window;
    window.resize(1280, 800);
    fill(window);
    window.show();
    for (const QString& view : PlotsView::viewNames()) {
        ASSERT_TRUE(window.plots()->showView(view));
        const QString png = dir.filePath(view + QStringLiteral(".png"));
        const QString pdf = dir.filePath(view + QStringLiteral(".pdf"));
        const QString svg = dir.filePath(view + QStringLiteral(".svg"));
        for (const QString& path : { png, pdf, svg }) {
            const Status s = window.fileMenu()->exportPlot(path);
            ASSERT_TRUE(s.ok()) << path.toStdString() << ": " << s.error().message;
        }
        const QImage image(png);
        EXPECT_FALSE(image.isNull()) << view.toStdString();
        EXPECT_EQ(image.width(), 2 * window.plots()->currentPlot()->width()) << "twice the pixels";
        QFile pdfFile(pdf);
        ASSERT_TRUE(pdfFile.open(QIODevice::ReadOnly));
        EXPECT_TRUE(pdfFile.read(5) == "%PDF-") << view.toStdString();
        EXPECT_TRUE(QSvgRenderer(svg).isValid()) << view.toStdString();
    }
    const QString json = dir.filePath(QStringLiteral("runs.json"));
    const QString csv = dir.filePath(QStringLiteral("runs.csv"));
    ASSERT_TRUE(window.fileMenu()->saveResults(json).ok());
    ASSERT_TRUE(window.fileMenu()->saveResults(csv).ok());
    auto back = readResultsFile(json.toStdString());
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->results.size(), static_cast<std::size_t>(window.resultsModel()->rowCount()));
    for (std::size_t i = 0; i < back->results.size(); ++i)
        EXPECT_EQ(
            resultToJson(back->results[i], true), resultToJson(*window.resultsModel()->results()[i].result, true));
    QFile csvFile(csv);
    ASSERT_TRUE(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
    int rows = 0;
    bool header = false;
    while (!csvFile.atEnd()) {
        const QByteArray line = csvFile.readLine().trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        if (!header) {
            header = true;
            EXPECT_TRUE(line.startsWith("name,")) << line.toStdString();
            continue;
        }
        ++rows;
    }
    EXPECT_EQ(rows, window.resultsModel()->rowCount());
}

TEST(Session, ASessionWithOnlyASweepAndNoRunsLoadsBack)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("sweep-only.json"));
    MainWindow first;
    first.setTopology(ctxscope::testing::synthetic("pack:1 l3:1 core:2 pu:1"));
    ASSERT_TRUE(first.fileMenu()->openResults(resultsFixture("sweep-futex.json")).ok());
    ASSERT_EQ(first.resultsModel()->rowCount(), 0);
    ASSERT_TRUE(first.fileMenu()->saveSession(path).ok());
    MainWindow second;
    const Status loaded = second.fileMenu()->loadSession(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(sessionToJson(second.fileMenu()->session()), sessionToJson(first.fileMenu()->session()));
    EXPECT_EQ(second.plots()->workingSetPlot()->sweeps().size(), 1U);
}
