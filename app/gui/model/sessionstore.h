// SPDX-License-Identifier: MIT
#pragma once

#include "resultsmodel.h"
#include "sessionfile.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ctxscope::gui {

// What the session knows of one machine: its topology as the session had it and the
// worker's context block (Google Benchmark's "context", with ctxscope's system info).
struct MachineContext {
    std::string topologyXml; // empty: the topology shown is the machine's own
    nlohmann::json context; // null until a worker or a file describes the machine
};

// The session document: everything measured or opened, owned in one place. The views and
// the results table subscribe to its signals; saving serialises it (toSession) and opening
// a session fills it (load). Machines are keyed: this machine is kLocalMachine, so other
// machines can join later without a second store.
class SessionStore : public QObject {
    Q_OBJECT
public:
    // No host name can be this (ssh takes no spaces or parentheses in one), so a server named
    // "local" stays a server.
    static inline const QString kLocalMachine = QStringLiteral("(this machine)");

    explicit SessionStore(QObject* parent = nullptr);

    const std::vector<ResultRow>& runs() const { return m_runs; }
    const std::vector<std::shared_ptr<const SweepCurves>>& sweeps() const { return m_sweeps; }
    const std::vector<Session::Matrix>& matrices() const { return m_matrices; }
    const std::vector<CompareSource>& compared() const { return m_compared; }
    const std::vector<LessonRecord>& lessons() const { return m_lessons; }
    // The machine cards of File → Compare machines…, in the order they joined.
    const std::vector<MachineCardEntry>& machineCards() const { return m_machineCards; }
    const ResultRow* run(quint64 id) const; // nullptr when absent

    // `origin` names the file a run was read from; empty for a run measured here.
    void addRun(ResultRow row, const QString& origin = {});
    // A live sweep grows point by point: added once, then replaced as it fills.
    std::size_t addSweep(std::shared_ptr<const SweepCurves> sweep);
    void replaceSweep(std::size_t index, std::shared_ptr<const SweepCurves> sweep);
    void addMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin);
    // A lesson is added when it starts and replaced as each experiment ends.
    std::size_t addLesson(LessonRecord lesson);
    void replaceLesson(std::size_t index, LessonRecord lesson);
    // Another machine's results file, with its context block kept whole to be saved as read.
    void addCompared(CompareSource source, nlohmann::json context);
    // A card opened, or made by a survey through the worker (StreamRouter).
    void addMachineCard(MachineCardEntry card);

    const MachineContext& machine(const QString& key = kLocalMachine) const;
    // This machine's worker's context block as its last hello gave it (kept while a server
    // is shown, for the session's own machine when it is saved then); null before one.
    void setLocalWorkerContext(nlohmann::json context);
    // The context block that describes a machine now: a server's from its worker's hello; this
    // machine's from its worker's last hello, unless the session shows a topology read from a
    // file (a session measured elsewhere), whose block stays; null when nothing describes it.
    const nlohmann::json& contextOf(const QString& key) const;
    // Every machine the session knows: this one (kLocalMachine) first, then the servers in
    // the order they joined (connected, or read from a session).
    QStringList machineKeys() const;
    // The store's key of a row's machine (ResultRow::machine: empty for the session's own).
    static QString keyOf(const ResultRow& row) { return row.machine.isEmpty() ? kLocalMachine : row.machine; }
    // Whether the runs were measured on more than one machine.
    bool runsSpanMachines() const;
    void setMachineContext(const QString& key, nlohmann::json context);
    void setMachineTopologyXml(const QString& key, std::string xml);
    // Another topology than a session's measured elsewhere is shown now (this machine, a
    // server, a file): that session's own machine stops being shown. When runs of it are
    // held and its context names another host than this one, it becomes a machine of the
    // session under that host name, with its topology and context, and its runs name it, so
    // they keep saying where they were measured and runs made here from now on are told apart
    // from them. A machine of the session by that name with the same host and topology is the
    // same one (the runs join it); another machine of that name keeps it, and this one is
    // numbered ("host (2)"; "the session's machine" without a host: names ssh does not take,
    // so the switcher leaves them out). Returns that machine's key; empty when there was
    // nothing to keep apart.
    QString detachLoadedMachine();

    // What was measured here since the session was last saved or opened: the runs (not those
    // read from files) and the lessons. Quitting asks about them (FileMenu::confirmQuit).
    int unsavedRuns() const { return m_unsavedRuns; }
    int unsavedLessons() const { return m_unsavedLessons; }
    void markSaved();

    // Runs, sweeps, matrices and lessons go; compared files, machine cards and machines stay (as "Clear" did).
    void clearMeasurements();
    // The saved form; `liveContext` (this machine's worker's block, when one is connected),
    // or else its last hello's (kept while a server is shown), wins over a loaded one, and
    // `shownXml` is used when the session holds no topology of its own. The runs of servers
    // go to Session::machines, each with its server's context and topology as its worker's
    // hello gave them.
    Session toSession(const nlohmann::json& liveContext, const std::string& shownXml) const;
    // Replaces everything by a loaded session read from `origin`; `rows` are its runs (its
    // own machine's, then each of Session::machines', named in ResultRow::machine) with the
    // ids and colours the app gave them.
    void load(Session session, std::vector<ResultRow> rows, const QString& origin);

signals:
    void runAdded(const ctxscope::gui::ResultRow& row, const QString& origin);
    void sweepAdded(std::size_t index);
    void sweepChanged(std::size_t index);
    void matrixAdded(std::size_t index);
    void lessonAdded(std::size_t index);
    void lessonChanged(std::size_t index);
    void comparedChanged();
    void machineCardsChanged();
    void machineChanged(const QString& key);
    // Runs now name another machine (detachLoadedMachine): runs() has them as they are now.
    void runMachinesChanged();
    // Runs, sweeps, matrices and lessons were dropped (before a load refills them).
    void measurementsCleared();

private:
    std::vector<ResultRow> m_runs;
    std::vector<std::shared_ptr<const SweepCurves>> m_sweeps;
    std::vector<Session::Matrix> m_matrices;
    std::vector<LessonRecord> m_lessons;
    std::vector<CompareSource> m_compared;
    std::vector<nlohmann::json> m_comparedContexts;
    std::vector<MachineCardEntry> m_machineCards;
    std::map<QString, MachineContext> m_machines;
    QStringList m_machineOrder; // the keys of m_machines as they joined
    nlohmann::json m_localWorker;
    int m_unsavedRuns = 0;
    int m_unsavedLessons = 0;
};

} // namespace ctxscope::gui
