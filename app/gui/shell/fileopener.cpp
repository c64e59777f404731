// SPDX-License-Identifier: MIT
#include "fileopener.h"

#include "documentreader.h"
#include "mainwindow.h"

#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>

namespace ctxscope::gui {

FileOpener::FileOpener(MainWindow& window)
    : QObject(&window)
    , m_window(window)
    , m_reader(new DocumentReader(this))
{
    connect(m_reader, &DocumentReader::documentAvailable, this, &FileOpener::available);
    connect(m_reader, &DocumentReader::documentFailed, this, [this](const QString& message) { done(false, message); });
    connect(m_reader, &DocumentReader::cancelled, this, [this] {
        m_queue.clear();
        m_window.statusBar()->showMessage(tr("Opening cancelled: the session is as it was."), 10000);
        done(false, QString());
    });
}

bool FileOpener::isBusy() const { return m_reader->isBusy() || !m_queue.isEmpty() || !m_runs.empty(); }

void FileOpener::open(const QStringList& paths, DocumentKind kind)
{
    if (isBusy())
        return;
    m_queue = paths;
    m_kind = kind;
    next();
}

void FileOpener::cancel() { m_reader->cancel(); }

void FileOpener::next()
{
    if (m_queue.isEmpty())
        return;
    const QString path = m_queue.takeFirst();
    m_reader->read(path, m_kind);
    // A busy bar: the parse cannot say how far it is, but the window stays live and Cancel works.
    if (!m_progress) {
        m_progress = new QProgressDialog(&m_window);
        m_progress->setWindowTitle(tr("Opening"));
        m_progress->setWindowModality(Qt::WindowModal); // the window draws on, but takes no new work
        m_progress->setRange(0, 0);
        m_progress->setMinimumDuration(400); // a small file opens without a flash of the dialog
        m_progress->setAutoReset(false);
        m_progress->setAutoClose(false);
        connect(m_progress, &QProgressDialog::canceled, this, &FileOpener::cancel);
    }
    m_progress->setLabelText(tr("Reading %1 (%2 MB)…")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(static_cast<double>(QFileInfo(path).size()) / 1e6, 0, 'f', 0));
    m_progress->setValue(0);
}

void FileOpener::available(std::shared_ptr<OpenedDocument> document, DocumentKind kind)
{
    if (document->session) {
        // Drawing a run's samples takes milliseconds each: one run per turn keeps the window live.
        m_runs = std::move(document->session->runs);
        std::reverse(m_runs.begin(), m_runs.end());
        document->session->runs.clear();
        m_origin = document->file.name;
        if (const Status shown = m_window.showDocument(std::move(*document)); !shown) {
            m_runs.clear();
            done(false, QString::fromStdString(shown.error().message));
            return;
        }
        addNextRun();
        return;
    }
    const Status shown = kind == DocumentKind::Compared ? m_window.showCompared(document->file, document->path)
                                                        : m_window.showDocument(std::move(*document));
    done(shown.ok(), shown ? QString() : QString::fromStdString(shown.error().message));
}

void FileOpener::addNextRun()
{
    if (m_runs.empty()) {
        done(true, QString());
        return;
    }
    std::vector<RunResult> one;
    one.push_back(std::move(m_runs.back()));
    m_runs.pop_back();
    m_window.addResultRows(std::move(one), m_origin);
    QTimer::singleShot(0, this, &FileOpener::addNextRun);
}

void FileOpener::done(bool opened, const QString& message)
{
    if (!message.isEmpty())
        QMessageBox::warning(&m_window,
            m_kind == DocumentKind::Session        ? tr("Open session")
                : m_kind == DocumentKind::Compared ? tr("Compare")
                                                   : tr("Open results"),
            message);
    if (m_queue.isEmpty() && m_progress) {
        m_progress->reset(); // stops its timer to show itself
        m_progress->hide();
    }
    emit finished(opened, message);
    next();
}

} // namespace ctxscope::gui
