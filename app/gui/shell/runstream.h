// SPDX-License-Identifier: MIT
#pragma once

#include "runcontroller.h"

#include "ctxscope/topology.h"

#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ctxscope::gui {

class PlotsView;
class RunLauncher;
class SessionViews;

// The worker's stream, routed to the views: a run's live curve as its samples arrive, its
// result into the session store, a sweep growing point by point, a matrix once measured,
// and the end of each (to RunLauncher::runEnded) whether it succeeded, failed or was cancelled.
class RunStream : public QObject {
    Q_OBJECT
public:
    RunStream(RunLauncher& launcher, PlotsView& plots, SessionViews& views, const std::optional<Topology>& topology);

private:
    QString serverName() const; // the server runs go to ("lab-3"), empty for this machine
    QString onServer() const; // " · lab-3" while runs go to a server, else empty
    void connectRuns();
    void connectJobs();
    void onRunStarted(quint64 id, const ctxscope::BenchSpec& spec);
    void onProgress(quint64 id, const QString& stage, int repetition, int repetitions, double fraction);
    void onResult(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    void onRunFailed(quint64 id, const QString& message);
    void onRunCancelled(quint64 id);
    void markUnfinished(quint64 id, const QString& how); // its partial curve stays, named so
    void jobEnded(quint64 id, const QString& message);
    void showMessage(const QString& message, int ms) const;

    RunLauncher& m_launcher;
    PlotsView& m_plots;
    SessionViews& m_views;
    const std::optional<Topology>& m_topology;
    std::map<quint64, std::size_t> m_liveSweeps; // run id -> index in the store's sweeps
    std::map<quint64, std::vector<RunResult>> m_matrixRuns; // of matrices being measured
};

} // namespace ctxscope::gui
