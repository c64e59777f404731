// SPDX-License-Identifier: MIT
#include "fileopener.h"

#include "documentreader.h"
#include "filemenu.h"

#include <QFileInfo>
#include <QMainWindow>
#include <QProgressDialog>
#include <QStatusBar>

#include <algorithm>

namespace ctxscope::gui {

namespace {
constexpr int kSteps = 1000; // of the progress bar
QString megabytes(qint64 bytes) { return QString::number(static_cast<double>(bytes) / 1e6, 'f', 0); }
} // namespace

FileOpener::FileOpener(FileMenu& menu, QWidget& dialogParent)
    : QObject(&menu)
    , m_fileMenu(menu)
    , m_dialogParent(dialogParent)
    , m_reader(new DocumentReader(this))
{
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, &FileOpener::showProgress);
    connect(m_reader, &DocumentReader::documentAvailable, this, &FileOpener::available);
    connect(m_reader, &DocumentReader::documentFailed, this, [this](const QString& message) { done(false, message); });
    connect(m_reader, &DocumentReader::cancelled, this, [this] {
        m_queue.clear();
        if (auto* window = qobject_cast<QMainWindow*>(&m_dialogParent))
            window->statusBar()->showMessage(tr("Opening cancelled: the session is as it was."), 10000);
        done(false, QString());
    });
}

bool FileOpener::isBusy() const { return m_reader->isBusy() || !m_queue.empty() || !m_runs.empty(); }

void FileOpener::open(const QStringList& paths, DocumentKind kind)
{
    const bool wasBusy = isBusy();
    for (const QString& path : paths)
        m_queue.emplace_back(path, kind);
    if (!wasBusy)
        next();
}

void FileOpener::cancel() { m_reader->cancel(); }

void FileOpener::next()
{
    if (m_queue.empty()) {
        emit idle();
        return;
    }
    const auto [path, kind] = m_queue.front();
    m_queue.erase(m_queue.begin());
    m_kind = kind;
    m_name = QFileInfo(path).fileName();
    m_reader->read(path, kind);
    if (!m_progress) {
        m_progress = new QProgressDialog(&m_dialogParent);
        m_progress->setWindowTitle(tr("Opening"));
        m_progress->setWindowModality(Qt::WindowModal); // the window draws on, but takes no new work
        m_progress->setRange(0, kSteps);
        m_progress->setMinimumDuration(400); // a small file opens without a flash of the dialog
        m_progress->setAutoReset(false);
        m_progress->setAutoClose(false);
        connect(m_progress, &QProgressDialog::canceled, this, &FileOpener::cancel);
    }
    m_progress->setCancelButtonText(tr("Cancel"));
    m_progress->setValue(0);
    showProgress();
    m_poll.start();
}

void FileOpener::showProgress()
{
    if (!m_progress)
        return;
    const ReadProgress& p = m_reader->progress();
    const qint64 total = std::max<qint64>(1, p.total.load());
    const qint64 read = p.read.load();
    const qint64 parsed = p.parsed.load();
    // Reading the file and parsing it count half each: both go through every byte.
    m_progress->setValue(static_cast<int>((read + parsed) * (kSteps / 2) / total));
    m_progress->setLabelText(read < total
            ? tr("Reading %1: %2 of %3 MB…").arg(m_name, megabytes(read), megabytes(total))
            : parsed < total ? tr("Parsing %1: %2 of %3 MB…").arg(m_name, megabytes(parsed), megabytes(total))
                             : tr("Building what %1 holds…").arg(m_name));
}

void FileOpener::available(std::shared_ptr<OpenedDocument> document, DocumentKind kind)
{
    m_poll.stop();
    if (document->session) {
        // Drawing a run's samples takes milliseconds each: one run per turn keeps the window live.
        m_runs = std::move(document->session->runs);
        std::reverse(m_runs.begin(), m_runs.end());
        m_traces = std::move(document->traces);
        m_traces.resize(m_runs.size());
        std::reverse(m_traces.begin(), m_traces.end());
        m_runsTotal = m_runs.size();
        document->session->runs.clear();
        m_origin = document->file.name;
        // From here the session is being replaced: the runs join in a second or so (their
        // curves were prepared on the reader's thread), and a Cancel could only leave half of
        // them, so the button goes until they are in.
        if (m_progress)
            m_progress->setCancelButtonText(QString());
        const Status shown = m_fileMenu.showDocument(std::move(*document));
        if (!shown) {
            m_runs.clear();
            done(false, QString::fromStdString(shown.error().message));
            return;
        }
        addNextRun();
        return;
    }
    const Status shown = kind == DocumentKind::Compared ? m_fileMenu.showCompared(document->file, document->path)
                                                        : m_fileMenu.showDocument(std::move(*document));
    done(shown.ok(), shown ? QString() : QString::fromStdString(shown.error().message));
}

void FileOpener::addNextRun()
{
    if (m_runs.empty()) {
        done(true, QString());
        return;
    }
    if (m_progress) {
        const std::size_t added = m_runsTotal - m_runs.size();
        m_progress->setLabelText(tr("Adding the runs of %1: %2 of %3…").arg(m_origin).arg(added).arg(m_runsTotal));
        m_progress->setValue(static_cast<int>(added * kSteps / m_runsTotal));
    }
    std::vector<RunResult> one;
    one.push_back(std::move(m_runs.back()));
    m_runs.pop_back();
    std::vector<std::shared_ptr<const PreparedTrace>> trace { std::move(m_traces.back()) };
    m_traces.pop_back();
    m_fileMenu.addResultRows(std::move(one), m_origin, std::move(trace));
    QTimer::singleShot(0, this, &FileOpener::addNextRun);
}

void FileOpener::done(bool opened, const QString& message)
{
    m_poll.stop();
    if (m_queue.empty() && m_progress) {
        m_progress->reset(); // stops its timer to show itself
        m_progress->hide();
    }
    emit finished(opened, message, m_kind);
    next();
}

} // namespace ctxscope::gui
