// SPDX-License-Identifier: MIT
#include "documentreader.h"

#include <QtConcurrent/QtConcurrentRun>

namespace ctxscope::gui {

DocumentReader::DocumentReader(QObject* parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &DocumentReader::finished);
}

DocumentReader::~DocumentReader()
{
    cancel();
    m_watcher.waitForFinished();
}

bool DocumentReader::read(const QString& path, DocumentKind kind)
{
    if (isBusy())
        return false;
    m_kind = kind;
    m_cancel = std::make_shared<CancelFlag>(false);
    m_progress = std::make_shared<ReadProgress>(); // the bar starts from nothing
    m_watcher.setFuture(QtConcurrent::run([path, kind, flag = m_cancel, progress = m_progress] {
        auto read = std::make_shared<Expected<OpenedDocument>>(readDocument(path, kind, flag.get(), progress.get()));
        // A session's runs are drawn one per turn of the GUI's event loop: their curves'
        // medians are computed here, so that each turn only copies values.
        if (*read && (*read)->session)
            for (const RunResult& r : (*read)->session->runs) {
                if (flag->load(std::memory_order_relaxed))
                    break;
                (*read)->traces.push_back(std::make_shared<const PreparedTrace>(prepareTrace(r.samples)));
            }
        return read;
    }));
    return true;
}

void DocumentReader::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void DocumentReader::finished()
{
    const bool wasCancelled = m_cancel && m_cancel->load();
    m_cancel.reset();
    const Outcome outcome = m_watcher.result();
    if (wasCancelled)
        emit cancelled(); // even when the parse had ended: the session stays as it was
    else if (!*outcome)
        emit documentFailed(QString::fromStdString(outcome->error().message));
    else
        emit documentAvailable(std::make_shared<OpenedDocument>(std::move(**outcome)), m_kind);
}

} // namespace ctxscope::gui
