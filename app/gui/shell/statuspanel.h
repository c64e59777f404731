// SPDX-License-Identifier: MIT
#pragma once

#include "runcontroller.h"

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

    void setWorkerState(RunController::State state, const QString& detail = {});
    void setAffinityNote(const QString& note, bool shared);
    void setSwitchRate(std::optional<double> perSecond);
    // After a run: its mean, kept until the next run starts.
    void setSwitchRateOfRun(std::optional<double> perSecond);
    void setRunProgress(const QString& text);

    QString workerText() const;
    QString switchRateText() const;
    QString affinityText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    RunController::State m_state = RunController::State::Stopped;
    bool m_affinityShared = false;
    QLabel* m_worker = nullptr;
    QLabel* m_affinity = nullptr;
    QLabel* m_rate = nullptr;
    QLabel* m_progress = nullptr;
};

} // namespace ctxscope::gui
