// SPDX-License-Identifier: MIT
#pragma once

#include "loadedfile.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <vector>

class QProgressDialog;

namespace ctxscope::gui {

class DocumentReader;
class MainWindow;

// Opening files from the File menu: each is parsed on a DocumentReader's thread behind a
// progress dialog with Cancel, one after the other; what was read joins the window on the
// GUI thread. Cancel drops the file being read and those queued: the session stays as it was.
class FileOpener : public QObject {
    Q_OBJECT
public:
    explicit FileOpener(MainWindow& window);

    // Queues the files; each is opened as `kind`.
    void open(const QStringList& paths, DocumentKind kind);
    void cancel();
    bool isBusy() const;

signals:
    // One per file: opened, or not with the sentence why (empty when cancelled).
    void finished(bool opened, const QString& message);

private:
    void next();
    void available(std::shared_ptr<OpenedDocument> document, DocumentKind kind);
    void done(bool opened, const QString& message);
    void addNextRun(); // a session's runs join one per turn of the event loop

    MainWindow& m_window;
    DocumentReader* m_reader = nullptr;
    QPointer<QProgressDialog> m_progress;
    QStringList m_queue;
    DocumentKind m_kind = DocumentKind::Results;
    std::vector<RunResult> m_runs; // of a session being shown, the last first
    QString m_origin; // their file
};

} // namespace ctxscope::gui
