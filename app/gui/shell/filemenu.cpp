// SPDX-License-Identifier: MIT
#include "filemenu.h"

#include "fileopener.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runlabel.h"
#include "sessionstore.h"
#include "sessionviews.h"
#include "timelineexport.h"
#include "timelinepage.h"
#include "timelineview.h"
#include "workerclient.h"

#include "ctxscope/csv.h"
#include "ctxscope/results_file.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QStatusBar>
#include <QSvgGenerator>

namespace ctxscope::gui {

namespace {
Status writeText(const QString& path, const std::string& text)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit())
        return makeError("could not write " + path.toStdString() + ": " + file.errorString().toStdString());
    return {};
}
} // namespace

FileMenu::FileMenu(const Parts& parts)
    : QObject(parts.window)
    , m_parts(parts)
    , m_opener(new FileOpener(*this, *parts.window))
{
    // The menus say why a file did not open; the command line prints it (main.cpp).
    connect(m_opener, &FileOpener::finished, this, [this](bool, const QString& message, DocumentKind kind) {
        if (message.isEmpty() || !m_opener->reportsErrors())
            return;
        QMessageBox::warning(m_parts.window,
            kind == DocumentKind::Session        ? tr("Open session")
                : kind == DocumentKind::Compared ? tr("Compare")
                                                 : tr("Open results"),
            message);
    });
}

Status FileMenu::saveResults(const QString& path) const
{
    // A results file describes one machine (its context block): the one runs go to now.
    const MachineLink& link = m_parts.controller->link();
    const QString shown = link.isRemote() ? link.destination : QString();
    std::vector<RunResult> results;
    for (const ResultRow& row : m_parts.store->runs())
        if (row.machine == shown)
            results.push_back(*row.result);
    if (results.empty())
        return makeError(m_parts.store->runs().empty() ? std::string("there are no results to save yet")
                                                       : "there are no results of " + link.displayName().toStdString()
                    + " to save yet (a results file holds one machine's: show another machine, or save a session)");
    // The shown machine's own block (the controller's may still be the server's just left).
    const nlohmann::json& described
        = m_parts.store->contextOf(link.isRemote() ? link.destination : SessionStore::kLocalMachine);
    const nlohmann::json context = described.is_object() ? described : nlohmann::json::object();
    const bool csv = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive);
    return writeText(path, csv ? resultsToCsv(context, results) : makeReport(context, results, true).dump(2) + '\n');
}

Status FileMenu::exportPlot(const QString& path) const
{
    QCustomPlot* plot = m_parts.plots->currentPlot();
    bool ok = false;
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(plot->size());
        svg.setViewBox(QRect(QPoint(0, 0), plot->size()));
        svg.setTitle(QStringLiteral("ctxscope"));
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, plot->width(), plot->height());
            ok = painter.end();
        }
    } else if (path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
        ok = plot->savePdf(path);
    } else {
        ok = plot->savePng(path, 0, 0, 2.0); // twice the pixels: sharp on slides
    }
    return ok ? Status() : Status(makeError("could not write " + path.toStdString()));
}

Status FileMenu::exportTrace(const QString& path) const
{
    const TimelinePage* page = m_parts.plots->timelinePage();
    const ResultRow* row = page->shownRun() ? m_parts.store->run(*page->shownRun()) : nullptr;
    if (!row || !row->traceWindow || !page->timeline()->data())
        return makeError("no run traced from its events is shown on the Timeline: check \"Trace the scheduler\" "
                         "(traced from its events) in the run panel and run futex, pipe, spin-futex, yield or ring");
    if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) {
        std::vector<std::string> comments { runLabel(*row->result).toStdString() };
        if (row->traceWindow->recorded > row->traceWindow->events.size())
            comments.push_back("the last " + std::to_string(row->traceWindow->events.size()) + " of its "
                + std::to_string(row->traceWindow->recorded) + " events");
        return writeText(path, perfettoTrace(*page->timeline()->data(), comments).dump() + '\n');
    }
    if (!path.endsWith(QStringLiteral(".dat"), Qt::CaseInsensitive))
        return makeError("export the trace as .json (Perfetto UI) or .dat (trace-cmd, KernelShark), not "
            + QFileInfo(path).fileName().toStdString());
    if (row->traceFile.isEmpty())
        return makeError(row->machine.isEmpty() ? std::string(
                             "this run's trace.dat is not kept (it was read from a file, or its worker could not write "
                             "it): export it as .json, or trace it again")
                                                : "this run was traced on " + row->machine.toStdString()
                    + ": its events are here, not its trace.dat; export it as .json, or run ctxscope-cli run --trace "
                      "--trace-out there");
    QFile::remove(path);
    if (!QFile::copy(row->traceFile, path))
        return makeError("could not write " + path.toStdString());
    return {};
}

