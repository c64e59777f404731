// SPDX-License-Identifier: MIT
#pragma once

#include "workerclient.h"

#include "ctxscope/topology.h"
#include "timelinedata.h"

#include <QObject>
#include <QString>

class QTimer;

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ctxscope::gui {

class PlotsView;
class RunMenu;
class SessionViews;

// The worker's stream, routed to the views: a run's live curve as its samples arrive, its
// result into the session store, a sweep growing point by point, a matrix once measured,
// and the end of each (to RunMenu::runEnded) whether it succeeded, failed or was cancelled.
// The worker sends progress every 20 ms; each shown repaints the run panel and the status bar,
// so a new stage or repetition is shown at once and the fraction within one at most every
// kProgressIntervalMs (on the quiet stage, not at all: nothing is drawn while a repetition
// measures, and its end draws the live plot too).
class StreamRouter : public QObject {
    Q_OBJECT
public:
    static constexpr int kProgressIntervalMs = 250;

    StreamRouter(RunMenu& launcher, PlotsView& plots, SessionViews& views, const std::optional<Topology>& topology);

private:
    QString serverName() const; // the server runs go to ("lab-3"), empty for this machine
    QString onServer() const; // " · lab-3" while runs go to a server, else empty
    void connectRuns();
    void connectJobs();
    void onRunStarted(quint64 id, const ctxscope::BenchSpec& spec);
    void onProgress(quint64 id, const QString& stage, int repetition, int repetitions, double fraction);
    void onSamples(quint64 id, int repetition, const QVector<double>& nsPerOp);
    // A new repetition's first word: the one before it has ended, and the quiet stage draws it.
    void repetitionSeen(int repetition);
    void showProgress(); // the latest progress, in the run panel and the status bar
    void onTraceEvents(quint64 id, std::shared_ptr<const ctxscope::protocol::TraceEventsEvent> part);
    void onResult(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    // A condition's A/B (streamrouterab.cpp): its side as is becomes a row of its own while the
    // condition's side streams on; the condition's side pairs with it and says the A/B.
    void onAsIsResult(quint64 id, std::shared_ptr<const ctxscope::RunResult> result);
    // The condition's side's row id partner and the A/B's text for the run panel; 0 and empty
    // for a run of no A/B. Forgets them.
    quint64 takeAsIsRow(quint64 id);
    QString takeAbText(quint64 id);
    void onRunFailed(quint64 id, const QString& message);
    void onRunCancelled(quint64 id);
    void markUnfinished(quint64 id, const QString& how); // its partial curve stays, named so
    void jobEnded(quint64 id, const QString& message);
    // A survey's end: its card (the worker's context, the runs, the survey block) joins the store.
    void surveyEnded(quint64 id, const nlohmann::json& survey);
    void showMessage(const QString& message, int ms) const;

    RunMenu& m_launcher;
    PlotsView& m_plots;
    SessionViews& m_views;
    const std::optional<Topology>& m_topology;
    std::map<quint64, std::size_t> m_liveSweeps; // run id -> index in the store's sweeps
    std::map<quint64, std::vector<RunResult>> m_matrixRuns; // of matrices being measured
    std::map<quint64, TraceWindow> m_traceWindows; // of traced runs, until their result
    std::map<quint64, std::vector<RunResult>> m_surveyRuns; // of surveys being measured
    QString m_liveLabel; // the running run's, as its live curve is named (without its number)
    std::map<quint64, quint64> m_asIsRows; // run id -> the row of its side as is
    std::map<quint64, std::shared_ptr<const ConditionAb>> m_abs; // run id -> its A/B, until its result
    struct Progress {
        quint64 id = 0;
        QString stage;
        int repetition = 0;
        int repetitions = 0;
        double fraction = 0;
    };
    Progress m_progress; // the latest progress of the running run
    int m_repetition = -1; // the repetition its stream is in (-1: none yet)
    bool m_progressShown = true; // m_progress is on screen
    QTimer* m_progressTimer = nullptr;
};

} // namespace ctxscope::gui
