// SPDX-License-Identifier: MIT
// MainWindow: the whole session as one JSON file, and comparing with other machines' files.
#include "mainwindow.h"

#include "fileopener.h"
#include "loadedfile.h"
#include "plotsview.h"
#include "sessionstore.h"

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
    // The store's own XML (a loaded session's, as it had it: hwloc's re-export adds lines) wins.
    std::string shown;
    if (m_topology && m_store->machine().topologyXml.empty())
        if (auto xml = m_topology->exportXml(false))
            shown = *xml;
    return m_store->toSession(m_controller->workerContext(), shown);
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
    auto opened = readDocument(path, DocumentKind::Session);
    if (!opened)
        return opened.error();
    return showSession(std::move(*opened->session), opened->file.name);
}

Status MainWindow::showSession(Session s, const QString& name)
{
    // This machine stays live when the session was measured on it (same topology); any other
    // topology is shown from the file's XML, behind the banner.
    const bool same = m_topology && m_topology->isThisSystem() && m_topology->exportXml(false).ok()
        && *m_topology->exportXml(false) == s.topologyXml;
    if (!same && !s.topologyXml.empty()) {
        auto topology = Topology::loadXmlBuffer(s.topologyXml);
        if (!topology)
            return makeError(name.toStdString() + ": topology_xml: " + topology.error().message);
        setTopology(*topology);
        m_store->setMachineTopologyXml(SessionStore::kLocalMachine, s.topologyXml);
    }
    clearResults();
    const bool matrices = !s.matrices.empty();
    std::vector<ResultRow> rows = rowsOf(std::move(s.runs));
    m_store->load(std::move(s), std::move(rows), name);
    fitResultColumns();
    if (matrices)
        m_plots->showView(QStringLiteral("heatmap"));
    refreshRunViews();
    return {};
}

void MainWindow::createSessionActions(QMenu* file)
{
    file->addSeparator();
    QAction* compare = file->addAction(tr("&Compare with results..."), this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Compare with results from other machines"),
            QString(), tr("ctxscope results (*.json);;All files (*)"));
        m_opener->open(paths, DocumentKind::Compared);
    });
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open s&ession..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open session"), QString(), tr("ctxscope session (*.json);;All files (*)"));
        if (!path.isEmpty())
            m_opener->open({ path }, DocumentKind::Session);
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
