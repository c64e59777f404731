// SPDX-License-Identifier: MIT
#pragma once

#include "workerclient.h"

#include <QWidget>

#include <optional>

class QLabel;

namespace ctxscope::gui {

// The permanent part of the status bar: the worker's state, where the app's own threads
// run, the system's context switches per second during a run, and the run's progress.
class StatusPanel : public QWidget {
    Q_OBJECT
public:
    explicit StatusPanel(QWidget* parent = nullptr);

    void setWorkerState(WorkerClient::State state, const QString& detail = {});
    // The machine runs go to: `summary` names it (MachineDescription::summary()); a `remote`
    // name makes the worker's states read as a connection's ("lab-3: connection lost").
    // `runs` false: a topology file or description is shown, which nothing measures.
    void setMachine(const QString& summary, const QString& remote, bool runs = true);
    void setAffinityNote(const QString& note, bool shared);
    void setSwitchRate(std::optional<double> perSecond);
    // After a run: its mean, kept until the next run starts.
    void setSwitchRateOfRun(std::optional<double> perSecond);
    void setRunProgress(const QString& text);
    // In presentation mode the projector shows no text meant for the developer: the worker's
    // state (unless it failed), where the GUI's threads run, the system's switch rate.
    void setPresenting(bool on);
    // Room to leave on the status bar's left for a temporary message this wide (0: none): the
    // labels here step aside, least needed first (the switch rate, the GUI's CPUs, the
    // machine), for as long as it shows; those left are shown whole and the message is never cut.
    void leaveRoomForMessage(int width);

    QString workerText() const;
    QString machineText() const;
    QString switchRateText() const;
    QString affinityText() const;
    QString runProgressText() const; // empty when no run or job is under way

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateVisibility(); // what presentation mode and a temporary message leave room for
    static int wholeWidth(const QLabel& label); // its text's width, not elided

    int m_messageWidth = 0; // the temporary message's, 0 when none shows

    WorkerClient::State m_state = WorkerClient::State::Stopped;
    bool m_presenting = false;
    bool m_workerFailed = false; // its state is an error, shown even to the room
    bool m_affinityShared = false;
    QString m_remote; // the server's name over ssh, "" for this machine
    QLabel* m_machine = nullptr;
    QLabel* m_worker = nullptr;
    QLabel* m_affinity = nullptr;
    QLabel* m_rate = nullptr;
    QLabel* m_progress = nullptr;
};

} // namespace ctxscope::gui
