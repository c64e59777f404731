// SPDX-License-Identifier: MIT
#pragma once

#include "runoutcome.h"

#include "ctxscope/bench.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace ctxscope::gui {

// Where lessons and scripts start runs and hear how each ended, without knowing the window:
// the shell installs how a spec is started (the app's threads moved off the measured PUs,
// the map showing the placement) and reports every end, with its outcome as a value.
class RunBroker : public QObject {
    Q_OBJECT
public:
    // `traced`: a traced run follows where the worker may trace (else the run goes untraced).
    using Starter = std::function<std::optional<quint64>(const BenchSpec&, bool traced)>;

    explicit RunBroker(QObject* parent = nullptr);
    void setStarter(Starter starter) { m_starter = std::move(starter); }
    // The run's id, or nothing when it could not start (the reason is on the status bar).
    std::optional<quint64> start(const BenchSpec& spec, bool traced = false) const;
    void reportFinished(quint64 id, RunOutcome outcome, const QString& message);

signals:
    // After a run's result or end reached every view; `message` says why a run did not succeed.
    void runFinished(quint64 id, ctxscope::gui::RunOutcome outcome, const QString& message);

private:
    Starter m_starter;
};

} // namespace ctxscope::gui
