// SPDX-License-Identifier: MIT
// MainWindow: the whole session as one JSON file, and comparing with other machines' files.
#include "mainwindow.h"

#include "plotsview.h"
#include "resultsmodel.h"
#include "workingsetplot.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>

#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QStatusBar>
#include <string>

namespace ctxscope::gui {

Session MainWindow::session() const
{
    Session s;
    if (!m_loadedTopologyXml.empty())
        s.topologyXml = m_loadedTopologyXml;
    else if (m_topology)
        if (auto xml = m_topology->exportXml(false))
            s.topologyXml = *xml;
    const nlohmann::json& worker = m_controller->workerContext();
    s.context = worker.is_object() ? worker : m_loadedContext.is_object() ? m_loadedContext : nlohmann::json::object();
    if (s.context.contains("ctxscope") && s.context["ctxscope"].is_object()
        && s.context["ctxscope"].contains("sysinfo"))
        s.sysinfo = s.context["ctxscope"]["sysinfo"];
    for (const ResultRow& row : m_results->results())
        s.runs.push_back(*row.result);
    s.sweeps = m_plots->workingSetPlot()->sweeps();
    s.matrices = m_matrices;
    s.compared = m_compared;
    s.comparedContexts = m_comparedContexts;
    return s;
}

Status MainWindow::saveSession(const QString& path) const
{
    const std::string text = sessionToJson(session()).dump(1) + '\n';
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit())
        return makeError("could not write " + path.toStdString() + ": " + file.errorString().toStdString());
    return {};
}

Status MainWindow::loadSession(const QString& path)
{
    // Not a FIFO or a device (read for ever), nor more than a session of 2^20 samples per run
    // for hundreds of runs could hold.
    constexpr qint64 kMaxSessionBytes = qint64 { 1 } << 30;
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        return makeError(path.toStdString() + ": not a regular file");
    if (info.size() > kMaxSessionBytes)
        return makeError(path.toStdString() + ": " + std::to_string(info.size() >> 20)
            + " MiB is larger than a session file can be (1024 MiB)");
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly))
        return makeError(path.toStdString() + ": " + in.errorString().toStdString());
    auto loaded = sessionFromJson(in.readAll().toStdString());
    if (!loaded)
        return makeError(QFileInfo(path).fileName().toStdString() + ": " + loaded.error().message);
    Session& s = *loaded;
    // This machine stays live when the session was measured on it (same topology); any other
    // topology is shown from the file's XML, behind the banner.
    const bool same = m_topology && m_topology->isThisSystem() && m_topology->exportXml(false).ok()
        && *m_topology->exportXml(false) == s.topologyXml;
    if (!same && !s.topologyXml.empty()) {
        auto topology = Topology::loadXmlBuffer(s.topologyXml);
        if (!topology)
            return makeError(QFileInfo(path).fileName().toStdString() + ": topology_xml: " + topology.error().message);
        setTopology(*topology);
        m_loadedTopologyXml = s.topologyXml;
    }
    clearResults();
    m_compared = std::move(s.compared);
    m_comparedContexts = std::move(s.comparedContexts);
    m_loadedContext = std::move(s.context);
    addResultRows(std::move(s.runs), QFileInfo(path).fileName());
    for (auto& sweep : s.sweeps)
        m_plots->workingSetPlot()->addSweep(std::move(sweep));
    for (auto& m : s.matrices)
        addMatrix(std::move(m.matrix), m.origin);
    refreshRunViews();
    return {};
}

void MainWindow::createSessionActions(QMenu* file)
{
    file->addSeparator();
    QAction* compare = file->addAction(tr("&Compare with results..."), this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Compare with results from other machines"),
            QString(), tr("ctxscope results (*.json);;All files (*)"));
        for (const QString& path : paths)
            if (const Status s = compareWith(path); !s)
                QMessageBox::warning(this, tr("Compare"), QString::fromStdString(s.error().message));
    });
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open s&ession..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open session"), QString(), tr("ctxscope session (*.json);;All files (*)"));
        if (!path.isEmpty())
            if (const Status s = loadSession(path); !s)
                QMessageBox::warning(this, tr("Open session"), QString::fromStdString(s.error().message));
    });
    QAction* save = file->addAction(tr("Save sessio&n..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save session"), QStringLiteral("ctxscope-session.json"), tr("ctxscope session (*.json)"));
        if (path.isEmpty())
            return;
        if (const Status s = saveSession(path); !s)
            QMessageBox::warning(this, tr("Save session"), QString::fromStdString(s.error().message));
        else
            statusBar()->showMessage(tr("Saved the session to %1").arg(path), 10000);
    });
    save->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
}

} // namespace ctxscope::gui