Session FileMenu::session() const
{
    // The store's own XML (a loaded session's, as it had it: hwloc's re-export adds lines) wins.
    // A session's own machine is this one: while a server is shown, its XML and context block
    // go with its runs (Session::machines), and this machine's are read here.
    std::string shown;
    const bool server = m_parts.controller->link().isRemote();
    const std::optional<Topology>& topology = *m_parts.topology;
    if (m_parts.store->machine().topologyXml.empty()) {
        if (server) {
            if (auto live = Topology::loadLive())
                if (auto xml = live->exportXml(false))
                    shown = *xml;
        } else if (topology) {
            if (auto xml = topology->exportXml(false))
                shown = *xml;
        }
    }
    return m_parts.store->toSession(nlohmann::json(), shown); // this machine's last hello, else a loaded one
}

Status FileMenu::saveSession(const QString& path) const
{
    Status written = writeText(path, sessionToJson(session()).dump(1) + '\n');
    if (written)
        m_parts.store->markSaved();
    return written;
}

bool FileMenu::confirmQuit()
{
    const SessionStore& store = *m_parts.store;
    const int runs = store.unsavedRuns();
    const int lessons = store.unsavedLessons();
    if (runs == 0 && lessons == 0)
        return true;
    const QString runsText = runs == 1 ? tr("1 run") : tr("%1 runs").arg(runs);
    const QString lessonsText = lessons == 1 ? tr("1 lesson") : tr("%1 lessons").arg(lessons);
    const QString what = lessons == 0 ? runsText : runs == 0 ? lessonsText : tr("%1 and %2").arg(lessonsText, runsText);
    QMessageBox box(QMessageBox::Question, tr("Save the session?"),
        tr("%1 measured since the session was last saved will be lost. Save the session before quitting?").arg(what),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, m_parts.window);
    box.setObjectName(QStringLiteral("quitQuestion"));
    box.setDefaultButton(QMessageBox::Save);
    box.exec();
    const auto answer = box.standardButton(box.clickedButton());
    if (answer == QMessageBox::Discard)
        return true;
    if (answer != QMessageBox::Save)
        return false; // Cancel, Esc: go on
    const QString path = QFileDialog::getSaveFileName(
        m_parts.window, tr("Save session"), QStringLiteral("ctxscope-session.json"), tr("ctxscope session (*.json)"));
    if (path.isEmpty())
        return false;
    if (const Status saved = saveSession(path); !saved) {
        QMessageBox::warning(m_parts.window, tr("Save session"), QString::fromStdString(saved.error().message));
        return false;
    }
    return true;
}

Status FileMenu::openResults(const QString& path)
{
    auto opened = readDocument(path, DocumentKind::Results);
    if (!opened)
        return opened.error();
    return showDocument(std::move(*opened));
}

Status FileMenu::loadSession(const QString& path)
{
    auto opened = readDocument(path, DocumentKind::Session);
    if (!opened)
        return opened.error();
    return showSession(std::move(*opened->session), opened->file.name);
}

Status FileMenu::compareWith(const QString& path)
{
    auto opened = readDocument(path, DocumentKind::Compared);
    if (!opened)
        return opened.error();
    return showCompared(opened->file, path);
}

Status FileMenu::showDocument(OpenedDocument document)
{
    if (document.session)
        return showSession(std::move(*document.session), document.file.name);
    LoadedFile& file = document.file;
    if (file.sweep) {
        m_parts.store->addSweep(file.sweep);
        m_parts.plots->showView(QStringLiteral("working-set"));
        return {};
    }
    if (file.matrix) {
        m_parts.store->addMatrix(file.matrix, file.name);
        m_parts.plots->showView(QStringLiteral("heatmap"));
    }
    m_parts.views->addResultRows(std::move(file.results.results), file.name);
    return {};
}

Status FileMenu::showSession(Session s, const QString& name)
{
    // This machine stays live when the session was measured on it (same topology); any other
    // topology is shown from the file's XML, behind the banner.
    const std::optional<Topology>& shown = *m_parts.topology;
    const bool same
        = shown && shown->isThisSystem() && shown->exportXml(false).ok() && *shown->exportXml(false) == s.topologyXml;
    std::optional<Topology> elsewhere;
    if (!same && !s.topologyXml.empty()) {
        auto topology = Topology::loadXmlBuffer(s.topologyXml, "the machine " + name.toStdString() + " was saved on");
        if (!topology)
            return makeError(name.toStdString() + ": topology_xml: " + topology.error().message);
        elsewhere = std::move(*topology);
    }
    // Cleared first: the runs held now are not kept apart as a machine of the new session.
    m_parts.views->clear();
    if (elsewhere) {
        emit topologyRead(*elsewhere);
        m_parts.store->setMachineTopologyXml(SessionStore::kLocalMachine, s.topologyXml);
    }
    const bool matrices = !s.matrices.empty();
    std::vector<ResultRow> rows = m_parts.views->rowsOf(std::move(s.runs));
    for (SessionMachine& m : s.machines)
        for (ResultRow& row : m_parts.views->rowsOf(std::move(m.runs))) {
            row.machine = QString::fromStdString(m.name);
            rows.push_back(std::move(row));
        }
    for (std::size_t i = 0; i < rows.size() && i < s.traceWindows.size(); ++i) // the same order
        rows[i].traceWindow = std::move(s.traceWindows[i]);
    m_parts.store->load(std::move(s), std::move(rows), name);
    m_parts.views->fitResultColumns();
    if (matrices)
        m_parts.plots->showView(QStringLiteral("heatmap"));
    m_parts.views->refreshRunViews();
    return {};
}

