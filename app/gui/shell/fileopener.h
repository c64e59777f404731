// SPDX-License-Identifier: MIT
#pragma once

#include "loadedfile.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <utility>
#include <vector>

class QProgressDialog;
class QWidget;

namespace ctxscope::gui {

class DocumentReader;
class FileMenu;

// Opening files from the File menu and the command line: each is parsed on a
// DocumentReader's thread behind a progress dialog (the bytes of the file read and parsed,
// then the runs added) with Cancel, one after the other; what was read joins the session on
// the GUI thread. Cancel drops the file being read and those queued: the session stays as it
// was. It answers while the file is read, parsed and built; once a session starts replacing
// the one shown (its runs join one per turn, a second or so for 200 MB) it is hidden.
class FileOpener : public QObject {
    Q_OBJECT
public:
    FileOpener(FileMenu& menu, QWidget& dialogParent);

    // Queues the files, after any already queued; each is opened as `kind`.
    void open(const QStringList& paths, DocumentKind kind);
    void cancel();
    bool isBusy() const;
    // Whether a file that did not open is shown in a message box (the menus), or only
    // reported through finished() (the command line prints it).
    void setReportErrors(bool report) { m_reportErrors = report; }
    bool reportsErrors() const { return m_reportErrors; }

signals:
    // One per file: opened, or not with the sentence why (empty when cancelled).
    void finished(bool opened, const QString& message, ctxscope::gui::DocumentKind kind);
    // The queue is empty and nothing is being read or added.
    void idle();

private:
    void next();
    void available(std::shared_ptr<OpenedDocument> document, DocumentKind kind);
    void done(bool opened, const QString& message);
    void addNextRun(); // a session's runs join one per turn of the event loop
    void showProgress();

    FileMenu& m_fileMenu;
    QWidget& m_dialogParent;
    DocumentReader* m_reader = nullptr;
    QPointer<QProgressDialog> m_progress;
    QTimer m_poll; // the reader's progress, read 10 times a second
    std::vector<std::pair<QString, DocumentKind>> m_queue;
    DocumentKind m_kind = DocumentKind::Results;
    QString m_name; // of the file being read
    std::vector<RunResult> m_runs; // of a session being shown, the last first
    std::vector<std::shared_ptr<const PreparedTrace>> m_traces; // theirs, in the same order
    std::size_t m_runsTotal = 0;
    QString m_origin; // their file
    bool m_reportErrors = true;
};

} // namespace ctxscope::gui
