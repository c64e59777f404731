// SPDX-License-Identifier: MIT
#pragma once

#include "loadedfile.h"
#include "sessionfile.h"

#include "ctxscope/topology.h"

#include <QObject>
#include <QString>

#include <optional>

class QMainWindow;
class QMenu;

namespace ctxscope::gui {

class FileOpener;
class PlotsView;
class WorkerClient;
class SessionStore;
class SessionViews;

// The File menu's documents: results (open, save as JSON or CSV), the whole session (open,
// save), files of other machines to compare with, and the plot on show as a picture. Files
// are parsed off the GUI thread by the FileOpener; what they hold joins the session store.
class FileMenu : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        const std::optional<Topology>* topology; // the window's, as it changes
        SessionStore* store;
        SessionViews* views;
        PlotsView* plots;
        const WorkerClient* controller; // its context block describes this machine
    };
    explicit FileMenu(const Parts& parts);

    void createActions(QMenu* file);
    // Opens files from the menus and the command line off the GUI thread, with progress and Cancel.
    FileOpener* opener() const { return m_opener; }

    // Results as a Google-Benchmark-shaped JSON file (with samples) or CSV, by the suffix.
    Status saveResults(const QString& path) const;
    // The plot on show, as PNG, SVG or PDF by the suffix.
    Status exportPlot(const QString& path) const;
    // The traced run the Timeline shows: its events in Perfetto's JSON format (.json), or the
    // whole recording its worker wrote (.dat: trace-cmd report, KernelShark).
    Status exportTrace(const QString& path) const;
    // The whole session: runs, sweeps, matrices, compared files, the topology XML and the
    // system info, as one JSON file.
    Session session() const;
    Status saveSession(const QString& path) const;
    // Before quitting: when runs or lessons measured here are not saved, asks Save, Discard or
    // Cancel (Save asks where); false: do not quit.
    bool confirmQuit();

    // Read on the calling thread (tests and scripts); the menus use the opener.
    Status openResults(const QString& path);
    Status loadSession(const QString& path);
    Status compareWith(const QString& path);
    // What opening a file does once it is parsed (on any thread): results, a sweep, a matrix
    // or a whole session join the views.
    Status showDocument(OpenedDocument document);
    Status showCompared(const LoadedFile& file, const QString& path);
    // Runs read from `origin` join the session as rows and curves (a session's, one by one).
    void addResultRows(std::vector<RunResult> results, const QString& origin,
        std::vector<std::shared_ptr<const PreparedTrace>> traces = {});

signals:
    // A session measured elsewhere carries its topology: the window shows it (behind the banner).
    void topologyRead(const ctxscope::Topology& topology);

private:
    Status showSession(Session session, const QString& name);

    Parts m_parts;
    FileOpener* m_opener = nullptr;
};

} // namespace ctxscope::gui