void FileMenu::addResultRows(
    std::vector<RunResult> results, const QString& origin, std::vector<std::shared_ptr<const PreparedTrace>> traces)
{
    m_parts.views->addResultRows(std::move(results), origin, std::move(traces));
}

Status FileMenu::showCompared(const LoadedFile& file, const QString& path)
{
    if (file.session || file.results.results.empty())
        return makeError(path.toStdString() + ": "
            + (file.session ? "a session, not a results file: open it with File → Open session"
                            : "holds no runs to compare"));
    m_parts.store->addCompared(compareSource(file.results, file.name), file.results.context.raw);
    m_parts.plots->showView(QStringLiteral("compare"));
    return {};
}

void FileMenu::createActions(QMenu* file)
{
    QMainWindow* window = m_parts.window;
    // Saving: a sentence in a box when it fails, the path on the status bar when it worked.
    const auto saveWith = [window](const QString& title, const QString& done, Status saved) {
        if (!saved)
            QMessageBox::warning(window, title, QString::fromStdString(saved.error().message));
        else
            window->statusBar()->showMessage(done, 10000);
    };
    QAction* open = file->addAction(tr("&Open results..."), this, [this, window] {
        const QString path = QFileDialog::getOpenFileName(
            window, tr("Open results"), QString(), tr("ctxscope results (*.json);;All files (*)"));
        if (!path.isEmpty())
            m_opener->open({ path }, DocumentKind::Results);
    });
    open->setShortcut(QKeySequence::Open);
    QAction* save = file->addAction(tr("&Save results..."), this, [this, window, saveWith] {
        const QString path = QFileDialog::getSaveFileName(window, tr("Save results"), QStringLiteral("ctxscope.json"),
            tr("JSON, Google Benchmark format (*.json);;CSV (*.csv)"));
        if (!path.isEmpty())
            saveWith(tr("Save results"), tr("Saved %1").arg(path), saveResults(path));
    });
    save->setShortcut(QKeySequence::Save);
    QAction* exportAction = file->addAction(tr("&Export plot..."), this, [this, window, saveWith] {
        const QString path = QFileDialog::getSaveFileName(
            window, tr("Export plot"), QStringLiteral("ctxscope.png"), tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
        if (!path.isEmpty())
            saveWith(tr("Export plot"), tr("Exported %1").arg(path), exportPlot(path));
    });
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addAction(tr("Export &trace..."), this, [this, window, saveWith] {
        const QString path = QFileDialog::getSaveFileName(window, tr("Export the traced run on the Timeline"),
            QStringLiteral("ctxscope-trace.json"),
            tr("Perfetto UI, chrome://tracing (*.json);;trace-cmd report, KernelShark (*.dat)"));
        if (!path.isEmpty())
            saveWith(tr("Export trace"), tr("Exported %1").arg(path), exportTrace(path));
    });

    file->addSeparator();
    QAction* compare = file->addAction(tr("&Compare with results..."), this, [this, window] {
        const QStringList paths = QFileDialog::getOpenFileNames(window, tr("Compare with results from other machines"),
            QString(), tr("ctxscope results (*.json);;All files (*)"));
        m_opener->open(paths, DocumentKind::Compared);
    });
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open s&ession..."), this, [this, window] {
        const QString path = QFileDialog::getOpenFileName(
            window, tr("Open session"), QString(), tr("ctxscope session (*.json);;All files (*)"));
        if (!path.isEmpty())
            m_opener->open({ path }, DocumentKind::Session);
    });
    QAction* saveSessionAction = file->addAction(tr("Save sessio&n..."), this, [this, window, saveWith] {
        const QString path = QFileDialog::getSaveFileName(
            window, tr("Save session"), QStringLiteral("ctxscope-session.json"), tr("ctxscope session (*.json)"));
        if (!path.isEmpty())
            saveWith(tr("Save session"), tr("Saved the session to %1").arg(path), saveSession(path));
    });
    saveSessionAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
}

} // namespace ctxscope::gui
