// SPDX-License-Identifier: MIT
#pragma once

#include "loadedfile.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>

namespace ctxscope::gui {

// Reads and parses one file at a time on a worker thread (QtConcurrent), so that opening a
// 1 GiB session leaves the window drawing and Cancel answering. The outcome arrives on the
// thread that owns the reader; a cancelled read reports nothing but cancelled().
class DocumentReader : public QObject {
    Q_OBJECT
public:
    explicit DocumentReader(QObject* parent = nullptr);
    ~DocumentReader() override; // cancels a read in progress and waits for its thread

    // False while another file is being read.
    bool read(const QString& path, DocumentKind kind);
    void cancel();
    bool isBusy() const { return m_watcher.isRunning(); }
    // How far the read in progress (or the last one) has got; safe to read at any time.
    const ReadProgress& progress() const { return *m_progress; }

signals:
    void documentAvailable(std::shared_ptr<ctxscope::gui::OpenedDocument> document, ctxscope::gui::DocumentKind kind);
    void documentFailed(const QString& message);
    void cancelled();

private:
    void finished();

    using Outcome = std::shared_ptr<Expected<OpenedDocument>>;
    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<CancelFlag> m_cancel;
    std::shared_ptr<ReadProgress> m_progress = std::make_shared<ReadProgress>();
    DocumentKind m_kind = DocumentKind::Results;
};

} // namespace ctxscope::gui
